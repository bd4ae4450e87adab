"""Poker values as integers, the hand key that cards add up to, and the evaluator's tables.

A *poker value* is ``category << 20`` plus five 4-bit rank digits (2..14, ace 14; 0 where a partial
hand has no more cards), so plain integer order is poker order, and a partial hand (1-4 cards) that
runs out of cards first compares lower. The digits are the group ranks (larger group first, then
higher rank) and kickers high to low; a straight keeps only its top card (5 for A-2-3-4-5); a flush
keeps all five ranks high to low, duplicates included.

A *hand key* is the sum of one integer per card (see `card_code`):

- bits 0-38: a 3-bit count per rank (a hand holds at most seven cards);
- bits 39-54: a 4-bit count per suit, biased by 3 so that a suit holding five or more sets its top
  bit (the flush flag);
- bits 55-210: per suit, a copy of the rank counts of the cards of that suit;
- bits 211 and up: the number of cards, on top so that overflow from eight or more cards can only
  raise it.

The natural tables are keyed by the rank counts alone (``key & TABLE_MASK``), so a hand whose key
shows a flush flag, no card or too many cards is simply absent from them.
"""

from collections.abc import Callable
from itertools import combinations

RANKS = "23456789TJQKA"
SUITS = "cdhs"

# Weakest first: the index is the category's strength.
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
CATEGORY_SHIFT = 20

RANK_FIELDS = (1 << 39) - 1
SUIT_SHIFT = 39
SUIT_BIAS = sum(3 << (SUIT_SHIFT + 4 * suit) for suit in range(4))
FLUSH_FLAGS = sum(8 << (SUIT_SHIFT + 4 * suit) for suit in range(4))
SUITED_SHIFT = 55
COUNT_SHIFT = SUITED_SHIFT + 4 * 39
TABLE_MASK = RANK_FIELDS | FLUSH_FLAGS
JOKER_SHIFT = 39  # where a joker table's key holds the number of jokers, above the rank counts

# The straight topped by each rank digit, as a 13-bit mask over rank indexes 0..12.
STRAIGHTS = {top: 0b11111 << (top - 6) for top in range(6, 15)} | {5: 0b1111 | 1 << 12}

# A joker table entry: (best poker value, jokers it uses, the ranks they take as rank counts).
type JokerEntry = tuple[int, int, int]


def card_code(rank: int, suit: int, *, wild: bool = False) -> int:
    """What one card adds to a hand key. A wild card leaves the suit counts alone (see jokers)."""
    code = 1 << 3 * rank | 1 << SUITED_SHIFT + 39 * suit + 3 * rank | 1 << COUNT_SHIFT
    return code if wild else code | 1 << SUIT_SHIFT + 4 * suit


def rank_counts(key: int) -> list[int]:
    """The 13 rank counts held in the low bits of a key."""
    return [key >> 3 * rank & 7 for rank in range(13)]


def rank_key(ranks: tuple[int, ...]) -> int:
    """The rank counts of some rank indexes (0..12, repeats allowed)."""
    return sum(1 << 3 * rank for rank in ranks)


def poker_value(category: int, digits: list[int] | tuple[int, ...]) -> int:
    value = category
    for place in range(5):
        value = value << 4 | (digits[place] if place < len(digits) else 0)
    return value


def value_digits(value: int) -> list[int]:
    """The rank digits (2..14) of a poker value, without the trailing empty places."""
    digits = [value >> shift & 15 for shift in (16, 12, 8, 4, 0)]
    return [digit for digit in digits if digit]


def straight_top(mask: int) -> int:
    """The top of the best straight within a 13-bit rank mask, 0 if none."""
    for top in range(14, 4, -1):
        if STRAIGHTS[top] & mask == STRAIGHTS[top]:
            return top
    return 0


def classify(counts: list[int]) -> int:
    """Poker value of at most five cards given by rank counts, suits aside (no flush)."""
    groups = sorted(((count, rank + 2) for rank, count in enumerate(counts) if count), reverse=True)
    sizes = tuple(count for count, _ in groups)
    digits = [rank for _, rank in groups]
    if sizes[0] == 5:
        return poker_value(FIVE_OF_A_KIND, digits)
    if sizes[0] == 4:
        return poker_value(FOUR_OF_A_KIND, digits)
    if sizes[:2] == (3, 2):
        return poker_value(FULL_HOUSE, digits)
    if len(sizes) == 5:
        top = straight_top(sum(1 << rank - 2 for rank in digits))
        if top:
            return poker_value(STRAIGHT, [top])
    if sizes[0] == 3:
        return poker_value(THREE_OF_A_KIND, digits)
    if sizes[:2] == (2, 2):
        return poker_value(TWO_PAIR, digits)
    if sizes[0] == 2:
        return poker_value(PAIR, digits)
    return poker_value(HIGH_CARD, digits)


