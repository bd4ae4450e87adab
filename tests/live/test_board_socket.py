"""The public board socket: `ws/events/<id>/board/`."""

from __future__ import annotations

import datetime

import pytest
from asgiref.sync import async_to_sync
from channels.db import database_sync_to_async
from django.core.cache import cache

from cards.models import CardState, DealtCard
from events import services
from events.errors import OutOfOrder
from events.models import Event
from events.reads.board import board_view
from events.reads.common import to_json
from live import targeting
from live.fragments import board_html
from tests.factories import make_table, make_user
from tests.live.sockets import TIMEOUT, card_faces, communicator, open_socket, refusal

pytestmark = pytest.mark.django_db(transaction=True)


def path(event_id: int) -> str:
    return f"/ws/events/{event_id}/board/"


def test_it_sends_a_snapshot_with_the_version_on_connect() -> None:
    table = make_table(players=2, start=True)
    event = table.refresh()
    expected = to_json(board_view(event).data)
    html = board_html(event, board_view(event))

    async def scenario() -> None:
        socket = await open_socket(path(event.pk))
        frame = await socket.receive_json_from(timeout=TIMEOUT)
        assert frame == {
            "type": "snapshot",
            "stream": "board",
            "version": event.version,
            "data": expected,
            "html": html,
        }
        assert await socket.receive_nothing(timeout=0.2)
        await socket.disconnect()

    async_to_sync(scenario)()


def test_it_sends_each_change_with_the_next_version() -> None:
    table = make_table(players=2, start=True)
    first, second = table.players

    async def scenario() -> None:
        socket = await open_socket(path(table.event.pk))
        version = (await socket.receive_json_from(timeout=TIMEOUT))["version"]
        steps = [
            lambda: table.choose_start(first),
            lambda: table.choose_start(second),
            lambda: table.report(first, 1, "loss"),
            lambda: table.report(second, 1, "win"),
            lambda: table.choose_win(second),
            lambda: table.report(first, 2, "loss"),
        ]
        for step in steps:
            await database_sync_to_async(step)()
            frame = await socket.receive_json_from(timeout=TIMEOUT)
            assert frame["type"] == "update"
            assert frame["stream"] == "board"
            assert frame["version"] == version + 1
            assert frame["data"]["version"] == frame["version"]
            version = frame["version"]
        assert version == (await database_sync_to_async(table.refresh)()).version
        assert await socket.receive_nothing(timeout=0.2)
        await socket.disconnect()

    async_to_sync(scenario)()


def test_it_sends_nothing_for_a_refused_change() -> None:
    table = make_table(players=2, start=True)
    player = table.players[0]
    table.choose_start(player)
    version = table.refresh().version

    def refused(key: str | None) -> None:
        with pytest.raises(OutOfOrder):
            services.result_submit(
                registration_id=table.rid(player),
                by=player,
                game=3,
                outcome="loss",
                idempotency_key=key,
            )

    async def scenario() -> None:
        socket = await open_socket(path(table.event.pk))
        assert (await socket.receive_json_from(timeout=TIMEOUT))["version"] == version
        # Refused without a key (all rolled back) and with one (the stored refusal commits).
        await database_sync_to_async(refused)(None)
        await database_sync_to_async(refused)("try-game-3")
        assert await socket.receive_nothing(timeout=0.3)
        await database_sync_to_async(table.report)(player, 1, "loss")
        frame = await socket.receive_json_from(timeout=TIMEOUT)
        assert frame["version"] == version + 1
        await socket.disconnect()

    async_to_sync(scenario)()


def test_it_resends_the_snapshot_on_reload() -> None:
    table = make_table(players=2, start=True)

    async def scenario() -> None:
        socket = await open_socket(path(table.event.pk))
        first = await socket.receive_json_from(timeout=TIMEOUT)
        await socket.send_json_to({"type": "reload"})
        again = await socket.receive_json_from(timeout=TIMEOUT)
        assert again == first
        # Frames that are not a reload request are ignored, and the socket stays open.
        await socket.send_to(text_data="not json")
        await socket.send_json_to({"type": "something else"})
        assert await socket.receive_nothing(timeout=0.2)
        await database_sync_to_async(table.choose_start)(table.players[0])
        assert (await socket.receive_json_from(timeout=TIMEOUT))["version"] == first["version"] + 1
        await socket.disconnect()

    async_to_sync(scenario)()


