"""A player's socket: `ws/events/<id>/player/` (the board and their own state)."""

from __future__ import annotations

import pytest
from asgiref.sync import async_to_sync
from channels.db import database_sync_to_async

from accounts.models import User
from cards.models import DealtCard
from events.models import Registration
from events.registration import end_sessions
from events.snapshots import board_snapshot, player_snapshot
from tests.factories import make_table, make_user
from tests.live.sockets import (
    TIMEOUT,
    by_stream,
    card_faces,
    communicator,
    open_socket,
    refusal,
    session_cookie,
)

pytestmark = pytest.mark.django_db(transaction=True)


def path(event_id: int) -> str:
    return f"/ws/events/{event_id}/player/"


def test_it_sends_the_board_and_the_players_own_snapshot_on_connect() -> None:
    table = make_table(players=2, start=True)
    player = table.players[0]
    registration = Registration.objects.select_related("event").get(pk=table.rid(player))
    board, own = board_snapshot(registration.event), player_snapshot(registration)
    cookie = session_cookie(player)

    async def scenario() -> None:
        socket = await open_socket(path(table.event.pk), cookie=cookie)
        streams = await by_stream(socket, 2)
        assert streams["board"] == [
            {"type": "snapshot", "stream": "board", "version": board["version"], "data": board}
        ]
        assert streams["player"] == [
            {"type": "snapshot", "stream": "player", "version": own["version"], "data": own}
        ]
        assert own["registration_id"] == registration.pk and own["version"] >= 1
        assert await socket.receive_nothing(timeout=0.2)
        await socket.disconnect()

    async_to_sync(scenario)()


def test_it_sends_the_players_own_changes_in_version_order() -> None:
    table = make_table(players=2, start=True)
    player, other = table.players
    cookie = session_cookie(player)

    async def scenario() -> None:
        socket = await open_socket(path(table.event.pk), cookie=cookie)
        start = await by_stream(socket, 2)
        board, own = start["board"][0]["version"], start["player"][0]["version"]

        await database_sync_to_async(table.choose_start)(player)
        streams = await by_stream(socket, 2)
        assert [f["version"] for f in streams["board"]] == [board + 1]
        (mine,) = streams["player"]
        assert mine["type"] == "update" and mine["version"] == own + 1
        assert mine["data"]["pending"] is None and len(mine["data"]["hand"]) == 1
        assert mine["data"]["next_step"]["code"] == "report"

        await database_sync_to_async(table.report)(player, 1, "win")
        streams = await by_stream(socket, 2)
        (mine,) = streams["player"]
        assert mine["version"] == own + 2
        pending = mine["data"]["pending"]
        assert pending["kind"] == "win" and all("code" in card for card in pending["cards"])

        # Another player's change moves the board only.
        await database_sync_to_async(table.choose_start)(other)
        frame = await socket.receive_json_from(timeout=TIMEOUT)
        assert frame["stream"] == "board" and frame["version"] == board + 3
        assert await socket.receive_nothing(timeout=0.3)

        await database_sync_to_async(table.choose_win)(player)
        streams = await by_stream(socket, 2)
        assert streams["board"][0]["version"] == board + 4
        assert streams["player"][0]["version"] == own + 3
        assert len(streams["player"][0]["data"]["hand"]) == 2
        await socket.disconnect()

    async_to_sync(scenario)()


