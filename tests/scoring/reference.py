"""A plain, slow, independent reading of docs/rules.md section 6, used as the second opinion in the
tests.

Nothing here is imported from `scoring/`: every rule is written out again from the contract, so
that a misreading in one place shows up as a disagreement.
"""

from collections import Counter
from collections.abc import Iterable, Sequence
from functools import cache, lru_cache
from itertools import combinations, combinations_with_replacement, product

RANKS = "23456789TJQKA"
SUITS = "cdhs"
ALL_CARDS = tuple(rank + suit for rank in RANKS for suit in SUITS)

# Weakest first, so that the index is the category's strength.
CATEGORIES = (
    "High Card",
    "Pair",
    "Two Pair",
    "Three of a Kind",
    "Straight",
    "Flush",
    "Full House",
    "Four of a Kind",
    "Straight Flush",
    "Royal Flush",
    "Five of a Kind",
)
PARTIAL_CATEGORIES = ("High Card", "Pair", "Two Pair", "Three of a Kind", "Four of a Kind")
(
    HIGH_CARD,
    PAIR,
    TWO_PAIR,
    THREE_OF_A_KIND,
    STRAIGHT,
    FLUSH,
    FULL_HOUSE,
    FOUR_OF_A_KIND,
    STRAIGHT_FLUSH,
    ROYAL_FLUSH,
    FIVE_OF_A_KIND,
) = range(len(CATEGORIES))

type Card = tuple[int, str]  # (rank 2..14 with the ace as 14, suit)
type Value = tuple[int, tuple[int, ...]]  # (category index, comparison ranks)
type HighKey = tuple[Value, int]  # (poker value, -substitutions): larger wins High


def parse(card: str) -> Card:
    """Turn a valid two-character card such as 'Td' or 'tD' into (10, 'd')."""
    return RANKS.index(card[0].upper()) + 2, card[1].lower()


def rank_value(rank: str) -> int:
    """The numeric rank of a rank character: '2' -> 2, 'A' -> 14."""
    return RANKS.index(rank.upper()) + 2


def category_name(value: Value) -> str:
    return CATEGORIES[value[0]]


def grouped_ranks(ranks: Iterable[int]) -> tuple[tuple[int, ...], tuple[int, ...]]:
    """Distinct ranks, larger group first, then higher rank; and the group sizes in that order."""
    counts = Counter(ranks)
    order = tuple(sorted(counts, key=lambda rank: (counts[rank], rank), reverse=True))
    return order, tuple(counts[rank] for rank in order)


def straight_top(ranks: Sequence[int]) -> int | None:
    """The top rank of a five-card straight (5 for A-2-3-4-5), or None."""
    distinct = sorted(set(ranks))
    if len(ranks) != 5 or len(distinct) != 5:
        return None
    if distinct == [2, 3, 4, 5, 14]:
        return 5
    if distinct[4] - distinct[0] == 4:
        return distinct[4]
    return None


def classify_five(cards: Sequence[Card]) -> Value:
    """The poker value of exactly five printed cards: the highest category they satisfy."""
    assert len(cards) == 5
    ranks = tuple(sorted(rank for rank, _ in cards))
    return classify_ranks(ranks, len({suit for _, suit in cards}) == 1)


@cache
def classify_ranks(ranks: tuple[int, ...], same_suit: bool) -> Value:
    """The poker value of five cards from all it depends on: the ranks and one suit or not."""
    order, sizes = grouped_ranks(ranks)
    top = straight_top(ranks)
    if sizes == (5,):
        return FIVE_OF_A_KIND, order
    if same_suit and top == 14:
        return ROYAL_FLUSH, ()
    if same_suit and top is not None:
        return STRAIGHT_FLUSH, (top,)
    if sizes[0] == 4:
        return FOUR_OF_A_KIND, order
    if sizes == (3, 2):
        return FULL_HOUSE, order
    if same_suit:
        # A flush compares card by card, high to low, duplicates included.
        return FLUSH, tuple(sorted(ranks, reverse=True))
    if top is not None:
        return STRAIGHT, (top,)
    if sizes[0] == 3:
        return THREE_OF_A_KIND, order
    if sizes == (2, 2, 1):
        return TWO_PAIR, order
    if sizes[0] == 2:
        return PAIR, order
    return HIGH_CARD, order


