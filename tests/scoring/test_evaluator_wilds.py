"""Wild-rank High hands against a brute-force reference: (poker value, -substitutions)."""

import inspect
import random
from typing import Any

import pytest
from hypothesis import given, settings
from hypothesis import strategies as st

from scoring.evaluator import evaluate_high, evaluate_low
from tests.scoring.ordering import assert_chain_ordered, assert_pairs_ordered
from tests.scoring.reference import (
    ALL_CARDS,
    RANKS,
    SUITS,
    best_five_with_wilds,
    category_name,
    literal_best_five_with_wilds,
    parse,
    rank_value,
    reference_high,
    reference_low,
)

type WildHand = tuple[list[str], str]


@st.composite
def wild_hands(
    draw: st.DrawFn, min_wilds: int = 1, max_wilds: int = 3, min_size: int = 5, max_size: int = 7
) -> WildHand:
    """A hand holding min_wilds..max_wilds wild-rank cards; duplicates and one suit likely."""
    wild_rank = draw(st.sampled_from(RANKS))
    size = draw(st.integers(min_size, max_size))
    wilds = draw(st.integers(min_wilds, min(max_wilds, size)))
    others = [card for card in ALL_CARDS if card[0] != wild_rank]
    pool = draw(st.lists(st.sampled_from(others), min_size=1, max_size=8, unique=True))
    wild_suits = st.sampled_from(SUITS)
    suit = draw(st.none() | st.sampled_from(SUITS))
    if suit is not None:  # one suit, so that flushes, straight flushes and printed wilds matter
        pool = [card[0] + suit for card in pool]
        wild_suits = st.sampled_from([suit, suit, suit, *SUITS])
    cards = [wild_rank + draw(wild_suits) for _ in range(wilds)]
    cards += draw(st.lists(st.sampled_from(pool), min_size=size - wilds, max_size=size - wilds))
    return list(draw(st.permutations(cards))), wild_rank


def random_wild_hand(rng: random.Random, max_wilds: int) -> WildHand:
    wild_rank = rng.choice(RANKS)
    size = rng.randint(5, 7)
    wilds = rng.randint(0, max_wilds)
    suit = rng.choice(SUITS) if rng.random() < 0.3 else None
    others = [card for card in ALL_CARDS if card[0] != wild_rank]
    pool = rng.sample(others, rng.randint(1, 8))
    cards = [wild_rank + (suit or rng.choice(SUITS)) for _ in range(wilds)]
    cards += [rng.choice(pool)[0] + (suit or rng.choice(SUITS)) for _ in range(size - wilds)]
    rng.shuffle(cards)
    return cards, wild_rank


def assert_matches_reference(hands: list[WildHand]) -> None:
    values = [evaluate_high(cards, wild_rank) for cards, wild_rank in hands]
    keys = [reference_high(cards, wild_rank) for cards, wild_rank in hands]
    for hand, value, (poker_value, minus_substitutions) in zip(hands, values, keys, strict=True):
        assert value.category == category_name(poker_value), hand
        assert value.substitutions == -minus_substitutions, hand
    assert_pairs_ordered(values, keys, hands)


@settings(max_examples=150, deadline=None, derandomize=True, database=None)
@given(hands=st.lists(wild_hands(max_wilds=2), min_size=2, max_size=3))
def test_it_evaluates_hands_with_one_or_two_wilds_like_the_reference(
    hands: list[WildHand],
) -> None:
    assert_matches_reference(hands)


@settings(max_examples=60, deadline=None, derandomize=True, database=None)
@given(hands=st.lists(wild_hands(min_wilds=3, max_wilds=3), min_size=2, max_size=2))
def test_it_evaluates_hands_with_three_wilds_like_the_reference(hands: list[WildHand]) -> None:
    assert_matches_reference(hands)


@settings(max_examples=12, deadline=None, derandomize=True, database=None)
@given(hand=wild_hands(min_wilds=4, max_wilds=5, max_size=6))
def test_it_evaluates_hands_with_four_or_more_wilds_like_the_reference(hand: WildHand) -> None:
    assert_matches_reference([hand, (["As", "Ks", "Qs", "Js", "Ts"], "2")])


def test_it_orders_a_batch_of_wild_hands_like_the_reference() -> None:
    rng = random.Random(77)
    hands = [random_wild_hand(rng, max_wilds=3) for _ in range(500)]

    values = [evaluate_high(cards, wild_rank) for cards, wild_rank in hands]
    keys = [reference_high(cards, wild_rank) for cards, wild_rank in hands]

    assert [v.category for v in values] == [category_name(k[0]) for k in keys]
    assert [v.substitutions for v in values] == [-k[1] for k in keys]
    assert_chain_ordered(values, keys, hands)