def test_it_never_sends_a_face_down_card_before_the_confirmation() -> None:
    table = make_table("switch", players=2, start=True)
    player, other = table.players
    cookies = [session_cookie(player), session_cookie(other)]

    async def play() -> tuple[list[dict], list[dict]]:
        mine = await open_socket(path(table.event.pk), cookie=cookies[0])
        theirs = await open_socket(path(table.event.pk), cookie=cookies[1])
        mine_seen = [f for fs in (await by_stream(mine, 2)).values() for f in fs]
        theirs_seen = [f for fs in (await by_stream(theirs, 2)).values() for f in fs]
        await database_sync_to_async(table.choose_start)(player, [0, 2, 4])
        mine_seen += [f for fs in (await by_stream(mine, 2)).values() for f in fs]
        theirs_seen.append(await theirs.receive_json_from(timeout=TIMEOUT))
        await theirs.send_json_to({"type": "reload"})
        theirs_seen += [f for fs in (await by_stream(theirs, 2)).values() for f in fs]
        for socket in (mine, theirs):
            await socket.disconnect()
        return mine_seen, theirs_seen

    mine_seen, theirs_seen = async_to_sync(play)()
    # The other player's five cards are still face down; their slots never carry a card.
    assert DealtCard.objects.filter(registration_id=table.rid(other), face_down=True).count() == 5
    for frame in theirs_seen:
        if frame["stream"] == "player":
            pending = frame["data"]["pending"]
            assert len(pending["cards"]) == 5
            for slot in pending["cards"]:
                assert slot["face_down"] is True
                assert set(slot) == {"slot", "face_down"}
    # Before the confirmation the player's own offer shows slots only; after it, the cards.
    before = [f for f in mine_seen if f["stream"] == "player" and f["type"] == "snapshot"]
    after = [f for f in mine_seen if f["stream"] == "player" and f["type"] == "update"]
    assert [set(s) for s in before[0]["data"]["pending"]["cards"]] == [{"slot", "face_down"}] * 5
    assert card_faces(before[0]) == []
    assert after[0]["data"]["pending"] is None
    assert len(after[0]["data"]["hand"]) == 3
    # The board shows kept cards only.
    kept = set(
        DealtCard.objects.filter(registration_id=table.rid(player), state="kept").values_list(
            "card", flat=True
        )
    )
    for frame in mine_seen + theirs_seen:
        if frame["stream"] == "board":
            assert {face["code"] for face in card_faces(frame)} <= kept


def test_it_resends_both_snapshots_on_reload() -> None:
    table = make_table(players=2, start=True)
    cookie = session_cookie(table.players[0])

    async def scenario() -> None:
        socket = await open_socket(path(table.event.pk), cookie=cookie)
        first = await by_stream(socket, 2)
        await socket.send_json_to({"type": "reload"})
        assert await by_stream(socket, 2) == first
        await socket.disconnect()

    async_to_sync(scenario)()


def test_it_refuses_an_anonymous_socket() -> None:
    table = make_table(players=2, start=True)

    async def scenario() -> None:
        assert await refusal(communicator(path(table.event.pk))) == 4401

    async_to_sync(scenario)()


def test_it_refuses_a_player_of_another_event() -> None:
    here = make_table(players=2, start=True)
    elsewhere = make_table(players=2, start=True)
    outsider = make_user()
    cookies = [session_cookie(elsewhere.players[0]), session_cookie(outsider)]

    async def scenario() -> None:
        for cookie in cookies:
            assert await refusal(communicator(path(here.event.pk), cookie=cookie)) == 4403
        # The same player is welcome on their own event's socket.
        socket = await open_socket(path(elsewhere.event.pk), cookie=cookies[0])
        await by_stream(socket, 2)
        await socket.disconnect()

    async_to_sync(scenario)()


def test_it_closes_on_reload_once_the_session_has_ended() -> None:
    table = make_table(players=2, start=True)
    player = table.players[0]
    cookie = session_cookie(player)

    async def scenario() -> None:
        socket = await open_socket(path(table.event.pk), cookie=cookie)
        await by_stream(socket, 2)
        await database_sync_to_async(_sign_out_everywhere)(player)
        await socket.send_json_to({"type": "reload"})
        message = await socket.receive_output(timeout=TIMEOUT)
        assert message == {"type": "websocket.close", "code": 4401}
        await socket.disconnect()

    async_to_sync(scenario)()


def _sign_out_everywhere(user: User) -> None:
    end_sessions(user)
