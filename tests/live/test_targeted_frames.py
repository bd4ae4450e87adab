"""Targeted updates: board and House frames carry only the pieces that changed, on a base version.

Real sockets on the ASGI application, the Redis channel layer and cache, real transactions.
"""

from __future__ import annotations

import json
import random
import re
from collections.abc import Callable
from functools import partial
from typing import Any

import pytest
from asgiref.sync import async_to_sync
from channels.db import database_sync_to_async
from django.core.cache import cache

from cards.models import CardState, DealtCard
from cards.names import card_name
from events import services
from events.models import Event
from events.reads.board import board_view
from events.reads.common import to_json
from house.read_model import house_page, sights
from live import protocol, targeting
from live.fragments import HOUSE_SECTIONS, board_html, compact, house_cut, house_html
from tests.factories import make_table, make_user
from tests.live.board_page import BoardPage, place_cells, reorder, row_ids
from tests.live.sockets import TIMEOUT, by_stream, card_faces, open_socket, session_cookie

pytestmark = pytest.mark.django_db(transaction=True)

CARD_NAME = re.compile(r'role="img" aria-label="([^",]+)')


def board_path(event_id: int) -> str:
    return f"/ws/events/{event_id}/board/"


def house_path(event_id: int) -> str:
    return f"/ws/events/{event_id}/house/"


def board_rows(event: Event) -> dict[str, Any]:
    """Each board row's element id and what it shows (as JSON)."""
    view = board_view(event)
    rows: dict[str, Any] = {}
    for side, entries in (("high", view.high), ("low", view.low)):
        for entry in entries:
            suffix = "-low" if side == "low" else ""
            rows[f"board-row-{entry.registration_id}{suffix}"] = to_json(entry.row)
    return rows


def own_data(row: Any) -> Any:
    """What a board row shows besides its place (None for no row)."""
    return None if row is None else {k: v for k, v in row.items() if k != "place"}


def fresh_page(event: Event) -> BoardPage:
    """The board as a page loaded now shows it."""
    return BoardPage.of(board_html(event, board_view(event)), event.version)


def forget_what_was_sent(event_id: int) -> None:
    """Event ids repeat across tests: no record of another test's event may serve as a base.
    A board page of the event is open from now on (its frames carry its fragment)."""
    for group in (protocol.event_group(event_id), *targeting.house_groups(event_id)):
        cache.delete(targeting._shown_key(group))
    for sight in sights():
        cache.delete(targeting._house_mark(event_id, sight.name))
    targeting.listening(targeting.board_audience(event_id))


def shown_cards(frame: dict[str, Any]) -> set[str]:
    """The names of the face-up cards a frame's HTML shows, whole or in parts."""
    html = (frame.get("html") or "") + "".join((frame.get("parts") or {}).values())
    return set(CARD_NAME.findall(html)) - {"Empty card slot"}


def test_a_board_update_carries_the_head_and_only_the_rows_that_changed() -> None:
    table = make_table(players=4, start=True)
    first, second, third, _ = table.players
    forget_what_was_sent(table.event.pk)
    table.choose_start(first)  # the lists have rows from now on: the layout stays

    async def scenario() -> list[dict[str, Any]]:
        socket = await open_socket(board_path(table.event.pk))
        held = await socket.receive_json_from(timeout=TIMEOUT)
        assert held["type"] == "snapshot" and "html" in held and "parts" not in held
        seen = [held]
        for player in (second, third):
            before = await database_sync_to_async(lambda: board_rows(table.refresh()))()
            await database_sync_to_async(table.choose_start)(player)
            after = await database_sync_to_async(lambda: board_rows(table.refresh()))()
            frame = await socket.receive_json_from(timeout=TIMEOUT)
            changed = {id for id, row in after.items() if own_data(before.get(id)) != own_data(row)}
            moved = {
                id for id in after if id in before and before[id]["place"] != after[id]["place"]
            }
            rid = await database_sync_to_async(table.rid)(player)
            assert f"board-row-{rid}" in changed
            assert frame["type"] == "update"
            assert frame["base"] == seen[-1]["version"]
            assert frame["version"] == frame["base"] + 1
            assert "html" not in frame
            # Exactly the head's facts and progress (a card was kept) and the rows whose hand
            # changed, nothing else (not the head's title); the places that moved, and those of
            # the rows it carries, apart.
            assert set(frame["parts"]) == {"board-facts", "board-progress"} | changed
            assert len(changed) < len(after)
            assert frame["places"] == {id: str(after[id]["place"]) for id in changed | moved}
            # A new row comes with its place in the list (the whole list, or the moves from the
            # base's order: a page holding the base's list then holds the new one).
            high_before = [id for id in before if not id.endswith("-low")]
            assert reorder(high_before, frame["order"]["board-high"]) == [
                id for id in after if not id.endswith("-low")
            ]
            assert frame["data"]["version"] == frame["version"]
            seen.append(frame)
        assert await socket.receive_nothing(timeout=0.2)
        await socket.disconnect()
        return seen

    seen = async_to_sync(scenario)()
    kept = set(DealtCard.objects.filter(state=CardState.KEPT).values_list("card", flat=True))
    # Still face down (the fourth player's starting offer); a card of the same name kept by
    # another player (several decks) may show.
    hidden = set(DealtCard.objects.filter(face_down=True).values_list("card", flat=True)) - kept
    assert hidden
    for frame in seen:
        assert {face["code"] for face in card_faces(frame)} <= kept
        assert shown_cards(frame)
        assert not shown_cards(frame) & {card_name(code) for code in hidden}


