"""Multi-deck hands (duplicate printed cards) against the plain reference, for High and Low."""

import random
from itertools import combinations
from typing import Any

import pytest
from hypothesis import given, settings
from hypothesis import strategies as st
from phevaluator import evaluate_cards

from scoring.evaluator import evaluate_high, evaluate_low
from tests.scoring.ordering import assert_chain_ordered, assert_pairs_ordered
from tests.scoring.reference import (
    ALL_CARDS,
    SUITS,
    category_name,
    reference_high,
    reference_low,
)

type Hand = list[str]


@st.composite
def multideck_hands(draw: st.DrawFn, min_size: int = 5, max_size: int = 7) -> Hand:
    """Cards drawn with replacement from a small pool, so duplicates and shared suits are common."""
    pool = draw(st.lists(st.sampled_from(ALL_CARDS), min_size=1, max_size=9, unique=True))
    suit = draw(st.none() | st.sampled_from(SUITS))
    if suit is not None:  # one suit, to make flushes and straight flushes likely
        pool = [card[0] + suit for card in pool]
    return draw(st.lists(st.sampled_from(pool), min_size=min_size, max_size=max_size))


def random_multideck_hand(rng: random.Random) -> Hand:
    pool = rng.sample(ALL_CARDS, rng.randint(1, 9))
    if rng.random() < 0.3:  # one suit, to make flushes and straight flushes likely
        suit = rng.choice(SUITS)
        pool = [card[0] + suit for card in pool]
    return [rng.choice(pool) for _ in range(rng.randint(5, 7))]


@settings(max_examples=300, deadline=None, derandomize=True, database=None)
@given(hands=st.lists(multideck_hands(), min_size=2, max_size=4))
def test_it_evaluates_multideck_hands_like_the_reference(hands: list[Hand]) -> None:
    highs = [evaluate_high(hand) for hand in hands]
    lows = [evaluate_low(hand) for hand in hands]
    high_keys = [reference_high(hand) for hand in hands]
    low_keys = [reference_low(hand) for hand in hands]

    for hand, high, high_key, low, low_key in zip(
        hands, highs, high_keys, lows, low_keys, strict=True
    ):
        assert high.category == category_name(high_key[0]), hand
        assert high.substitutions == 0, hand
        assert low.category == category_name(low_key), hand
    assert_pairs_ordered(highs, high_keys, hands)
    assert_pairs_ordered(lows, low_keys, hands)


def test_it_orders_a_large_batch_of_multideck_hands_like_the_reference() -> None:
    rng = random.Random(20240607)
    hands = [random_multideck_hand(rng) for _ in range(3000)]

    high_keys = [reference_high(hand) for hand in hands]
    highs = [evaluate_high(hand) for hand in hands]
    assert [h.category for h in highs] == [category_name(k[0]) for k in high_keys]
    assert_chain_ordered(highs, high_keys, hands)

    low_keys = [reference_low(hand) for hand in hands]
    lows = [evaluate_low(hand) for hand in hands]
    assert [v.category for v in lows] == [category_name(k) for k in low_keys]
    assert_chain_ordered(lows, low_keys, hands)


# (hand, High category, Low category)
TARGETED = [
    ("As As As As As", "Five of a Kind", "Five of a Kind"),
    ("Kc Kd Kh Ks Ks", "Five of a Kind", "Five of a Kind"),
    ("2c 2c 2d 2h 2s", "Five of a Kind", "Five of a Kind"),
    ("7h 7h 7h 7h 7h 7h 7h", "Five of a Kind", "Five of a Kind"),
    ("Kc Kd Kh Ks Ks Ah Ah", "Five of a Kind", "Full House"),
    ("As Ks Qs Js Ts", "Royal Flush", "Royal Flush"),
    ("As Ks Qs Js Ts Ts Ts", "Royal Flush", "Flush"),
    ("As As Ks Qs Js", "Flush", "Flush"),
    ("Ts Js Qs Ks Ks", "Flush", "Flush"),
    ("5h 5h 4h 3h 2h", "Flush", "Flush"),
    ("5h 4h 3h 2h Ah Ah", "Straight Flush", "Flush"),
    ("5h 6h 7h 8h 9h 9h 9h", "Straight Flush", "Flush"),
    ("As As As Ks Ks", "Full House", "Full House"),
    ("Ah Ah Ah Kh Kh Qh", "Full House", "Flush"),
    ("9s 9s 9s 9s 2s", "Four of a Kind", "Four of a Kind"),
    ("9s 9s 9s 9s 9d 2s", "Five of a Kind", "Four of a Kind"),
    ("9s 9s 9s 2s 3s", "Flush", "Flush"),
    ("9s 9s 8s 8s 3s", "Flush", "Flush"),
    ("Qd Qd Qc Jh Ts 9s 8s", "Straight", "Pair"),
    ("Ac Ac 2d 3h 4s 5s", "Straight", "Pair"),
    ("8c 8c 8c 8c", "Four of a Kind", "Four of a Kind"),
    ("8c 8c 8c 3d 3d", "Full House", "Full House"),
    ("Ad Ad Kd Kd 2c 2c 3h", "Two Pair", "Pair"),
    ("Jc Jc Jd Jd Jh Jh Jh", "Five of a Kind", "Five of a Kind"),
]