def classify_suited(counts: list[int], jokers: int = 0) -> JokerEntry:
    """Best straight flush or flush from one suit's rank counts plus jokers free to take any rank.

    Needs at least five cards in all. When the top five ranks would make a full house or more,
    the value returned is lower than that (it is still read as a flush), which is harmless: the
    caller also takes the rank-only value of the same cards, which is then higher.
    """
    mask = sum(1 << rank for rank, count in enumerate(counts) if count)
    for top in range(14, 4, -1):
        missing = STRAIGHTS[top] & ~mask
        used = missing.bit_count()
        if used <= jokers:
            category = ROYAL_FLUSH if top == 14 else STRAIGHT_FLUSH
            taken = sum(1 << 3 * rank for rank in range(13) if missing >> rank & 1)
            return poker_value(category, [top]), used, taken
    # Best flush: every joker an ace, high to low, duplicates included.
    used = min(jokers, max(0, 5 - counts[12]))
    ranks = sorted(
        (rank + 2 for rank, count in enumerate(counts) for _ in range(count)), reverse=True
    )
    return poker_value(FLUSH, sorted([14] * used + ranks, reverse=True)[:5]), used, used << 36


def target_counts(value: int) -> list[int]:
    """The rank counts of the five cards a complete rank-only poker value stands for."""
    category = value >> CATEGORY_SHIFT
    digits = value_digits(value)
    counts = [0] * 13
    if category in (STRAIGHT, STRAIGHT_FLUSH, ROYAL_FLUSH):
        return [STRAIGHTS[digits[0]] >> rank & 1 for rank in range(13)]
    sizes = {
        FIVE_OF_A_KIND: (5,),
        FOUR_OF_A_KIND: (4, 1),
        FULL_HOUSE: (3, 2),
        THREE_OF_A_KIND: (3, 1, 1),
        TWO_PAIR: (2, 2, 1),
        PAIR: (2, 1, 1, 1),
    }.get(category, (1, 1, 1, 1, 1))
    for size, digit in zip(sizes, digits, strict=True):
        counts[digit - 2] += size
    return counts


def natural_tables() -> tuple[dict[int, int], dict[int, int]]:
    """For every multiset of 1-7 ranks (as rank counts): its best and its weakest poker value.

    One to five cards are classified directly; six and seven cards take the best (weakest) of the
    hands one card smaller, which covers every five-card subset.
    """
    high: dict[int, int] = {}
    low: dict[int, int] = {}
    # Each multiset once, grown in rank order: (rank counts, last rank added, a step per rank held).
    level: list[tuple[int, int, tuple[int, ...]]] = [(0, -1, ())]
    for size in range(1, 8):
        level = [
            (key + step, rank, held if rank == last else (*held, step))
            for key, last, held in level
            for rank in range(max(last, 0), 13)
            for step in (1 << 3 * rank,)
        ]
        for key, _, held in level:
            if size <= 5:
                high[key] = low[key] = classify(rank_counts(key))
            else:
                high[key] = max([high[key - step] for step in held])
                low[key] = min([low[key - step] for step in held])
    return high, low


class JokerRanks:
    """Best rank-only hand from natural rank counts plus jokers, in ``entries``, filled on demand.

    Key: the natural cards' rank counts ``| jokers << JOKER_SHIFT`` (five to seven cards in all).
    The value comes from giving one joker at a time every rank, down to the natural table; the
    jokers it uses are the cards of its five that the natural cards lack.
    """

    def __init__(self, natural: Callable[[int], int]) -> None:
        self.entries: dict[int, JokerEntry] = {}
        self._values: dict[int, int] = {}
        self._natural = natural

    def _value(self, key: int) -> int:
        value = self._values.get(key)
        if value is None:
            smaller = key - (1 << JOKER_SHIFT)
            grow = self._natural if smaller >> JOKER_SHIFT == 0 else self._value
            value = self._values[key] = max(grow(smaller + (1 << 3 * rank)) for rank in range(13))
        return value

    def fill(self, key: int) -> JokerEntry:
        value = self._value(key)
        held = rank_counts(key)
        taken = [max(0, want - have) for want, have in zip(target_counts(value), held, strict=True)]
        entry = value, sum(taken), sum(count << 3 * rank for rank, count in enumerate(taken))
        self.entries[key] = entry
        return entry


def suited_entry(key: int) -> JokerEntry:
    """`classify_suited` for a key: one suit's rank counts ``| jokers << JOKER_SHIFT``."""
    return classify_suited(rank_counts(key), key >> JOKER_SHIFT)


def weakest_with_a_flush(
    suited: list[int],
    others: list[int],
    rank_value: Callable[[int], int],
    suited_value: Callable[[int], int],
) -> int:
    """Weakest five of a hand where one suit holds five or more cards.

    ``suited`` and ``others`` are rank indexes of the cards in that suit and not; ``rank_value``
    values five cards by rank counts; ``suited_value`` values five one-suit cards by rank counts.
    """
    cards = [(rank, True) for rank in suited] + [(rank, False) for rank in others]
    weakest = -1
    for five in combinations(cards, 5):
        key = rank_key(tuple(rank for rank, _ in five))
        value = rank_value(key)
        if all(in_suit for _, in_suit in five):
            value = max(value, suited_value(key))
        if weakest < 0 or value < weakest:
            weakest = value
    return weakest
