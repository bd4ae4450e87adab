"""A player's socket: `ws/events/<id>/player/` (their own state and their places, not the board)."""

from __future__ import annotations

import pytest
from asgiref.sync import async_to_sync
from channels.db import database_sync_to_async

from accounts.models import User
from cards.models import DealtCard
from cards.names import card_face
from events.models import Registration
from events.reads.common import to_json
from events.reads.player import player_state
from events.registration import end_sessions
from live.fragments import player_html
from tests.factories import make_table, make_user
from tests.live.sockets import (
    TIMEOUT,
    by_stream,
    card_faces,
    communicator,
    frames,
    html_card_names,
    open_socket,
    refusal,
    session_cookie,
    without_keys,
)

pytestmark = pytest.mark.django_db(transaction=True)


def path(event_id: int) -> str:
    return f"/ws/events/{event_id}/player/"


def test_it_sends_the_players_own_snapshot_and_places_on_connect() -> None:
    table = make_table(players=2, start=True)
    player = table.players[0]
    registration = Registration.objects.select_related("event").get(pk=table.rid(player))
    own = player_state(registration)
    cookie = session_cookie(player)

    async def scenario() -> None:
        socket = await open_socket(path(table.event.pk), cookie=cookie)
        streams = await by_stream(socket, 2)
        assert streams["places"] == [
            {
                "type": "snapshot",
                "stream": "places",
                "version": own.event_version,
                "data": {"high": None, "low": None, "ranked": 0, "final": False},
            }
        ]
        (mine,) = streams["player"]
        expected = player_html(registration.event, own)
        assert without_keys(mine) == without_keys(
            {
                "type": "snapshot",
                "stream": "player",
                "version": own.version,
                "data": to_json(own),
                "html": expected,
            }
        )
        assert own.registration_id == registration.pk and own.version >= 1
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
        board, own = start["places"][0]["version"], start["player"][0]["version"]

        await database_sync_to_async(table.choose_start)(player)
        streams = await by_stream(socket, 2)
        assert [f["version"] for f in streams["places"]] == [board + 1]
        assert streams["places"][0]["data"] == {"high": 1, "low": 1, "ranked": 1, "final": False}
        (mine,) = streams["player"]
        assert mine["type"] == "update" and mine["version"] == own + 1
        assert mine["data"]["pending"] is None and len(mine["data"]["hand"]) == 1
        assert mine["data"]["next_step"]["code"] == "report"
        assert 'data-step="report"' in mine["html"] and "High 1st of 1" in mine["html"]

        await database_sync_to_async(table.report)(player, 1, "win")
        streams = await by_stream(socket, 2)
        (mine,) = streams["player"]
        assert mine["version"] == own + 2
        pending = mine["data"]["pending"]
        assert pending["kind"] == "win" and all("code" in card for card in pending["cards"])

        # Another player's change moves this player's places only: a few bytes, no panel.
        await database_sync_to_async(table.choose_start)(other)
        frame = await socket.receive_json_from(timeout=TIMEOUT)
        assert frame["stream"] == "places" and frame["version"] == board + 3
        assert set(frame["data"]) == {"high", "low", "ranked", "final"}
        assert frame["data"]["ranked"] == 2 and "html" not in frame
        assert await socket.receive_nothing(timeout=0.3)

        await database_sync_to_async(table.choose_win)(player)
        streams = await by_stream(socket, 2)
        assert streams["places"][0]["version"] == board + 4
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
    face_down = {
        card_face(code)["name"]
        for code in DealtCard.objects.filter(
            registration_id=table.rid(other), face_down=True
        ).values_list("card", flat=True)
    }
    for frame in theirs_seen:
        assert not html_card_names(frame) & face_down
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
    assert card_faces(before[0]) == [] and html_card_names(before[0]) == set()
    assert 'class="card back"' in before[0]["html"]
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
        if frame["stream"] == "places":
            assert card_faces(frame) == [] and "html" not in frame


def test_it_resends_both_snapshots_on_reload() -> None:
    table = make_table(players=2, start=True)
    cookie = session_cookie(table.players[0])

    async def scenario() -> None:
        socket = await open_socket(path(table.event.pk), cookie=cookie)
        first = await frames(socket, 2)
        await socket.send_json_to({"type": "reload"})
        again = await frames(socket, 2)
        assert [without_keys(f) for f in again] == [without_keys(f) for f in first]
        assert {f["stream"] for f in first} == {"player", "places"}
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