def classify_partial(cards: Sequence[Card]) -> Value:
    """The value of 1-4 held cards: rank groups only, compared like tuples (shorter is lower)."""
    assert 1 <= len(cards) <= 4
    order, sizes = grouped_ranks(rank for rank, _ in cards)
    if sizes[0] == 4:
        return FOUR_OF_A_KIND, order
    if sizes[0] == 3:
        return THREE_OF_A_KIND, order
    if sizes[:2] == (2, 2):
        return TWO_PAIR, order
    if sizes[0] == 2:
        return PAIR, order
    return HIGH_CARD, order


@lru_cache(maxsize=200_000)
def best_five_with_wilds(five: tuple[Card, ...], wild: int) -> HighKey:
    """Best (value, -substitutions) of five cards when each card of rank `wild` may become any card.

    Each wild-rank card is either kept as printed (free) or substituted (cost 1). Substituted cards
    are interchangeable, so their ranks are enumerated as a multiset; a five-card value reads only
    the ranks and whether all five share a suit, so giving the substitutes one common suit (each of
    the four) or a mix of suits reaches every outcome. Substituting a card for itself costs 1 here,
    but the same five cards are also reached for free by keeping it, so the best key is unaffected.
    """
    fixed = [card for card in five if card[0] != wild]
    wilds = [card for card in five if card[0] == wild]
    best: HighKey | None = None
    for keep in product((True, False), repeat=len(wilds)):
        kept = fixed + [card for card, keep_it in zip(wilds, keep, strict=True) if keep_it]
        kept_suits = {suit for _, suit in kept}
        substituted = keep.count(False)
        suit_patterns = [(suit,) * substituted for suit in SUITS]
        suit_patterns.append(tuple(SUITS[i % 4] for i in range(substituted)))
        same_suit_outcomes = {len(kept_suits | set(suits)) == 1 for suits in suit_patterns}
        kept_ranks = [rank for rank, _ in kept]
        for ranks in combinations_with_replacement(range(2, 15), substituted):
            five_ranks = tuple(sorted(kept_ranks + list(ranks)))
            for same_suit in same_suit_outcomes:
                key = (classify_ranks(five_ranks, same_suit), -substituted)
                if best is None or key > best:
                    best = key
    assert best is not None
    return best


def literal_best_five_with_wilds(five: tuple[Card, ...], wild: int) -> HighKey:
    """The rule read literally: each wild-rank card tries all 52 identities (slow)."""
    identities = [parse(card) for card in ALL_CARDS]
    choices = [identities if card[0] == wild else [card] for card in five]
    best: HighKey | None = None
    for cards in product(*choices):
        cost = sum(1 for printed, used in zip(five, cards, strict=True) if printed != used)
        key = (classify_five(cards), -cost)
        if best is None or key > best:
            best = key
    assert best is not None
    return best


def reference_high(cards: Iterable[str], wild_rank: str | None = None) -> HighKey:
    """(poker value, -substitutions) of a hand for High; a larger key wins."""
    held = [parse(card) for card in cards]
    if len(held) < 5:
        return classify_partial(held), 0
    if wild_rank is None:
        return max((classify_five(five), 0) for five in combinations(held, 5))
    wild = rank_value(wild_rank)
    return max(best_five_with_wilds(tuple(sorted(five)), wild) for five in combinations(held, 5))


def reference_low(cards: Iterable[str]) -> Value:
    """The weakest five-card poker value of the printed cards; a smaller value wins Low."""
    held = [parse(card) for card in cards]
    if len(held) < 5:
        return classify_partial(held)
    return min(classify_five(five) for five in combinations(held, 5))
