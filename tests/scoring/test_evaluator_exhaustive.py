"""Every single-deck five-card hand and random seven-card hands, ordered as phevaluator does.

phevaluator gives each hand one of 7,462 class numbers, 1 (royal flush) strongest. Rather than
sorting millions of values, each class is mapped to the evaluator's value: the mapping must be
consistent (one value per class) and strictly order-preserving across the sorted classes.
"""

import random
from array import array
from collections.abc import Callable
from functools import cache
from itertools import combinations
from typing import Any

from phevaluator import evaluate_cards

# The native function evaluate_cards() dispatches to, without its per-card conversion: 5x faster.
try:
    from phevaluator._pheval import evaluate_5cards as evaluate_five
except ImportError:  # pragma: no cover
    evaluate_five = evaluate_cards

from scoring.evaluator import evaluate_high, evaluate_low
from tests.scoring.ordering import assert_chain_ordered, assert_pairs_ordered, compare
from tests.scoring.reference import ALL_CARDS

CLASS_COUNT = 7462
FIVE_CARD_HANDS = 2_598_960

# phevaluator's class numbers by category, strongest first (upper bounds, inclusive).
PHEVALUATOR_CATEGORIES = (
    (1, "Royal Flush"),
    (10, "Straight Flush"),
    (166, "Four of a Kind"),
    (322, "Full House"),
    (1599, "Flush"),
    (1609, "Straight"),
    (2467, "Three of a Kind"),
    (3325, "Two Pair"),
    (6185, "Pair"),
    (7462, "High Card"),
)


def phevaluator_category(hand_class: int) -> str:
    for upper, name in PHEVALUATOR_CATEGORIES:
        if hand_class <= upper:
            return name
    raise AssertionError(hand_class)


CATEGORY_BY_CLASS = [""] + [phevaluator_category(c) for c in range(1, CLASS_COUNT + 1)]


@cache
def five_card_classes() -> array:
    """phevaluator's class for every hand in combinations(ALL_CARDS, 5) order (once; 5 MB)."""
    # ALL_CARDS lists ranks 2..A, suits c, d, h, s, so a card's index is its phevaluator id.
    return array("H", (evaluate_five(*ids) for ids in combinations(range(52), 5)))


def values_by_class(evaluate: Callable[[tuple[str, ...]], Any]) -> dict[int, Any]:
    """Evaluate every five-card hand; fail unless each class gets one value and its category."""
    classes = five_card_classes()
    by_class: dict[int, Any] = {}
    first_hand: dict[int, tuple[str, ...]] = {}
    failures: list[str] = []
    for hand_class, hand in zip(classes, combinations(ALL_CARDS, 5), strict=True):
        value = evaluate(hand)
        seen = by_class.setdefault(hand_class, value)
        if seen is value:
            first_hand[hand_class] = hand
        elif seen != value:
            failures.append(f"{hand} != {first_hand[hand_class]} (class {hand_class})")
        if value.category != CATEGORY_BY_CLASS[hand_class]:
            failures.append(
                f"{hand}: category {value.category!r}, expected {CATEGORY_BY_CLASS[hand_class]!r}"
            )
        if len(failures) >= 20:
            break
    assert not failures, "\n".join(failures)
    assert len(classes) == FIVE_CARD_HANDS
    assert sorted(by_class) == list(range(1, CLASS_COUNT + 1))
    return by_class


def test_it_orders_every_five_card_hand_like_phevaluator_for_high() -> None:
    by_class = values_by_class(evaluate_high)

    failures = [
        f"class {c} ({by_class[c]!r}) should beat class {c + 1} ({by_class[c + 1]!r})"
        for c in range(1, CLASS_COUNT)
        if compare(by_class[c], by_class[c + 1]) != 1
    ]
    assert not failures, "\n".join(failures[:20])
    assert all(value.substitutions == 0 for value in by_class.values())


def test_it_orders_every_five_card_hand_like_phevaluator_for_low() -> None:
    by_class = values_by_class(evaluate_low)

    # On five cards the only hand is the hand itself: the weaker poker hand wins Low.
    failures = [
        f"class {c + 1} ({by_class[c + 1]!r}) should beat class {c} ({by_class[c]!r}) for Low"
        for c in range(1, CLASS_COUNT)
        if compare(by_class[c + 1], by_class[c]) != -1
    ]
    assert not failures, "\n".join(failures[:20])


