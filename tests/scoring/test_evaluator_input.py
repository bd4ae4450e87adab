"""Card parsing, bad input, and the value objects' equality, hashing and immutability."""

from collections.abc import Iterable
from typing import Any

import pytest
from hypothesis import given, settings
from hypothesis import strategies as st

from scoring.evaluator import evaluate_high, evaluate_low
from tests.scoring.reference import ALL_CARDS, CATEGORIES, RANKS, SUITS, reference_high

ROYAL = ["As", "Ks", "Qs", "Js", "Ts"]
SEVEN = ["As", "Kd", "7h", "7c", "2s", "9d", "Th"]


def high(hand: str, wild_rank: str | None = None) -> Any:
    return evaluate_high(hand.split(), wild_rank)


def low(hand: str) -> Any:
    return evaluate_low(hand.split())


def test_it_reads_ranks_and_suits_in_any_case() -> None:
    for hand in (
        ["as", "ks", "qs", "js", "ts"],
        ["AS", "KS", "QS", "JS", "TS"],
        ["aS", "Ks", "qS", "jS", "tS"],
    ):
        assert evaluate_high(hand) == evaluate_high(ROYAL)
        assert evaluate_high(hand).category == "Royal Flush"
        assert evaluate_low(hand) == evaluate_low(ROYAL)
    assert evaluate_high(["7H", "7h"]) == evaluate_high(["7h", "7h"])


def test_it_reads_the_wild_rank_in_any_case() -> None:
    assert high("Th Td 9s 9c 2c", "t") == high("Th Td 9s 9c 2c", "T")
    assert high("Th Td 9s 9c 2c", "t").category == "Four of a Kind"
    assert high("Ah Kd 9s 4c 2c", "a") == high("Ah Kd 9s 4c 2c", "A")


@settings(max_examples=100, deadline=None, derandomize=True, database=None)
@given(
    hand=st.lists(st.sampled_from(ALL_CARDS), min_size=1, max_size=7),
    flips=st.lists(st.booleans(), min_size=14, max_size=14),
    wild_rank=st.none() | st.sampled_from(RANKS),
)
def test_it_ignores_case_everywhere(
    hand: list[str], flips: list[bool], wild_rank: str | None
) -> None:
    recased = [
        (card[0].swapcase() if flips[2 * i] else card[0])
        + (card[1].swapcase() if flips[2 * i + 1] else card[1])
        for i, card in enumerate(hand)
    ]
    lower_wild = wild_rank.lower() if wild_rank else None

    assert evaluate_high(recased, lower_wild) == evaluate_high(hand, wild_rank)
    assert evaluate_high(recased, lower_wild).category == evaluate_high(hand, wild_rank).category
    assert evaluate_low(recased) == evaluate_low(hand)


def test_it_accepts_any_iterable_and_keyword_arguments() -> None:
    assert evaluate_high(iter(SEVEN)) == evaluate_high(SEVEN)
    assert evaluate_high(tuple(SEVEN)) == evaluate_high(SEVEN)
    assert evaluate_low(card for card in SEVEN) == evaluate_low(SEVEN)
    assert evaluate_high(cards=SEVEN, wild_rank="7") == evaluate_high(SEVEN, "7")
    assert evaluate_high(SEVEN, None) == evaluate_high(SEVEN)
    assert evaluate_low(cards=SEVEN) == evaluate_low(SEVEN)


BAD_CARDS = ["1x", "10s", "AS ", " As", "Ax", "Zs", "1s", "A", "Asd", "", "🂡s", "A\ns"]


@pytest.mark.parametrize("bad", BAD_CARDS)
@pytest.mark.parametrize("evaluate", [evaluate_high, evaluate_low])
def test_it_rejects_a_bad_card_by_name(evaluate: Any, bad: str) -> None:
    with pytest.raises(ValueError) as raised:
        evaluate(["Kd", bad, "7h", "7c", "2s"])

    if bad:
        assert bad in str(raised.value) or repr(bad) in str(raised.value)