@pytest.mark.parametrize(("hand", "high_category", "low_category"), TARGETED)
def test_it_classifies_targeted_multideck_hands(
    hand: str, high_category: str, low_category: str
) -> None:
    cards = hand.split()

    assert category_name(reference_high(cards)[0]) == high_category
    assert category_name(reference_low(cards)) == low_category
    assert evaluate_high(cards).category == high_category
    assert evaluate_high(cards).substitutions == 0
    assert evaluate_low(cards).category == low_category


def test_it_orders_the_targeted_multideck_hands_like_the_reference() -> None:
    hands = [hand.split() for hand, _, _ in TARGETED]

    assert_pairs_ordered(
        [evaluate_high(h) for h in hands], [reference_high(h) for h in hands], hands
    )
    assert_pairs_ordered([evaluate_low(h) for h in hands], [reference_low(h) for h in hands], hands)


def high(hand: str) -> Any:
    return evaluate_high(hand.split())


def low(hand: str) -> Any:
    return evaluate_low(hand.split())


def test_it_ranks_a_same_suit_full_house_with_the_plain_full_house() -> None:
    assert high("As As As Ks Ks") == high("Ah Ad Ac Kh Kd")
    assert low("As As As Ks Ks") == low("Ah Ad Ac Kh Kd")
    assert high("As As As Ks Ks") < high("2c 2d 2h 2s 3c")
    assert high("As As As Ks Ks") > high("As Ks Qs Js 9s")


def test_it_ranks_a_flush_holding_a_pair_as_a_flush() -> None:
    flush_with_pair = high("As As Ks Qs Js")

    assert flush_with_pair > high("As Ks Qs Js 9s")
    assert flush_with_pair > high("Ac Ad Kc Qd Jh")
    assert flush_with_pair > high("As Kd Qs Js Ts")
    assert flush_with_pair < high("2c 2d 2h 3s 3c")
    # A repeated rank never makes a straight flush, even with five consecutive-looking ranks.
    assert high("Ks Ks Qs Js Ts").category == "Flush"
    assert high("Ks Ks Qs Js Ts") < high("9s Ks Qs Js Ts")
    assert high("Ks Ks Qs Js Ts") > high("Ks Qs Js Ts 8s")


def test_it_ranks_five_of_a_kind_above_a_royal_flush_and_by_rank() -> None:
    assert high("As As Ad Ah Ac") > high("2c 2c 2d 2h 2s") > high("As Ks Qs Js Ts")
    assert high("7h 7h 7h 7h 7h 7h 7h") == high("7c 7d 7h 7s 7s")
    assert low("7h 7h 7h 7h 7h 7h 7h") == low("7c 7d 7h 7s 7s")
    assert low("7h 7h 7h 7h 7h 7h 7h") > low("As Ks Qs Js Ts")


def test_the_reference_agrees_with_phevaluator_on_single_deck_hands() -> None:
    rng = random.Random(11)
    hands = [rng.sample(ALL_CARDS, rng.randint(5, 7)) for _ in range(1500)]

    reference_keys = [reference_high(hand) for hand in hands]
    phevaluator_keys = [-evaluate_cards(*hand) for hand in hands]  # larger wins, like the reference

    # Plain ints stand in for the evaluator's values here: the reference itself is under test.
    assert_chain_ordered(phevaluator_keys, reference_keys, hands)
    assert_pairs_ordered(phevaluator_keys[:200], reference_keys[:200], hands[:200])
    low_keys = [reference_low(hand) for hand in hands]
    weakest = [-max(evaluate_cards(*five) for five in combinations(h, 5)) for h in hands]
    assert_chain_ordered(weakest, low_keys, hands)