def random_seven_card_hands(count: int, seed: int) -> list[list[int]]:
    rng = random.Random(seed)
    return [rng.sample(range(52), 7) for _ in range(count)]


def weakest_five_class(ids: list[int]) -> int:
    return max(evaluate_cards(*five) for five in combinations(ids, 5))


def test_it_orders_random_seven_card_hands_like_phevaluator_for_high() -> None:
    hands_ids = random_seven_card_hands(4000, seed=7)
    hands = [[ALL_CARDS[i] for i in ids] for ids in hands_ids]
    classes = [evaluate_cards(*ids) for ids in hands_ids]
    values = [evaluate_high(hand) for hand in hands]
    keys = [-c for c in classes]  # a larger key wins, like the values

    for hand, hand_class, value in zip(hands, classes, values, strict=True):
        assert value.category == phevaluator_category(hand_class), hand
        assert value.substitutions == 0, hand
    assert_chain_ordered(values, keys, hands)
    assert_pairs_ordered(values[:250], keys[:250], hands[:250])


def test_it_orders_random_seven_card_hands_like_phevaluator_for_low() -> None:
    hands_ids = random_seven_card_hands(4000, seed=8)
    hands = [[ALL_CARDS[i] for i in ids] for ids in hands_ids]
    classes = [weakest_five_class(ids) for ids in hands_ids]
    values = [evaluate_low(hand) for hand in hands]
    keys = [-c for c in classes]  # the weakest five wins Low: a smaller key, a smaller value

    for hand, hand_class, value in zip(hands, classes, values, strict=True):
        assert value.category == phevaluator_category(hand_class), hand
    assert_chain_ordered(values, keys, hands)
    assert_pairs_ordered(values[:250], keys[:250], hands[:250])


def test_phevaluator_classes_mean_what_these_tests_assume() -> None:
    # The strongest and weakest hand of each category, with phevaluator's class for it.
    boundaries = [
        (("As", "Ks", "Qs", "Js", "Ts"), 1, "Royal Flush"),
        (("Kh", "Qh", "Jh", "Th", "9h"), 2, "Straight Flush"),
        (("5d", "4d", "3d", "2d", "Ad"), 10, "Straight Flush"),
        (("Ac", "Ad", "Ah", "As", "Kc"), 11, "Four of a Kind"),
        (("2c", "2d", "2h", "2s", "3c"), 166, "Four of a Kind"),
        (("Ac", "Ad", "Ah", "Ks", "Kc"), 167, "Full House"),
        (("2c", "2d", "2h", "3s", "3c"), 322, "Full House"),
        (("As", "Ks", "Qs", "Js", "9s"), 323, "Flush"),
        (("7s", "5s", "4s", "3s", "2s"), 1599, "Flush"),
        (("As", "Kd", "Qs", "Js", "Ts"), 1600, "Straight"),
        (("5s", "4d", "3s", "2s", "As"), 1609, "Straight"),
        (("Ac", "Ad", "Ah", "Ks", "Qc"), 1610, "Three of a Kind"),
        (("2c", "2d", "2h", "4s", "3c"), 2467, "Three of a Kind"),
        (("Ac", "Ad", "Kh", "Ks", "Qc"), 2468, "Two Pair"),
        (("3c", "3d", "2h", "2s", "4c"), 3325, "Two Pair"),
        (("Ac", "Ad", "Kh", "Qs", "Jc"), 3326, "Pair"),
        (("2c", "2d", "5h", "4s", "3c"), 6185, "Pair"),
        (("Ac", "Kd", "Qh", "Js", "9c"), 6186, "High Card"),
        (("7c", "5d", "4h", "3s", "2c"), 7462, "High Card"),
    ]
    for hand, hand_class, category in boundaries:
        assert evaluate_cards(*hand) == hand_class, hand
        assert evaluate_five(*(ALL_CARDS.index(card) for card in hand)) == hand_class, hand
        assert phevaluator_category(hand_class) == category, hand
        assert evaluate_high(hand).category == category, hand