@settings(max_examples=25, deadline=None, derandomize=True, database=None)
@given(hand=wild_hands(min_wilds=1, max_wilds=2, max_size=5))
def test_the_reference_agrees_with_the_literal_rule(hand: WildHand) -> None:
    # Each wild-rank card trying all 52 identities is the rule as written; the faster reference
    # used everywhere else must give the same (value, -substitutions).
    cards, wild_rank = hand
    five = tuple(sorted(parse(card) for card in cards))

    assert best_five_with_wilds(five, rank_value(wild_rank)) == literal_best_five_with_wilds(
        five, rank_value(wild_rank)
    )


def high(hand: str, wild_rank: str | None = None) -> Any:
    return evaluate_high(hand.split(), wild_rank)


# (hand, wild rank, category, substitutions)
TARGETED = [
    # A better poker value wins before substitutions count: queen-high beats the natural jack-high.
    ("7h 8h 9h Th Jh", "7", "Straight Flush", 1),
    ("7h 7h 8h 9h Th", "7", "Straight Flush", 2),
    ("7h 8h 9h Th Jh Qh Kh", "7", "Royal Flush", 1),
    # A wild-rank card used exactly as printed is natural.
    ("5h 6h 7h 8h 9h", "7", "Straight Flush", 0),
    ("As Ks Qs Js Ts", "A", "Royal Flush", 0),
    # A wild-rank card left out of the five is not a substitution.
    ("As Ks Qs Js Ts 2c 3d", "2", "Royal Flush", 0),
    ("As Ks Qs Js 2c", "2", "Royal Flush", 1),
    ("As Kd 9h 7c 3s", "Q", "High Card", 0),
    # Five of a Kind through wilds, including wilds standing for cards also held.
    ("As Ad Ah Ac 2d", "2", "Five of a Kind", 1),
    ("Kc Kd 2s 2h 2c", "2", "Five of a Kind", 3),
    ("Ah Ad 2c 2s 2h", "2", "Five of a Kind", 3),
    ("7c 7d 7h 7s 8c", "7", "Five of a Kind", 4),
    ("2c 2d 2h 2s 2c 2d 2h", "2", "Five of a Kind", 5),
    ("As Ks Qs 9s 2d", "2", "Flush", 1),
    ("As As Ad Ah Ac", "A", "Five of a Kind", 0),
    ("Ah 2h 3h 4h 9c", "9", "Straight Flush", 1),
    # Fewer substitutions for the same poker value.
    ("As Ah Ad Kc Ks 7h 9c", "2", "Full House", 0),
    ("As Ah 2d Kc Ks 7h 9c", "2", "Full House", 1),
    ("9c Th Jd Qs Kh 3c 4d", "2", "Straight", 0),
    ("9c Th Jd Qs 2h 3c 4d", "2", "Straight", 1),
    ("9c Th Jd 2s 2h 3c 4d", "2", "Straight", 2),
    ("8h 9h Th Jh 2c", "2", "Straight Flush", 1),
    ("8h 9h Th Jh Qh", "2", "Straight Flush", 0),
]


@pytest.mark.parametrize(("hand", "wild_rank", "category", "substitutions"), TARGETED)
def test_it_evaluates_targeted_wild_hands(
    hand: str, wild_rank: str, category: str, substitutions: int
) -> None:
    poker_value, minus_substitutions = reference_high(hand.split(), wild_rank)
    assert (category_name(poker_value), -minus_substitutions) == (category, substitutions)

    value = high(hand, wild_rank)

    assert value.category == category
    assert value.substitutions == substitutions


def test_it_orders_the_targeted_wild_hands_like_the_reference() -> None:
    hands = [(hand.split(), wild_rank) for hand, wild_rank, _, _ in TARGETED]

    assert_matches_reference(hands)


def test_it_prefers_a_better_poker_value_over_fewer_substitutions() -> None:
    queen_high_with_a_wild = high("7h 8h 9h Th Jh", "7")

    assert queen_high_with_a_wild > high("7h 8h 9h Th Jh")
    assert queen_high_with_a_wild < high("8h 9h Th Jh Qh")
    assert queen_high_with_a_wild == high("8h 9h Th Jh 2c", "2")
    assert high("Ah Ad 2c 2s 2h", "2") > high("As Ks Qs Js Ts")
    assert high("Ah 2h 3h 4h 9c", "9") < high("2h 3h 4h 5h 6h")
    assert high("Ah 2h 3h 4h 9c", "9") > high("Ah Ah Ad Ac 9c")


