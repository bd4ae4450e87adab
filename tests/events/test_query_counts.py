"""Query counts on the hot paths: what every player does six or seven times an event.

The bounds are the counts measured when these tests were written (PostgreSQL, inside the test
transaction, so each service's `atomic` block adds a SAVEPOINT/RELEASE pair). A per-card
or per-player query in a loop pushes a path over its bound; the same bound holds with 3 players and
with 20, and the exact counts do not change with the number of players.
"""

from __future__ import annotations

from collections.abc import Callable, Iterator
from contextlib import AbstractContextManager
from typing import Any

import pytest
from django.db import connection
from django.test.utils import CaptureQueriesContext

from events import services
from events.models import IdempotencyRecord
from tests.factories import Table, make_table

pytestmark = pytest.mark.django_db

# Measured: confirming the starting selection 9; a game-1 loss 8 (it also checks whether
# registration should close); a later loss 7; a win 7; keeping a win card 9; the loss that
# completes the hand and reveals the wild 8. Each count includes the test's own lookup of the
# registration and the SAVEPOINT/RELEASE pair of the test transaction.
BOUNDS = {
    "starting_selection": 9,
    "loss_game_1": 8,
    "loss": 7,
    "win": 7,
    "win_choice": 9,
    "loss_with_reveal": 8,
}

type Measure = Callable[[str], AbstractContextManager[CaptureQueriesContext]]


def started(players: int) -> Table:
    """A started League event; the other players have made some progress (rows to scan)."""
    table = make_table("league", players=players, start=True)
    for index, player in enumerate(table.players[1:]):
        if index % 2:
            table.choose_start(player)
            table.report(player, 1, "win")
    return table


def hot_paths(table: Table, measure: Measure) -> Iterator[str]:
    """Play the first player's whole hand, measuring each hot path once; yields each path."""
    ann = table.players[0]
    with measure("starting_selection"):
        table.choose_start(ann, [2])
    yield "starting_selection"
    with measure("loss_game_1"):
        table.report(ann, 1, "loss")
    yield "loss_game_1"
    with measure("loss"):
        table.report(ann, 2, "loss")
    yield "loss"
    with measure("win"):
        table.report(ann, 3, "win")
    yield "win"
    with measure("win_choice"):
        table.choose_win(ann, 1)
    yield "win_choice"
    table.report(ann, 4, "loss")
    table.report(ann, 5, "loss")
    with measure("loss_with_reveal"):
        table.report(ann, 6, "loss")
    assert table.registration(ann).wild_rank
    yield "loss_with_reveal"


@pytest.mark.parametrize("players", [3, 20])
def test_each_hot_path_stays_within_its_query_bound(
    django_assert_max_num_queries: Any, players: int
) -> None:
    table = started(players)

    done = list(hot_paths(table, lambda path: django_assert_max_num_queries(BOUNDS[path])))

    assert done == list(BOUNDS)
    assert len(table.kept(table.players[0])) == 7


def test_no_hot_path_grows_with_the_number_of_players() -> None:
    counts: dict[int, dict[str, int]] = {}
    for players in (2, 12):
        contexts = {path: CaptureQueriesContext(connection) for path in BOUNDS}
        list(hot_paths(started(players), contexts.__getitem__))
        counts[players] = {path: len(context) for path, context in contexts.items()}

    assert counts[2] == counts[12]
    assert set(counts[2]) == set(BOUNDS)


def test_a_retry_key_costs_one_lookup_and_nothing_while_writing() -> None:
    """The answer is stored in the statement that writes the audit entries: a keyed submit sends
    the plain one's statements plus the lookup of the key, and no savepoint."""
    table = started(5)  # the fourth player has no result yet: registration stays open
    ann, bob = table.players[:2]
    table.choose_start(ann)
    table.choose_start(bob)
    rid = table.rid(ann)
    with CaptureQueriesContext(connection) as plain:
        services.result_submit(registration_id=rid, by=ann, game=1, outcome="win")
    rid = table.rid(bob)
    with CaptureQueriesContext(connection) as keyed:
        services.result_submit(
            registration_id=rid, by=bob, game=1, outcome="win", idempotency_key="bob-game-1"
        )

    assert len(keyed) == len(plain) + 1
    statements = [q["sql"] for q in keyed.captured_queries]
    lookups = [sql for sql in statements if "idempotencyrecord" in sql]
    assert len(lookups) == 2  # the lookup, and the statement that writes the audit entries
    assert lookups[0].startswith("SELECT") and lookups[1].startswith("WITH entries AS")
    stored = IdempotencyRecord.objects.get(user=bob, key="bob-game-1").answer
    assert stored is not None and stored["game"] == 1
