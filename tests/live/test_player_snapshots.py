"""Player snapshots computed together, as each change's live update does, and one by one."""

from __future__ import annotations

import pytest
from django.db import connection
from django.test.utils import CaptureQueriesContext

from events.reads.board import forget_kept_boards
from events.reads.player import player_state, player_states
from house.read_model import sight, sights
from live import protocol, targeting
from tests.factories import Table, make_table

pytestmark = pytest.mark.django_db


def varied() -> Table:
    """Four players: a pending win choice, a plain hand, a revealed wild, a pending start."""
    table = make_table("league", players=4, start=True)
    pending_win, plain, done, _ = table.players
    table.choose_start(pending_win)
    table.report(pending_win, 1, "win")
    table.choose_start(plain)
    table.report(plain, 1, "loss")
    table.play_out(done, "lwlwlw")
    assert table.registration(done).wild_rank
    return table


def test_snapshots_taken_together_equal_those_taken_one_by_one() -> None:
    table = varied()
    registrations = [table.registration(player) for player in table.players]

    together = player_states(registrations)

    assert together == {r.pk: player_state(r) for r in registrations}
    pending_win, plain, done, waiting = (together[r.pk] for r in registrations)
    assert pending_win.pending is not None and waiting.pending is not None
    assert pending_win.pending.kind == "win" and pending_win.reveal is not None
    assert plain.pending is None
    assert [card.code for card in plain.hand] == table.kept(table.players[1])
    assert done.wild_indicator is not None and len(done.hand) == table.event.rules.kept
    assert waiting.pending.kind == "starting"
    assert all(card.face_down for card in waiting.pending.cards)


def pages_open(event_id: int, ids: list[int]) -> None:
    """The board and each player's phone are open (in English): their frames are rendered."""
    targeting.listening(
        targeting.board_audience(event_id), *(targeting.player_audience(pk, "en") for pk in ids)
    )


def test_a_change_touching_more_players_costs_no_more_queries() -> None:
    table = varied()
    ids = [table.rid(player) for player in table.players]
    pages_open(table.event.pk, ids)

    # Each from a publisher that kept no board (`kept_board_view`), which reads every player.
    forget_kept_boards()
    with CaptureQueriesContext(connection) as one:
        targeting.change_snapshots(table.event.pk, ids[:1])
    forget_kept_boards()
    with CaptureQueriesContext(connection) as four:
        snapshots = targeting.change_snapshots(table.event.pk, ids)

    assert len(four) == len(one)
    streams = [s.stream for s in snapshots]
    houses = len(targeting.house_groups(table.event.pk))  # one per sight and language
    assert streams == ["board", "venue", "places"] + ["player"] * 4 + ["house"] * houses


@pytest.mark.parametrize("listening", [True, False])
def test_what_phones_and_boards_follow_is_handed_over_before_house_is_read(
    listening: bool,
) -> None:
    table = varied()
    ids = [table.rid(player) for player in table.players]
    pages_open(table.event.pk, ids)
    owner = sight(["owner"])
    for each in sights():
        targeting.cache.delete(targeting._house_mark(table.event.pk, each.name))
    if listening:
        targeting.house_listening(table.event.pk, owner.name)
    handed: list[tuple[list[str], int]] = []

    with CaptureQueriesContext(connection) as queries:
        rest = targeting.change_snapshots(
            table.event.pk,
            ids,
            first=lambda snapshots: handed.append(
                ([s.stream for s in snapshots], len(queries.captured_queries))
            ),
        )

    ((streams, read_before),) = handed
    assert streams == ["board", "venue", "places"] + ["player"] * 4
    # One House frame per sight and language; only the sight and language a page listens for
    # carries its fragment.
    listened = protocol.house_group(table.event.pk, owner.name, "en")
    assert [s.stream for s in rest] == ["house"] * len(targeting.house_groups(table.event.pk))
    assert [s.fragment for s in rest if s.group == listened] == [listening]
    assert not any(s.fragment for s in rest if s.group != listened)
    # House's table is read after the hand-over, and only while a House page listens.
    read_after = len(queries.captured_queries) - read_before
    assert read_after > 0 if listening else read_after == 0