def test_it_lets_a_natural_hand_beat_the_same_hand_made_with_wilds() -> None:
    assert high("As Ah Ad Kc Ks 7h 9c", "2") > high("As Ah 2d Kc Ks 7h 9c", "2")
    assert high("As Ks Qs Js Ts") > high("As Ks Qs Js 2c", "2")
    assert high("Ac Ad Ah As Ac") > high("2c 2d 2h 2s 2c 2d 2h", "2")
    assert high("As As Ks Qs 9s") > high("As Ks Qs 9s 2d", "2")


def test_it_lets_fewer_substitutions_win() -> None:
    natural = high("9c Th Jd Qs Kh 3c 4d", "2")
    one = high("9c Th Jd Qs 2h 3c 4d", "2")
    two = high("9c Th Jd 2s 2h 3c 4d", "2")

    assert natural > one > two
    assert natural == high("9c Th Jd Qs Kh 3c 4d")
    assert high("As Ad Ah Ac 2d", "2") > high("Kc Kd 2s 2h 2c", "2")


def test_it_counts_a_wild_rank_card_used_as_printed_as_natural() -> None:
    assert high("5h 6h 7h 8h 9h", "7") == high("5h 6h 7h 8h 9h")
    assert high("As Ks Qs Js Ts", "A") == high("As Ks Qs Js Ts")
    assert high("As Ks Qs Js Ts", "a") == high("Ah Kh Qh Jh Th")


def test_it_does_not_count_an_unused_wild_rank_card() -> None:
    assert high("As Ks Qs Js Ts 2c 3d", "2") == high("As Ks Qs Js Ts 2c 3d")
    assert high("As Kd 9h 7c 3s", "Q") == high("As Kd 9h 7c 3s")


def test_it_lets_a_wild_stand_for_a_card_also_held() -> None:
    # The best flush doubles the held ace of spades, which beats any flush of distinct ranks.
    doubled_ace = high("As Ks Qs 9s 2d", "2")

    assert doubled_ace > high("As Ks Qs Js 9s")
    assert doubled_ace < high("As As Ks Qs 9s")
    assert high("As Ad Ah Ac 2d", "2") > high("Ks Kd Kh Kc Kc")


def test_it_ignores_the_wild_rank_for_low() -> None:
    assert list(inspect.signature(evaluate_low).parameters) == ["cards"]
    hand = ["2c", "2d", "7h", "8s", "9c", "Kd", "Ah"]

    assert evaluate_low(hand).category == "High Card"
    assert evaluate_low(hand) == evaluate_low(["2h", "2s", "7c", "8d", "9h", "Ks", "Ad"])
    # K-9-8-7-2 (the pair of wild-rank twos is avoided) loses Low to 9-8-7-3-2.
    assert evaluate_low(hand) > evaluate_low(["3c", "2d", "7h", "8s", "9c", "Kd", "Ah"])
    assert category_name(reference_low(hand)) == "High Card"


@settings(max_examples=60, deadline=None, derandomize=True, database=None)
@given(hands=st.lists(wild_hands(max_wilds=4), min_size=2, max_size=3))
def test_it_evaluates_low_from_the_printed_cards_only(hands: list[WildHand]) -> None:
    values = [evaluate_low(cards) for cards, _ in hands]
    keys = [reference_low(cards) for cards, _ in hands]

    assert [v.category for v in values] == [category_name(k) for k in keys]
    assert_pairs_ordered(values, keys, hands)


@pytest.mark.parametrize(
    "hand", ["2c", "2c 2d", "2c 2d As", "2c 2d 2h As", "As Kd 2c", "2c 2d 2h 2s"]
)
def test_it_ignores_the_wild_rank_with_fewer_than_five_cards(hand: str) -> None:
    with_wild = high(hand, "2")

    assert with_wild == high(hand)
    assert with_wild.substitutions == 0
    assert with_wild.category == high(hand).category


@pytest.mark.parametrize("wild_rank", ["Z", "", "77", "1", "10"])
def test_it_validates_the_wild_rank_with_fewer_than_five_cards(wild_rank: str) -> None:
    with pytest.raises(ValueError):
        evaluate_high(["2c", "2d", "As"], wild_rank)