def test_a_change_that_moves_places_sends_the_rows_that_changed_and_the_places_apart() -> None:
    """A row that climbs moves the places of the rows it passes: those rows are not sent again,
    only their places, and a page that applies the frames shows what a page loaded now shows."""
    table = make_table(players=8, start=True)
    forget_what_was_sent(table.event.pk)
    first, second, third = table.players[:3]
    for player in table.players[:3]:
        table.choose_start(player)
    steps: list[Callable[[], object]] = [partial(table.choose_start, p) for p in table.players[3:]]
    steps += [
        lambda: table.report(first, 1, "win"),
        lambda: table.choose_win(first),
        lambda: table.report(second, 1, "loss"),
        lambda: table.report(third, 1, "win"),
        lambda: table.choose_win(third, 1),
    ]

    async def scenario() -> int:
        socket = await open_socket(board_path(table.event.pk))
        start = await socket.receive_json_from(timeout=TIMEOUT)
        page = BoardPage.of(start["html"], start["version"])
        fresh = await database_sync_to_async(lambda: fresh_page(table.refresh()))()
        assert page.shown() == fresh.shown()
        places_alone = 0
        for step in steps:
            before = await database_sync_to_async(lambda: board_rows(table.refresh()))()
            await database_sync_to_async(step)()
            after = await database_sync_to_async(lambda: board_rows(table.refresh()))()
            frame = await socket.receive_json_from(timeout=TIMEOUT)
            assert frame["base"] == page.version and "html" not in frame
            changed = {id for id, row in after.items() if own_data(before.get(id)) != own_data(row)}
            moved = {
                id for id in after if id in before and before[id]["place"] != after[id]["place"]
            }
            rows = {id: html for id, html in frame["parts"].items() if id.startswith("board-row-")}
            # Only the rows whose own data changed, each without its place ...
            assert set(rows) == changed
            for id, html in rows.items():
                assert row_ids(html) == [id]
                assert place_cells(html) == [""]
            # ... and the places that moved or that those rows leave to the frame.
            assert frame.get("places", {}) == {
                id: str(after[id]["place"]) for id in changed | moved
            }
            places_alone += len(moved - changed)
            page.take(frame)
            fresh = await database_sync_to_async(lambda: fresh_page(table.refresh()))()
            assert page.version == fresh.version
            assert page.shown() == fresh.shown()
            assert page.places() == {id: str(row["place"]) for id, row in after.items()}
        assert await socket.receive_nothing(timeout=0.2)
        await socket.disconnect()
        return places_alone

    # The changes moved places of rows that did not change: those went as places alone.
    assert async_to_sync(scenario)() > 0


