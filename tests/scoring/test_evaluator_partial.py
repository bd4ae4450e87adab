"""Hands of 1-4 cards (provisional standings): rank groups only, ordered like tuples."""

import random
from itertools import combinations_with_replacement
from typing import Any

import pytest
from hypothesis import given, settings
from hypothesis import strategies as st

from scoring.evaluator import evaluate_high, evaluate_low
from tests.scoring.ordering import assert_chain_ordered, assert_pairs_ordered
from tests.scoring.reference import (
    ALL_CARDS,
    PARTIAL_CATEGORIES,
    RANKS,
    SUITS,
    category_name,
    reference_high,
    reference_low,
)


def high(hand: str, wild_rank: str | None = None) -> Any:
    return evaluate_high(hand.split(), wild_rank)


def low(hand: str) -> Any:
    return evaluate_low(hand.split())


@st.composite
def hands(draw: st.DrawFn, min_size: int = 1, max_size: int = 7) -> list[str]:
    """Cards drawn with replacement from a small pool, so that rank groups are common."""
    pool = draw(st.lists(st.sampled_from(ALL_CARDS), min_size=1, max_size=8, unique=True))
    return draw(st.lists(st.sampled_from(pool), min_size=min_size, max_size=max_size))


@pytest.mark.parametrize(
    ("hand", "category"),
    [
        ("As", "High Card"),
        ("2c", "High Card"),
        ("As Kd", "High Card"),
        ("9h Th Jh Qh", "High Card"),
        ("Ah Kh Qh Jh", "High Card"),
        ("2c 3c 4c 5c", "High Card"),
        ("As Ad", "Pair"),
        ("As As", "Pair"),
        ("7c 7d 2h", "Pair"),
        ("7c 7d 2h 3s", "Pair"),
        ("As Ad Kc Kd", "Two Pair"),
        ("As As Ks Ks", "Two Pair"),
        ("7c 7d 7h", "Three of a Kind"),
        ("7c 7c 7c 2d", "Three of a Kind"),
        ("7c 7d 7h 7s", "Four of a Kind"),
        ("7c 7c 7c 7c", "Four of a Kind"),
    ],
)
def test_it_classifies_partial_hands_by_rank_groups_only(hand: str, category: str) -> None:
    assert category_name(reference_high(hand.split())[0]) == category

    assert high(hand).category == category
    assert high(hand).substitutions == 0
    assert low(hand).category == category


def test_it_orders_the_spec_examples() -> None:
    # A 3-card 7-5-2 is below a complete 7-5-4-3-2, which is below any pair.
    assert high("7c 5d 2h") < high("7c 5d 4h 3s 2c") < high("2c 2d")
    assert low("7c 5d 2h") < low("7c 5d 4h 3s 2c") < low("2c 2d")
    # A 2-card A-A is below A-A-K-Q-J.
    assert high("As Ad") < high("As Ad Kc Qd Jh")
    assert low("As Ad") < low("As Ad Kc Qd Jh")


def test_it_ranks_a_hand_that_runs_out_of_cards_first_lower() -> None:
    assert high("As") < high("As Kd")
    assert high("As Ad") < high("As Ad 2c")
    assert high("As Ad Kc Kd") < high("As Ad Kc Kd 2h")
    assert high("7c 7d 7h 7s") < high("7c 7d 7h 7s 2d")
    assert high("7c 7d 7h") < high("7c 7d 7h 3s")
    assert low("As") < low("As Kd") < low("As Kd Qh") < low("As Kd Qh Js") < low("As Kd Qh Js 9c")


