"""The prize split contract (docs/rules.md section 7.4)."""

from __future__ import annotations

from decimal import Decimal

import pytest
from hypothesis import given, settings
from hypothesis import strategies as st

from payouts.allocation import allocate


def test_it_splits_80_20_between_single_winners() -> None:
    result = allocate(100, ["ann"], ["bob"])
    assert result.awards == {"ann": 80, "bob": 20}
    assert result.unallocated == 0


def test_it_rounds_the_low_share_down_to_a_fifth() -> None:
    # 99 // 5 = 19 for Low; High gets the other 80.
    result = allocate(99, ["ann"], ["bob"])
    assert result.awards == {"ann": 80, "bob": 19}
    assert result.unallocated == 0


def test_it_sums_the_awards_of_one_player_who_wins_both() -> None:
    result = allocate(100, ["ann"], ["ann"])
    assert result.awards == {"ann": 100}
    assert result.unallocated == 0


def test_it_moves_low_dollars_left_over_by_a_tie_to_high() -> None:
    # Low 20 among 3 -> 6 each, 2 move to High: 82 to one High winner.
    result = allocate(100, ["ann"], ["bob", "cy", "dee"])
    assert result.awards == {"ann": 82, "bob": 6, "cy": 6, "dee": 6}
    assert result.unallocated == 0


def test_it_leaves_the_indivisible_high_remainder_unallocated() -> None:
    # High 80 among 3 -> 26 each, 2 unallocated.
    result = allocate(100, ["ann", "bob", "cy"], ["dee"])
    assert result.awards == {"ann": 26, "bob": 26, "cy": 26, "dee": 20}
    assert result.unallocated == 2


def test_it_splits_high_including_moved_low_dollars_among_tied_high_winners() -> None:
    # Pool 101: Low 20 among 3 -> 6 each, 2 move; High 81 + 2 = 83 among 2 -> 41 each, 1 left.
    result = allocate(101, ["ann", "bob"], ["cy", "dee", "eve"])
    assert result.awards == {"ann": 41, "bob": 41, "cy": 6, "dee": 6, "eve": 6}
    assert result.unallocated == 1


def test_it_gives_the_low_share_to_high_when_nobody_is_eligible_for_low() -> None:
    result = allocate(100, ["ann", "bob"], [])
    assert result.awards == {"ann": 50, "bob": 50}
    assert result.unallocated == 0


def test_it_leaves_the_high_share_unallocated_when_nobody_is_eligible_for_high() -> None:
    result = allocate(100, [], ["bob"])
    assert result.awards == {"bob": 20}
    assert result.unallocated == 80


def test_it_leaves_the_whole_pool_unallocated_when_nobody_is_eligible() -> None:
    nobody: list[str] = []
    result = allocate(137, nobody, nobody)
    assert result.awards == {}
    assert result.unallocated == 137


def test_it_lists_every_winner_of_a_free_event_with_zero_dollars() -> None:
    result = allocate(0, ["ann", "bob"], ["cy"])
    assert result.awards == {"ann": 0, "bob": 0, "cy": 0}
    assert result.unallocated == 0


def test_it_gives_a_low_winner_nothing_when_the_low_share_is_smaller_than_the_tie() -> None:
    # Pool 9: Low 1 among 2 -> 0 each, 1 moves to High (8 + 1 = 9).
    result = allocate(9, ["ann"], ["bob", "cy"])
    assert result.awards == {"ann": 9, "bob": 0, "cy": 0}
    assert result.unallocated == 0


def test_it_combines_a_tied_winner_of_both() -> None:
    # Low 20 between ann and bob -> 10 each; High 80 between ann and cy -> 40 each.
    result = allocate(100, ["ann", "cy"], ["ann", "bob"])
    assert result.awards == {"ann": 50, "bob": 10, "cy": 40}
    assert result.unallocated == 0


@pytest.mark.parametrize(
    "pool",
    [-1, True, False, 100.0, 1.5, Decimal(100), "100", None],
    ids=["negative", "true", "false", "float", "fraction", "decimal", "string", "none"],
)
def test_it_refuses_a_pool_that_is_not_a_non_negative_int(pool: object) -> None:
    with pytest.raises(ValueError, match="pool"):
        allocate(pool, ["ann"], ["bob"])  # type: ignore[arg-type]


def test_it_refuses_a_high_winner_listed_twice() -> None:
    with pytest.raises(ValueError, match=r"high_winners.*'ann'"):
        allocate(100, ["ann", "ann"], ["bob"])


def test_it_refuses_a_low_winner_listed_twice() -> None:
    with pytest.raises(ValueError, match=r"low_winners.*'bob'"):
        allocate(100, ["ann"], ["bob", "bob"])


def test_it_accepts_any_hashable_winner_keys() -> None:
    result = allocate(50, [7], [(1, "x")])
    assert result.awards == {7: 40, (1, "x"): 10}


players = st.lists(st.integers(min_value=0, max_value=30), max_size=8, unique=True)


@settings(max_examples=400, derandomize=True)
@given(pool=st.integers(min_value=0, max_value=1_000_000), high=players, low=players)
def test_it_accounts_for_every_dollar(pool: int, high: list[int], low: list[int]) -> None:
    result = allocate(pool, high, low)
    assert sum(result.awards.values()) + result.unallocated == pool
    assert set(result.awards) == set(high) | set(low)
    assert all(isinstance(v, int) and v >= 0 for v in result.awards.values())
    assert isinstance(result.unallocated, int) and result.unallocated >= 0
    # Low never takes more than a fifth of the pool.
    assert result.low_each * len(low) <= pool // 5 <= pool * 0.2
    # Tied winners of one prize get the same amount.
    if high:
        assert len({result.awards[p] - (result.low_each if p in low else 0) for p in high}) == 1
    if low:
        assert len({result.awards[p] - (result.high_each if p in high else 0) for p in low}) == 1
    # Only an indivisible High remainder (or a High share with no winner) stays unallocated.
    if high:
        assert result.unallocated < len(high)
