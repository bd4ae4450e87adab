"""seasons.points: the rules' checks, one event's points, the season total and the table
(docs/rules.md section 14.3), exhaustively on small cases and with hypothesis."""

from __future__ import annotations

import itertools

import pytest
from hypothesis import given, settings
from hypothesis import strategies as st

from seasons.points import (
    Finish,
    Rules,
    RulesProblem,
    Scored,
    Total,
    event_points,
    one_event_short,
    season_total,
    table,
)

RULES = Rules(high_points=(10, 7, 5), low_points=(4, 2), attendance=1, best_of=None)


def test_the_defaults_are_the_documented_ones() -> None:
    assert Rules().as_dict() == {
        "high_points": [10, 7, 5, 3, 2, 1],
        "low_points": [5, 3, 1],
        "attendance": 1,
        "best_of": None,
        "min_events": 3,
        "qualifiers": 8,
    }
    assert Rules.from_dict({}) == Rules()


def test_the_worked_example_of_the_rules() -> None:
    """docs/rules.md section 14.3's example, number for number."""
    rules = Rules(best_of=2)
    ann = [
        Scored(1, event_points(rules, Finish(True, 1, 4)), True, True, "2026-09-03"),  # 1 + 10 + 0
        Scored(2, event_points(rules, Finish(True, 3, 1)), True, False, "2026-09-10"),  # 1 + 5 + 5
        Scored(3, event_points(rules, Finish(True, 7, 2)), True, False, "2026-09-17"),  # 1 + 0 + 3
    ]
    bob = [
        Scored(1, event_points(rules, Finish(True, 2, 1)), True, False, "2026-09-03"),  # 1 + 7 + 5
        Scored(2, event_points(rules, Finish(False)), False, False, "2026-09-10"),  # withdrew: 0
        Scored(3, event_points(rules, Finish(True, 1, 6)), True, True, "2026-09-17"),  # 1 + 10 + 0
    ]
    assert [s.points for s in ann] == [11, 11, 4]
    assert [s.points for s in bob] == [13, 0, 11]
    totals = {"ann": season_total(rules, ann), "bob": season_total(rules, bob)}
    assert totals["ann"] == Total(total=22, events=3, high_firsts=1, counted=(1, 2))
    assert totals["bob"] == Total(total=24, events=2, high_firsts=1, counted=(1, 3))
    ranked = table(rules, totals, {"ann": "Ann", "bob": "Bob"})
    assert [(s.player, s.rank, s.qualified) for s in ranked] == [
        ("bob", 1, False),  # two eligible finishes, three needed
        ("ann", 2, True),
    ]
    assert one_event_short(rules, totals["bob"].events)


@pytest.mark.parametrize(
    ("raw", "problem"),
    [
        ([], "not an object"),
        ({"high_points": "10,7"}, "must be a list"),
        ({"high_points": [10, -1]}, "place 2 is -1"),
        ({"low_points": [1.5]}, "place 1 is 1.5"),
        ({"low_points": [True]}, "place 1 is True"),
        ({"high_points": [1] * 101}, "at most 100"),
        ({"attendance": -1}, "attendance"),
        ({"best_of": -2}, "best_of"),
        ({"best_of": 0}, "best_of"),
        ({"min_events": "3"}, "min_events"),
        ({"qualifiers": 2.0}, "qualifiers"),
        ({"bonus": 3}, "Unknown rules: bonus"),
    ],
)
def test_rules_that_cannot_be_played_are_refused(raw: object, problem: str) -> None:
    with pytest.raises(RulesProblem, match=problem):
        Rules.from_dict(raw)


def test_a_withdrawn_player_gets_nothing_not_even_attendance() -> None:
    assert event_points(RULES, Finish(False, None, None)) == 0
    assert event_points(RULES, Finish(False, 1, 1)) == 0


def test_every_pair_of_places_scores_by_the_formula() -> None:
    """Places 1 to 6 (past the lists' ends: 0), every pair."""
    for high, low in itertools.product(range(1, 7), repeat=2):
        expected = 1 + [10, 7, 5, 0, 0, 0][high - 1] + [4, 2, 0, 0, 0, 0][low - 1]
        assert event_points(RULES, Finish(True, high, low)) == expected


def test_tied_places_get_the_same_points() -> None:
    # Competition ranking 1, 1, 3: both firsts get first's points, the next gets third's.
    assert event_points(RULES, Finish(True, 1, 3)) == event_points(RULES, Finish(True, 1, 3)) == 11
    assert event_points(RULES, Finish(True, 3, 3)) == 6


def test_best_of_counts_the_highest_event_totals_the_earlier_one_on_a_tie() -> None:
    scores = [
        Scored(e, p, True, False, f"2026-09-0{e}") for e, p in [(1, 5), (2, 9), (3, 5), (4, 1)]
    ]
    assert season_total(Rules(best_of=2), scores).counted == (1, 2)
    assert season_total(Rules(best_of=2), scores).total == 14
    assert season_total(Rules(best_of=10), scores).total == 20
    assert season_total(Rules(best_of=None), scores).counted == (1, 2, 3, 4)