def test_it_never_shows_a_face_down_card() -> None:
    table = make_table(players=3, start=True)
    first = table.players[0]

    async def scenario() -> list[dict]:
        socket = await open_socket(path(table.event.pk))
        seen = [await socket.receive_json_from(timeout=TIMEOUT)]
        await database_sync_to_async(table.choose_start)(first)
        seen.append(await socket.receive_json_from(timeout=TIMEOUT))
        await socket.send_json_to({"type": "reload"})
        seen.append(await socket.receive_json_from(timeout=TIMEOUT))
        await socket.disconnect()
        return seen

    seen = async_to_sync(scenario)()
    # Before the confirmation nobody holds a card: the board shows none.
    assert card_faces(seen[0]) == []
    kept = set(DealtCard.objects.filter(state=CardState.KEPT).values_list("card", flat=True))
    assert kept and DealtCard.objects.filter(face_down=True).count() == 6
    for frame in seen[1:]:
        codes = {face["code"] for face in card_faces(frame)}
        assert codes and codes <= kept
    for frame in seen:
        text = str(frame)
        assert "@example.com" not in text and "endpoint" not in text


def test_it_refuses_a_foreign_origin() -> None:
    table = make_table(players=2)

    async def scenario() -> None:
        for origin in (b"https://evil.example", None):
            socket = communicator(path(table.event.pk), origin=origin)
            connected, _ = await socket.connect(timeout=TIMEOUT)
            assert not connected
            await socket.disconnect()

    async_to_sync(scenario)()


def test_it_refuses_a_draft_or_unknown_event() -> None:
    house = make_user("House", staff=True)
    draft = services.event_create(
        by=house, name="Draft", date=datetime.date(2026, 12, 3), format="league", contribution=0
    ).event_id
    assert Event.objects.get(pk=draft).phase == "draft"

    async def scenario() -> None:
        assert await refusal(communicator(path(draft))) == 4404
        assert await refusal(communicator(path(draft + 1000))) == 4404

    async_to_sync(scenario)()


def test_an_idle_socket_stays_open() -> None:
    table = make_table(players=2, start=True)

    async def scenario() -> None:
        socket = await open_socket(path(table.event.pk))
        version = (await socket.receive_json_from(timeout=TIMEOUT))["version"]
        # Longer than the channel layer's blocking read (5 s) and redis-py 8's default timeout.
        assert await socket.receive_nothing(timeout=7, interval=0.5)
        await database_sync_to_async(table.choose_start)(table.players[0])
        assert (await socket.receive_json_from(timeout=TIMEOUT))["version"] == version + 1
        await socket.disconnect()

    async_to_sync(scenario)()


def test_with_no_board_open_a_change_sends_the_board_its_version_alone() -> None:
    table = make_table(players=3, start=True)
    ann = table.players[0]
    event_id = table.event.pk
    mark = targeting._mark(targeting.board_audience(event_id))
    cache.delete(mark)
    table.choose_start(ann)

    closed = targeting.change_snapshots(event_id, [table.rid(ann)])

    (board,) = [s for s in closed if s.stream == "board"]
    assert board.unheard and board.frame() == {
        "type": "update",
        "stream": "board",
        "version": table.refresh().version,
    }
    assert not [s for s in closed if s.stream == "venue"]
    (places,) = [s for s in closed if s.stream == "places"]  # the phones' places still go
    assert places.data is not None and places.data["places"][str(table.rid(ann))][0] == 1

    async def scenario() -> dict:
        # A board opens: its socket marks the event's board before its first snapshot.
        socket = await open_socket(path(event_id))
        frame = await socket.receive_json_from(timeout=TIMEOUT)
        assert await database_sync_to_async(cache.get)(mark) == 1
        await socket.disconnect()
        return frame

    assert async_to_sync(scenario)()["type"] == "snapshot"
    table.report(ann, 1, "loss")
    opened = targeting.change_snapshots(event_id, [table.rid(ann)])
    (board,) = [s for s in opened if s.stream == "board"]
    assert board.fragment and board.base is not None and board.data is not None
    assert board.data["version"] == board.version  # what moved: the version, at least
    assert [s for s in opened if s.stream == "venue"]
