"""The board kept between changes (`events.reads.board.kept_board_view`) equals a fresh read.

The publisher keeps each player's hand and its values between changes, by registration version,
and re-reads only the players whose version moved. After every kind of change that moves a hand,
a pause or a place, its board, and what a page that applies its frames shows, must equal what a
page loaded now reads and shows; also after changes this process did not deliver (another
publisher process did).
"""

from __future__ import annotations

import json
from collections.abc import Callable
from functools import partial
from typing import Any

import pytest

from events import services, store
from events.models import Registration
from events.reads import board as board_reads
from events.reads.board import BoardView, board_view, kept_board_view
from events.reads.common import to_json
from live import protocol, targeting
from live.fragments import board_html
from tests.factories import Table, make_table
from tests.live.board_page import BoardPage

pytestmark = pytest.mark.django_db

REASON = "Board 3 says otherwise"


def assert_same_board(kept: BoardView, fresh: BoardView) -> None:
    assert kept.data == fresh.data
    assert kept.high == fresh.high
    assert kept.low == fresh.low
    assert kept.standings == fresh.standings


@pytest.fixture
def read(monkeypatch: pytest.MonkeyPatch) -> list[set[int]]:
    """The players each kept read asked for."""
    asked: list[set[int]] = []
    reading = board_reads._read_players

    def recording(event: Any, ids: list[int]) -> Any:
        asked.append(set(ids))
        return reading(event, ids)

    monkeypatch.setattr(board_reads, "_read_players", recording)
    board_reads.forget_kept_boards()
    return asked


def test_the_kept_board_equals_a_fresh_read_after_every_kind_of_change(
    settings: Any, read: list[set[int]]
) -> None:
    settings.LIVE_UPDATES = "off"  # each change is delivered here, by hand
    table: Table = make_table("standard-v1", players=5, start=True)
    ann, bob, cy, dee, eve = table.players
    event = table.refresh()
    targeting.listening(targeting.board_audience(event.pk))  # a board page is open
    with store.consistent_read():
        opened = targeting.board(table.refresh())
    page = BoardPage.of(opened.html or "", opened.version, json.loads(json.dumps(opened.data)))

    def versions() -> dict[int, int]:
        return dict(Registration.objects.filter(event=event).values_list("pk", "version"))

    def deliver(touched: set[int]) -> None:
        """The change's snapshots, as the publisher makes them; the page applies the board's."""
        read.clear()
        snapshots = targeting.change_snapshots(event.pk, touched)
        (frame,) = [s.frame() for s in snapshots if s.group == protocol.event_group(event.pk)]
        page.take(frame)
        now = table.refresh()
        fresh = board_view(now)
        assert_same_board(kept_board_view(now), fresh)
        fresh_page = BoardPage.of(board_html(now, fresh), now.version)
        assert page.version == fresh_page.version
        assert page.shown() == fresh_page.shown()
        # The board's data, patched update after update, is the fresh read's.
        assert page.data == json.loads(json.dumps(to_json(fresh.data)))

    def step(change: Callable[[], object], *, delivered: bool = True) -> set[int]:
        """Make the change, and deliver it here (or not: another process did); the players it
        touched (`Committed.registration_ids`: their versions moved)."""
        before = versions()
        change()
        touched = {pk for pk, version in versions().items() if before[pk] != version}
        if delivered:
            deliver(touched)
            # Only players the change touched were read again.
            assert all(ids <= touched for ids in read)
        return touched

    def rid(player: Any) -> int:
        return table.rid(player)

    def on_board(player: Any) -> bool:
        return rid(player) in {e.registration_id for e in kept_board_view(table.refresh()).high}

    table.report(ann, 1, "win")
    deliver({rid(ann)})  # the first kept read reads every player
    assert read[0] == {rid(p) for p in table.players}
    step(lambda: table.choose_win(ann))
    step(lambda: table.report(bob, 1, "win"))
    step(lambda: table.choose_win(bob, 1))
    step(lambda: table.report(cy, 1, "loss"))
    step(lambda: table.report(dee, 1, "loss"))
    # A correction (Win -> Loss) pauses the player for review: they leave the standings, and
    # come back when it is resolved. So does a review House opens.
    reviews: list[int] = []
    step(
        lambda: reviews.append(
            services.result_correct(
                registration_id=rid(ann), by=table.house, game=1, outcome="loss", reason=REASON
            ).review_id
        )
    )
    step(
        lambda: reviews.append(
            services.review_open(registration_id=rid(bob), by=table.house, reason=REASON).review_id
        )
    )
    assert not on_board(ann) and not on_board(bob)
    for review in reviews:
        step(partial(services.review_resolve, review_id=review, by=table.house, reason=REASON))
    assert on_board(ann) and on_board(bob)
    step(lambda: services.player_withdraw(registration_id=rid(eve), by=table.house, reason=REASON))
    assert not on_board(eve)
    # Changes this process did not deliver (another publisher process did): the hands that moved
    # meanwhile are read again, never shown as they were.
    missed: set[int] = set()
    for player in (ann, bob, cy, dee):
        missed |= step(partial(table.play_out, player), delivered=False)
    for player in (ann, bob, cy, dee):
        reveal = partial(services.wild_reveal, registration_id=rid(player), by=table.house)
        missed |= step(reveal, delivered=False)
    deliver({rid(ann)})
    assert read[0] == missed
    step(lambda: services.pool_confirm(event_id=event.pk, by=table.house))
    step(lambda: services.event_finalize(event_id=event.pk, by=table.house))
    assert kept_board_view(table.refresh()).data.final