def test_a_page_that_shows_other_places_is_not_brought_up_to_date_without_them(
    settings: Any,
) -> None:
    """A page that started from a later version than the one sent takes the next update only
    when the update also sets every place that page shows otherwise; a page that may show other
    places (or a record that does not say) gets the whole snapshot instead."""
    table = make_table(players=4, start=True)
    forget_what_was_sent(table.event.pk)
    for player in table.players:
        table.choose_start(player)
    sent = table.refresh().version
    group = protocol.event_group(table.event.pk)
    settings.LIVE_UPDATES = "off"
    services.announcement_send(event_id=table.event.pk, by=table.house, text="Boards 1 and 2")
    started = table.refresh()
    assert started.version == sent + 1
    targeting.board(started)  # a page starts from this version while its change is on the way
    services.announcement_send(event_id=table.event.pk, by=table.house, text="Boards 3 and 4")
    assert table.refresh().version == sent + 2
    record = cache.get(targeting._shown_key(group))

    def next_update(page: dict[str, Any]) -> protocol.Snapshot:
        """The board's next update while the page that started holds `page`."""
        versions = {**record["versions"], sent + 1: page}
        cache.set(targeting._shown_key(group), {**record, "versions": versions})
        (board,) = [
            s for s in targeting.change_snapshots(table.event.pk, []) if s.stream == "board"
        ]
        return board

    shown = targeting._last_shown(group, started)[sent + 1]
    # Nothing moved on the board: the update carries its facts line alone (the audit head moved),
    # and that page takes it.
    board = next_update(shown)
    assert set(board.parts or {}) == {"board-facts"} and not board.places and not board.order
    assert board.base == sent and board.bases == (sent, sent + 1)
    # A page of that version showing one place otherwise would keep it: it reloads instead.
    row = sorted(shown["places"])[0]
    board = next_update({**shown, "places": {**shown["places"], row: "99"}})
    assert board.base == sent and board.bases == (sent,)
    assert not board.places
    # As does one whose record names no places (one kept before the places went apart).
    board = next_update({k: v for k, v in shown.items() if k != "places"})
    assert board.bases == (sent,)


def test_a_house_update_carries_only_the_rows_and_sections_that_changed() -> None:
    table = make_table(players=4, start=True)
    first, second = table.players[:2]
    forget_what_was_sent(table.event.pk)
    cookie = session_cookie(table.house)
    others = {f"house-row-{table.rid(p)}" for p in table.players[2:]}

    async def scenario() -> None:
        socket = await open_socket(house_path(table.event.pk), cookie=cookie)
        start = await by_stream(socket, 2)
        version = start["house"][0]["version"]
        assert "html" in start["house"][0]
        for player in (first, second):
            await database_sync_to_async(table.choose_start)(player)
            house = (await by_stream(socket, 2))["house"][0]
            rid = await database_sync_to_async(table.rid)(player)
            assert house["type"] == "update" and house["base"] == version
            assert house["version"] == version + 1
            assert "html" not in house
            assert f"house-row-{rid}" in house["parts"]
            # The other players' rows did not change, nor did anyone's check-in entry.
            assert not others & set(house["parts"])
            assert not [id for id in house["parts"] if id.startswith("checkin-row-")]
            assert [row["registration_id"] for row in house["data"]["players"]] == [rid]
            # The row shows the kept card.
            kept = table.event.rules.starting
            assert f">{kept}/{table.event.rules.kept}</td>" in house["parts"][f"house-row-{rid}"]
            version = house["version"]
        await socket.disconnect()

    async_to_sync(scenario)()


def test_what_a_house_row_is_rendered_from_is_what_the_page_shows_first() -> None:
    """One read model: the pushed row is the row of the page's first render."""
    table = make_table(players=2, start=True)
    event = table.refresh()
    page = house_page(event)
    rid = table.rid(table.players[0])
    cut = house_cut(page)
    (row,) = [p for p in cut.pieces if p.id == f"house-row-{rid}"]
    blank = re.compile(r'(value|data-key)="[0-9a-f]{32}"')
    assert blank.sub("", row.render()) in blank.sub("", compact(house_html(page)))


def test_a_page_that_holds_another_version_gets_a_whole_snapshot_on_reload() -> None:
    table = make_table(players=3, start=True)
    forget_what_was_sent(table.event.pk)
    table.choose_start(table.players[0])

    async def scenario() -> None:
        socket = await open_socket(board_path(table.event.pk))
        first = await socket.receive_json_from(timeout=TIMEOUT)
        # Two changes; the page keeps only the second (as if the first were lost on the way):
        # it builds on a version the page does not hold, so the page asks for the snapshot.
        await database_sync_to_async(table.choose_start)(table.players[1])
        lost = await socket.receive_json_from(timeout=TIMEOUT)
        await database_sync_to_async(table.choose_start)(table.players[2])
        kept = await socket.receive_json_from(timeout=TIMEOUT)
        assert lost["base"] == first["version"] and kept["base"] == lost["version"]
        await socket.send_json_to({"type": "reload"})
        whole = await socket.receive_json_from(timeout=TIMEOUT)
        assert whole["type"] == "snapshot" and whole["version"] == kept["version"]
        assert "html" in whole and "parts" not in whole and "base" not in whole
        expected = await database_sync_to_async(lambda: board_rows(table.refresh()))()
        for id in expected:
            assert f'id="{id}"' in whole["html"]
        await socket.disconnect()

    async_to_sync(scenario)()


