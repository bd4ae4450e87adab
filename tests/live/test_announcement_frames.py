"""House's announcements reach every open player page of the event over its socket, once the
announcement is committed; boards, House pages and other events' players hear nothing."""

from __future__ import annotations

import json

import pytest
from asgiref.sync import async_to_sync
from channels.db import database_sync_to_async

from events import services
from events.errors import NotFound
from tests.factories import make_table, make_user
from tests.live.sockets import TIMEOUT, by_stream, frames, open_socket, session_cookie

pytestmark = pytest.mark.django_db(transaction=True)


def test_it_reaches_every_player_socket_of_the_event_and_no_other() -> None:
    table = make_table(players=2)
    ann, bob = table.players
    other = make_table(players=1)
    cookies = [session_cookie(p) for p in (ann, bob, other.players[0])]

    async def scenario() -> None:
        sockets = [
            await open_socket(f"/ws/events/{table.event.pk}/player/", cookie=cookies[0]),
            await open_socket(f"/ws/events/{table.event.pk}/player/", cookie=cookies[1]),
            await open_socket(f"/ws/events/{other.event.pk}/player/", cookie=cookies[2]),
        ]
        board = await open_socket(f"/ws/events/{table.event.pk}/board/")
        for socket in sockets:
            await by_stream(socket, 2)  # the snapshots on connect
        await frames(board, 1)
        answer = await database_sync_to_async(services.announcement_send)(
            event_id=table.event.pk, by=table.house, text="Bags <up> at 8 & bring a pen"
        )
        for socket in sockets[:2]:
            # The change also moves the places stream on; the announcement comes first.
            received = await socket.receive_json_from(timeout=TIMEOUT)
            while received.get("type") != "announcement":
                received = await socket.receive_json_from(timeout=TIMEOUT)
            assert received["data"]["id"] == answer.announcement_id
            assert received["data"]["text"] == "Bags <up> at 8 & bring a pen"
            assert received["data"]["sent_by"] == "House: House"
            assert "Bags &lt;up&gt; at 8 &amp; bring a pen" in received["html"]
            assert "<up>" not in received["html"]
        # Another event's player and the board hear no announcement.
        for socket in (sockets[2], board):
            while not await socket.receive_nothing(timeout=0.5):
                received = await socket.receive_json_from(timeout=TIMEOUT)
                assert received.get("type") != "announcement", json.dumps(received)
        for socket in (*sockets, board):
            await socket.disconnect()

    async_to_sync(scenario)()


def test_a_refused_announcement_sends_nothing() -> None:
    table = make_table(players=1)
    cookie = session_cookie(table.players[0])
    stranger = make_user("Stranger")

    async def scenario() -> None:
        socket = await open_socket(f"/ws/events/{table.event.pk}/player/", cookie=cookie)
        await by_stream(socket, 2)
        with pytest.raises(NotFound):  # the event is not theirs
            await database_sync_to_async(services.announcement_send)(
                event_id=table.event.pk, by=stranger, text="Free drinks"
            )
        assert await socket.receive_nothing(timeout=1)
        await socket.disconnect()

    async_to_sync(scenario)()