def test_best_of_counts_the_earlier_event_by_date_not_the_lower_event_id() -> None:
    """docs/rules.md section 14.3: equal event totals, the earlier event counts. Event 7 was
    created after event 3 but played a week before it."""
    scores = [
        Scored(3, 6, True, False, "2026-09-10"),
        Scored(7, 6, True, False, "2026-09-03"),
        Scored(9, 9, True, False, "2026-09-17"),
    ]
    assert season_total(Rules(best_of=2), scores).counted == (7, 9)
    assert season_total(Rules(best_of=1), scores).counted == (9,)
    # Two events on one day: the one created first counts.
    same_day = [Scored(8, 6, True, False, "2026-09-03"), Scored(5, 6, True, False, "2026-09-03")]
    assert season_total(Rules(best_of=1), same_day).counted == (5,)


def test_the_table_breaks_ties_by_high_wins_then_finishes_then_shares_the_rank() -> None:
    totals = {
        "a": Total(20, 3, 0, ()),
        "b": Total(20, 3, 1, ()),
        "c": Total(20, 4, 0, ()),
        "d": Total(20, 4, 0, ()),
        "e": Total(25, 1, 0, ()),
    }
    ranked = table(Rules(min_events=0, qualifiers=10), totals, {p: p for p in totals})
    assert [(s.player, s.rank) for s in ranked] == [
        ("e", 1),
        ("b", 2),
        ("c", 3),
        ("d", 3),
        ("a", 5),
    ]


def test_players_tied_at_the_cut_all_qualify_and_short_players_never_do() -> None:
    totals = {
        "a": Total(30, 1, 0, ()),  # one finish: too few
        "b": Total(20, 2, 0, ()),
        "c": Total(10, 2, 0, ()),
        "d": Total(10, 2, 0, ()),
        "e": Total(5, 2, 0, ()),
    }
    ranked = table(Rules(min_events=2, qualifiers=2), totals, {p: p for p in totals})
    assert {s.player for s in ranked if s.qualified} == {"b", "c", "d"}
    assert [s.rank for s in ranked] == [1, 2, 3, 3, 5]
    assert table(Rules(min_events=2, qualifiers=0), totals, {}) and not any(
        s.qualified for s in table(Rules(min_events=2, qualifiers=0), totals, {})
    )


finishes = st.one_of(
    st.just(Finish(False)),
    st.builds(lambda h, lo: Finish(True, h, lo), st.integers(1, 12), st.integers(1, 12)),
)
points_lists = st.lists(st.integers(0, 50), max_size=8)
rules = st.builds(
    Rules,
    high_points=points_lists.map(tuple),
    low_points=points_lists.map(tuple),
    attendance=st.integers(0, 5),
    best_of=st.one_of(st.none(), st.integers(1, 6)),
    min_events=st.integers(0, 4),
    qualifiers=st.integers(0, 6),
)


@settings(max_examples=300, deadline=None)
@given(rules=rules, nights=st.lists(finishes, max_size=10))
def test_a_season_total_is_the_best_of_its_event_points(rules: Rules, nights: list[Finish]) -> None:
    scores = [
        Scored(
            n,
            event_points(rules, f),
            f.eligible,
            f.eligible and f.high_place == 1,
            f"2026-{n:02d}-01",
        )
        for n, f in enumerate(nights, start=1)
    ]
    total = season_total(rules, scores)
    points = sorted((s.points for s in scores), reverse=True)
    kept = points if rules.best_of is None else points[: rules.best_of]
    assert total.total == sum(kept)
    assert len(total.counted) == len(kept)
    assert total.events == sum(f.eligible for f in nights)
    assert Rules.from_dict(rules.as_dict()) == rules


@settings(max_examples=300, deadline=None)
@given(
    rules=rules,
    totals=st.dictionaries(
        st.text("abcdefgh", min_size=1, max_size=3),
        st.builds(
            lambda t, e, h: Total(t, e, min(h, e), ()),
            st.integers(0, 40),
            st.integers(0, 6),
            st.integers(0, 3),
        ),
        max_size=12,
    ),
)
def test_the_table_ranks_by_its_three_keys_and_qualifies_by_the_line(
    rules: Rules, totals: dict[str, Total]
) -> None:
    ranked = table(rules, totals, {p: p for p in totals})
    assert sorted(s.player for s in ranked) == sorted(totals)

    def key(p: str) -> tuple[int, int, int]:
        return (totals[p].total, totals[p].high_firsts, totals[p].events)

    for s in ranked:
        assert s.rank == 1 + sum(key(o) > key(s.player) for o in totals)
        contenders = [o for o in totals if totals[o].events >= rules.min_events]
        ahead = sum(key(o) > key(s.player) for o in contenders)
        assert s.qualified == (
            totals[s.player].events >= rules.min_events and ahead < rules.qualifiers
        )
    assert [s.rank for s in ranked] == sorted(s.rank for s in ranked)


def test_the_points_module_needs_no_django() -> None:
    """Anyone holding the exports recomputes a season with it (docs/rules.md section 14.7)."""
    import ast
    from pathlib import Path

    source = Path(__file__).resolve().parents[2] / "seasons" / "points.py"
    imported = {
        node.module if isinstance(node, ast.ImportFrom) else alias.name
        for node in ast.walk(ast.parse(source.read_text()))
        if isinstance(node, ast.Import | ast.ImportFrom)
        for alias in node.names
    }
    assert imported <= {"__future__", "collections.abc", "dataclasses"}, imported