def test_without_a_record_of_what_was_sent_an_update_carries_the_whole_fragment() -> None:
    table = make_table(players=3, start=True)
    forget_what_was_sent(table.event.pk)
    table.choose_start(table.players[0])

    async def scenario() -> None:
        socket = await open_socket(board_path(table.event.pk))
        version = (await socket.receive_json_from(timeout=TIMEOUT))["version"]
        # Another process's record, or none (the cache lost it): the whole fragment, no base.
        await database_sync_to_async(forget_what_was_sent)(table.event.pk)
        await database_sync_to_async(table.choose_start)(table.players[1])
        frame = await socket.receive_json_from(timeout=TIMEOUT)
        assert frame["type"] == "update" and frame["version"] == version + 1
        assert "html" in frame and "base" not in frame and "parts" not in frame
        # From then on, targeted again.
        await database_sync_to_async(table.choose_start)(table.players[2])
        frame = await socket.receive_json_from(timeout=TIMEOUT)
        assert frame["base"] == version + 1 and "parts" in frame
        await socket.disconnect()

    async_to_sync(scenario)()


def test_a_record_of_another_event_with_the_same_id_is_no_base() -> None:
    table = make_table(players=3, start=True)
    forget_what_was_sent(table.event.pk)
    table.choose_start(table.players[0])
    group = protocol.event_group(table.event.pk)
    cache.set(
        targeting._shown_key(group),
        {"event": f"{table.event.pk}:2001-01-01", "version": 1, "layout": "x", "keys": {}},
    )
    (board,) = [s for s in targeting.change_snapshots(table.event.pk, []) if s.stream == "board"]
    assert board.base is None and board.html is not None


def test_frames_on_one_socket_come_in_order_each_on_the_one_before() -> None:
    table = make_table(players=3, start=True)
    forget_what_was_sent(table.event.pk)
    first, second, third = table.players
    cookie = session_cookie(table.house)

    async def scenario() -> None:
        socket = await open_socket(house_path(table.event.pk), cookie=cookie)
        held = {s: f[0]["version"] for s, f in (await by_stream(socket, 2)).items()}
        steps = [
            lambda: table.choose_start(first),
            lambda: table.choose_start(second),
            lambda: table.choose_start(third),
            lambda: table.report(first, 1, "loss"),
            lambda: table.report(second, 1, "win"),
            lambda: table.choose_win(second),
        ]
        for step in steps:
            await database_sync_to_async(step)()
            for stream, frames in (await by_stream(socket, 2)).items():
                (frame,) = frames
                assert frame["version"] == held[stream] + 1
                if "base" in frame:
                    assert frame["base"] == held[stream]
                held[stream] = frame["version"]
        assert await socket.receive_nothing(timeout=0.2)
        await socket.disconnect()

    async_to_sync(scenario)()


def test_while_no_house_page_listens_house_is_not_even_read() -> None:
    table = make_table(players=2, start=True)
    forget_what_was_sent(table.event.pk)
    table.choose_start(table.players[0])
    houses = [s for s in targeting.change_snapshots(table.event.pk, []) if s.stream == "house"]
    # One per sight and language, none of them read.
    assert len(houses) == len(targeting.house_groups(table.event.pk)) == len(sights()) * 3
    for house in houses:
        assert (house.data, house.html, house.parts) == (None, None, None)
        assert house.frame() == {"type": "update", "stream": "house", "version": house.version}