def test_it_compares_partial_hands_group_ranks_then_kickers() -> None:
    assert high("As") > high("Kc Qd Jh 9s")
    assert high("As Ad") > high("Kc Kd Qh Js")
    assert high("3c 3d 2h 2s") > high("As Ad Kh")
    assert high("3c 3d 3h") > high("As Ad Kh Ks")
    assert high("2c 2d 2h 2s") > high("As Ad Ah Ks")
    assert high("9c 9d 4h") > high("9c 9d 3h 2s")
    assert high("Ks Kd Qh Qc") == high("Kh Kc Qs Qd")
    assert high("7c 7d 7h 7s") > high("As Ad Ah Kc Kd")  # four of a kind over a full house
    assert high("7c 7d 7h 7s") < high("9s Ts Js Qs Ks")
    assert high("Ac Ad Ah") < high("2c 3d 4h 5s 6c")  # three of a kind under any straight
    assert low("Ac Ad Ah") < low("2c 3d 4h 5s 6c")  # and so it wins Low


def test_it_ignores_the_wild_rank_and_counts_no_substitutions_for_partial_hands() -> None:
    assert high("2c 2d As", "2") == high("2c 2d As")
    assert high("2c 2d As", "2").category == "Pair"
    assert high("2c 2d 2h 2s", "2").substitutions == 0


@settings(max_examples=300, deadline=None, derandomize=True, database=None)
@given(
    partial=st.lists(hands(max_size=4), min_size=1, max_size=3),
    complete=st.lists(hands(min_size=5), max_size=2),
)
def test_it_orders_partial_and_complete_hands_like_the_reference(
    partial: list[list[str]], complete: list[list[str]]
) -> None:
    all_hands = partial + complete
    highs = [evaluate_high(hand) for hand in all_hands]
    lows = [evaluate_low(hand) for hand in all_hands]
    high_keys = [reference_high(hand) for hand in all_hands]
    low_keys = [reference_low(hand) for hand in all_hands]

    for hand, value, low_value in zip(partial, highs, lows, strict=False):
        assert value.category in PARTIAL_CATEGORIES, hand
        assert value.category == category_name(reference_high(hand)[0]), hand
        assert low_value.category == category_name(reference_low(hand)), hand
        assert value.substitutions == 0, hand
    assert_pairs_ordered(highs, high_keys, all_hands)
    assert_pairs_ordered(lows, low_keys, all_hands)


def test_it_orders_every_partial_rank_pattern_among_complete_hands() -> None:
    rng = random.Random(5)
    partial = [
        [rank + rng.choice(SUITS) for rank in ranks]
        for size in range(1, 5)
        for ranks in combinations_with_replacement(RANKS, size)
    ]
    complete = [[rng.choice(ALL_CARDS) for _ in range(rng.randint(5, 7))] for _ in range(1500)] + [
        [rank + rng.choice(SUITS) for rank in rng.choices(RANKS, k=5)] for _ in range(500)
    ]
    all_hands = partial + complete

    assert_chain_ordered(
        [evaluate_high(hand) for hand in all_hands],
        [reference_high(hand) for hand in all_hands],
        all_hands,
    )
    assert_chain_ordered(
        [evaluate_low(hand) for hand in all_hands],
        [reference_low(hand) for hand in all_hands],
        all_hands,
    )


def test_it_orders_partial_hands_against_complete_wild_hands() -> None:
    wild_hands = [
        ("7h 8h 9h Th Jh", "7"),
        ("As Ad 2c 3h 9s", "2"),
        ("2c 2d 2h 2s 2c", "2"),
        ("3c 4d 8h 9s Kc", "2"),
        ("Ac Ad Ah Ks 5c", "5"),
    ]
    hands_and_wilds: list[tuple[list[str], str | None]] = [
        (hand.split(), wild_rank) for hand, wild_rank in wild_hands
    ]
    hands_and_wilds += [
        (hand.split(), None)
        for hand in ["As", "Kc Kd", "As Ad Ac As", "Kc Kd Ks", "3c 3d 2h 2s", "Ac Kd Qh Jc"]
    ]

    assert_pairs_ordered(
        [evaluate_high(hand, wild_rank) for hand, wild_rank in hands_and_wilds],
        [reference_high(hand, wild_rank) for hand, wild_rank in hands_and_wilds],
        hands_and_wilds,
    )