@pytest.mark.parametrize("bad", BAD_CARDS)
def test_it_rejects_a_bad_card_in_a_partial_hand(bad: str) -> None:
    with pytest.raises(ValueError):
        evaluate_high([bad])
    with pytest.raises(ValueError):
        evaluate_low(["As", bad])


@pytest.mark.parametrize("bad", [14, None, b"As", ("A", "s"), 7.5])
@pytest.mark.parametrize("evaluate", [evaluate_high, evaluate_low])
def test_it_rejects_a_non_string_card_by_name(evaluate: Any, bad: object) -> None:
    with pytest.raises(ValueError) as raised:
        evaluate(["Kd", bad, "7h", "7c", "2s"])

    assert repr(bad) in str(raised.value) or str(bad) in str(raised.value)


@pytest.mark.parametrize("evaluate", [evaluate_high, evaluate_low])
def test_it_rejects_an_empty_hand(evaluate: Any) -> None:
    empties: list[Iterable[str]] = [[], (), iter([])]
    for empty in empties:
        with pytest.raises(ValueError) as raised:
            evaluate(empty)
        assert "card" in str(raised.value).lower()


@pytest.mark.parametrize("evaluate", [evaluate_high, evaluate_low])
def test_it_rejects_more_than_seven_cards(evaluate: Any) -> None:
    with pytest.raises(ValueError) as raised:
        evaluate([*SEVEN, "3c"])
    assert "card" in str(raised.value).lower()
    with pytest.raises(ValueError):
        evaluate(["As"] * 8)
    with pytest.raises(ValueError):
        evaluate(ALL_CARDS)


def test_it_accepts_one_to_seven_cards() -> None:
    for size in range(1, 8):
        assert evaluate_high(SEVEN[:size]).category in CATEGORIES
        assert evaluate_low(SEVEN[:size]).category in CATEGORIES


@pytest.mark.parametrize(
    ("wild_rank", "named"),
    [("Z", "Z"), ("", "wild"), ("77", "77"), ("1", "1"), ("10", "10"), ("As", "As"), (" 7", "7")],
)
@pytest.mark.parametrize("hand", [SEVEN, SEVEN[:5], SEVEN[:3], SEVEN[:1]])
def test_it_rejects_a_bad_wild_rank_by_name(hand: list[str], wild_rank: str, named: str) -> None:
    with pytest.raises(ValueError) as raised:
        evaluate_high(hand, wild_rank)

    message = str(raised.value)
    assert named in message or "wild" in message.lower()


@pytest.mark.parametrize("wild_rank", [7, 7.0, b"7", ["7"]])
@pytest.mark.parametrize("hand", [SEVEN, SEVEN[:2]])
def test_it_rejects_a_non_string_wild_rank(hand: list[str], wild_rank: object) -> None:
    with pytest.raises(ValueError) as raised:
        evaluate_high(hand, wild_rank)  # type: ignore[arg-type]

    message = str(raised.value)
    assert str(wild_rank) in message or "wild" in message.lower()


def test_it_names_the_categories_as_the_spec_spells_them() -> None:
    examples = {
        "Five of a Kind": "9s 9s 9d 9h 9c",
        "Royal Flush": "Ah Kh Qh Jh Th",
        "Straight Flush": "9c 8c 7c 6c 5c",
        "Four of a Kind": "9s 9c 9d 9h Kc",
        "Full House": "9s 9c 9d Kh Kc",
        "Flush": "2d 9d Jd Kd 4d",
        "Straight": "Ac 2d 3h 4s 5c",
        "Three of a Kind": "9s 9c 9d Ah Kc",
        "Two Pair": "9s 9c Ad Ah Kc",
        "Pair": "9s 9c Ad Qh Kc",
        "High Card": "9s 2c Ad Qh Kc",
    }
    assert set(examples) == set(CATEGORIES)
    for category, hand in examples.items():
        assert high(hand).category == category
        assert low(hand).category == category