def test_a_page_that_started_while_a_change_was_on_its_way_applies_the_next_update(
    settings: Any,
) -> None:
    table = make_table(players=4, start=True)
    forget_what_was_sent(table.event.pk)
    first, second, third, _ = table.players
    table.choose_start(first)
    sent = table.refresh().version  # what the pages were sent last

    async def scenario() -> None:
        earlier = await open_socket(board_path(table.event.pk))
        first = await earlier.receive_json_from(timeout=TIMEOUT)
        assert first["version"] == sent
        # A change whose update has not gone out yet when a second page opens.
        settings.LIVE_UPDATES = "off"
        await database_sync_to_async(table.choose_start)(second)
        later = await open_socket(board_path(table.event.pk))
        started = await later.receive_json_from(timeout=TIMEOUT)
        assert started["version"] == sent + 1
        settings.LIVE_UPDATES = "inline"
        await database_sync_to_async(table.choose_start)(third)
        fresh = await database_sync_to_async(lambda: fresh_page(table.refresh()))()
        # One update, for both: built on what was sent, and on what the second page started from.
        for socket, held in ((earlier, first), (later, started)):
            frame = await socket.receive_json_from(timeout=TIMEOUT)
            assert frame["version"] == sent + 2
            assert frame["base"] == sent and frame["bases"] == [sent, sent + 1]
            rids = await database_sync_to_async(lambda: [table.rid(second), table.rid(third)])()
            assert {f"board-row-{rid}" for rid in rids} <= set(frame["parts"])
            # Either page then shows what a page loaded now shows, places and all.
            page = BoardPage.of(held["html"], held["version"])
            page.take(frame)
            assert page.shown() == fresh.shown()
            await socket.disconnect()

    async_to_sync(scenario)()


def test_a_house_section_is_rendered_again_only_when_what_it_shows_changed() -> None:
    """A section's key is a digest of its data: through an event's life, whenever a section's
    HTML changes its key changes too, and each section is the one the page's first render shows."""
    table = make_table(players=3)
    blank = re.compile(r'(value|data-key)="[0-9a-f]{32}"')
    before: dict[str, tuple[str, str]] = {}
    rendered_again: set[str] = set()

    def look() -> dict[str, str]:
        event = table.refresh()
        page = house_page(event)
        cut = house_cut(page)
        whole = blank.sub("", compact(house_html(page)))
        ids = {id for id, _, _ in HOUSE_SECTIONS}
        for piece in cut.pieces:
            if piece.id not in ids:
                continue
            html = blank.sub("", piece.render())
            assert html in whole, piece.id
            if piece.id in before:
                key, shown = before[piece.id]
                if html != shown:
                    assert piece.key != key, f"{piece.id} changed under the same key"
                    rendered_again.add(piece.id)
            before[piece.id] = (piece.key, html)
        return {id: key for id, (key, _) in before.items()}

    look()
    waiting = make_user()
    table.register(waiting)
    look()
    table.check_in(waiting)
    look()
    services.self_check_in_switch(event_id=table.event.pk, by=table.house, enabled=True)
    look()
    services.announcement_send(event_id=table.event.pk, by=table.house, text="Boards 3 and 4")
    look()
    table.start()
    look()
    keys = look()
    for player in table.players:
        table.choose_start(player)
        # A starting choice moves the status header (its audit head) and the checklist, not the
        # pool, the stock, the tools nor the reviews: those are not even rendered.
        now = look()
        moved = {id for id in keys if now[id] != keys[id]}
        assert moved <= {"registration", "finalize-status", "finalize-form"}, moved
        keys = now
    services.registration_close(event_id=table.event.pk, by=table.house)
    look()
    services.pool_confirm(event_id=table.event.pk, by=table.house, adjustments=[(-5, "Refund")])
    look()
    services.participant_add(event_id=table.event.pk, by=table.house, player=make_user())
    look()
    for player in table.players:
        table.play_out(player)
        look()
    # The changes above moved the sections that show them.
    assert {"registration", "house-tools", "house-banner", "pool", "players-note"} <= rendered_again


def test_a_list_order_sent_as_moves_gives_the_new_order_from_the_base() -> None:
    rng = random.Random(2026)
    ids = [f"board-row-{n}" for n in range(40)]
    moves = 0
    for _ in range(500):
        was = rng.sample(ids, rng.randint(0, 30))
        now = list(was)
        for _ in range(rng.randint(1, 3)):  # a change moves a row or two, or brings one in
            if now and rng.random() < 0.7:
                now.insert(rng.randint(0, len(now) - 1), now.pop(rng.randrange(len(now))))
            else:
                now.insert(rng.randint(0, len(now)), rng.choice([i for i in ids if i not in now]))
        order = targeting.reordered(was, now)
        moves += isinstance(order, dict)
        assert reorder(was, json.loads(json.dumps(order))) == now
        assert len(json.dumps(order)) <= len(json.dumps(now))
    assert moves > 400  # a row or two moving is sent as moves
