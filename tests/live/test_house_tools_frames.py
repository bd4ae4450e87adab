"""House's tools on open House pages: a paid flag moves only its player's row and the pool's
collected total; switching self check-in moves only the tools section."""

from __future__ import annotations

import pytest
from asgiref.sync import async_to_sync
from channels.db import database_sync_to_async

from events import services
from tests.factories import make_table, make_user
from tests.live.sockets import TIMEOUT, by_stream, open_socket, session_cookie
from tests.live.test_targeted_frames import forget_what_was_sent, house_path

pytestmark = pytest.mark.django_db(transaction=True)


def test_a_payment_moves_its_row_and_the_collected_total() -> None:
    table = make_table(players=3, contribution=10)
    ann = table.players[0]
    forget_what_was_sent(table.event.pk)
    cookie = session_cookie(table.house)
    rid = table.rid(ann)
    others = {f"house-row-{table.rid(p)}" for p in table.players[1:]}

    async def scenario() -> None:
        socket = await open_socket(house_path(table.event.pk), cookie=cookie)
        start = await by_stream(socket, 2)
        assert "Not paid" in start["house"][0]["html"]
        await database_sync_to_async(services.payment_mark)(
            registration_id=rid, by=table.house, paid=True
        )
        house = (await by_stream(socket, 2))["house"][0]
        parts = house["parts"]
        assert "Paid $10" in parts[f"house-row-{rid}"]
        assert "Collected: <strong>$10</strong> (1 paid)" in parts["registration"]
        assert not others & set(parts)
        await socket.disconnect()

    async_to_sync(scenario)()


def test_switching_self_check_in_moves_the_tools_section() -> None:
    table = make_table(players=2)
    forget_what_was_sent(table.event.pk)
    cookie = session_cookie(table.house)

    async def scenario() -> None:
        socket = await open_socket(house_path(table.event.pk), cookie=cookie)
        await by_stream(socket, 2)
        answer = await database_sync_to_async(services.self_check_in_switch)(
            event_id=table.event.pk, by=table.house, enabled=True
        )
        house = (await by_stream(socket, 2))["house"][0]
        parts = house["parts"]
        assert f"data-check-in-code>{answer.code}</code>" in parts["house-tools"]
        assert not [id for id in parts if id.startswith("house-row-")]
        await socket.disconnect()

    async_to_sync(scenario)()


def test_switching_self_check_in_on_shows_the_way_in_on_open_player_pages() -> None:
    table = make_table(players=1)
    walk_in = make_user("Walk In")
    table.register(walk_in)
    cookie = session_cookie(walk_in)

    async def scenario() -> None:
        socket = await open_socket(f"/ws/events/{table.event.pk}/player/", cookie=cookie)
        start = await by_stream(socket, 2)
        assert "Check in with the board" not in start["player"][0]["html"]
        await database_sync_to_async(services.self_check_in_switch)(
            event_id=table.event.pk, by=table.house, enabled=True
        )
        received = await socket.receive_json_from(timeout=TIMEOUT)
        while received.get("stream") != "player":
            received = await socket.receive_json_from(timeout=TIMEOUT)
        assert "Check in with the board" in received["html"]
        assert f"/events/{table.event.pk}/check-in" in received["html"]
        # The step above the button says so too.
        step = "Check in with the board&#x27;s code or with House before playing."
        assert step in received["html"]
        await socket.disconnect()

    async_to_sync(scenario)()