def test_it_gives_hashable_values_equal_hashes_when_equal() -> None:
    first = high("As Kd 7h 7c 2s")
    second = high("Ad Kc 7s 7d 2h")

    assert first == second
    assert hash(first) == hash(second)
    assert len({first, second, high("As Kd 7h 7c 3s")}) == 2
    assert hash(low("As Kd 7h 7c 2s")) == hash(low("Ad Kc 7s 7d 2h"))
    assert hash(high("As Ks Qs Js 2c", "2")) == hash(high("Ad Kd Qd Jd 2h", "2"))
    assert {high("7c"): "a"}[high("7d")] == "a"


@pytest.mark.parametrize(
    "value",
    [
        evaluate_high(SEVEN),
        evaluate_high(SEVEN, "7"),
        evaluate_high(SEVEN[:3]),
        evaluate_low(SEVEN),
        evaluate_low(SEVEN[:3]),
    ],
    ids=["high", "high-wild", "high-partial", "low", "low-partial"],
)
def test_it_returns_immutable_values(value: Any) -> None:
    with pytest.raises((AttributeError, TypeError)):
        value.category = "Royal Flush"
    with pytest.raises((AttributeError, TypeError)):
        value.substitutions = 3
    with pytest.raises((AttributeError, TypeError)):
        value.something_new = 1
    assert isinstance(value.category, str)


def test_it_reports_substitutions_as_an_int() -> None:
    for value in (high("As Kd 7h 7c 2s"), high("As Kd 7h 7c 2s", "7"), high("As", "7")):
        assert type(value.substitutions) is int
    # Both sevens become aces: three aces beat the natural pair of sevens.
    assert high("As Kd 7h 7c 2s", "7").substitutions == 2
    assert high("As Kd 7h 7c 2s", "7").category == "Three of a Kind"
    assert reference_high(["As", "Kd", "7h", "7c", "2s"], "7")[1] == -2


def test_it_leaves_display_fields_out_of_equality() -> None:
    # Same value, different best five and suits.
    assert high("As Ad Kc Kd Qh 3c 2d") == high("Ah Ac Ks Kh Qd 4c 5d")
    assert low("As Ad Kc Kd Qh 3c 2d") == low("Ah Ac Ks Kh Qd 3s 2h")
    assert high("As Ks Qs Js 2c", "2") == high("Ad Kd Qd Jd 2h", "2")
    assert high("As Ks Qs Js 2c", "2") == high("Ad Kd Qd Td 9h", "9")
    assert high("7c 7d 7h 7s 7c 7d 7h") == high("7s 7s 7s 7s 7s")
    assert high("As Ks Qs Js 2c", "2") != high("As Ks Qs Js Ts")


SUIT_PERMUTATIONS = st.permutations(SUITS).map(lambda p: dict(zip(SUITS, p, strict=True)))


@settings(max_examples=100, deadline=None, derandomize=True, database=None)
@given(
    hand=st.lists(st.sampled_from(ALL_CARDS), min_size=1, max_size=7),
    suits=SUIT_PERMUTATIONS,
    wild_rank=st.none() | st.sampled_from(RANKS),
)
def test_it_never_breaks_ties_on_suits(
    hand: list[str], suits: dict[str, str], wild_rank: str | None
) -> None:
    renamed = [card[0] + suits[card[1]] for card in hand]

    assert evaluate_high(renamed, wild_rank) == evaluate_high(hand, wild_rank)
    assert (
        evaluate_high(renamed, wild_rank).substitutions
        == evaluate_high(hand, wild_rank).substitutions
    )
    assert evaluate_low(renamed) == evaluate_low(hand)


def test_it_ties_the_same_ranks_in_different_suits() -> None:
    assert high("As Kd") == high("Ah Kc")
    assert high("As Kd Qh Jc 9s") == high("Ac Kh Qd Js 9d")
    assert low("As Kd Qh Jc 9s 3c 2d") == low("Ac Kh Qd Js 9d 3h 2s")
    assert high("As Ks Qs Js 9s") == high("Ah Kh Qh Jh 9h")
    assert high("As Ks Qs Js 9s") > high("As Ks Qs Js 9d")
