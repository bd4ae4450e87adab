"""Poker hand values for High and Low (docs/rules.md section 6): pure, immutable, typed, fast.

Public API
----------
``evaluate_high(cards, wild_rank=None) -> HighValue``
    The strongest five-card hand from 1-7 cards, every card of ``wild_rank`` free to stand for any
    rank and suit. ``a > b`` means ``a`` wins High; ``a == b`` is an exact tie.
``evaluate_low(cards) -> LowValue``
    The weakest five-card poker hand from the printed cards (no wilds; straights and flushes
    count). ``a < b`` means ``a`` wins Low; ``a == b`` is an exact tie.
``best_five(cards, wild_rank=None) -> tuple[str, ...]`` and ``low_five(cards) -> tuple[str, ...]``
    For display: the printed cards making that value (all cards when fewer than five are held),
    most telling first, written ``"As"``. A wild card is shown as printed.

Both values are immutable, hashable and totally ordered among values of their own kind, with
``.category`` (one of `CATEGORIES`), ``.substitutions`` (an int; 0 for Low and natural hands) and
``.description`` (``"Full House, kings over fives"``). Nothing but the value takes part in ``==``.

Cards are two characters, rank ``23456789TJQKA`` and suit ``cdhs``, in any case; duplicates are
valid (several decks). With 1-4 cards the hand is all cards held (high cards and rank groups only,
a shorter hand comparing lower when it runs out first) and the wild rank is checked, then ignored.
High values order as (poker value, -substitutions): a wild-rank card used as printed, or left out
of the five, is not a substitution. Bad input raises `ValueError` naming the bad card or argument.
"""

import threading
from collections.abc import Iterable
from functools import lru_cache
from itertools import combinations, product
from typing import ClassVar, Final, NoReturn, Self, final

from scoring._tables import (
    CATEGORIES,
    CATEGORY_SHIFT,
    COUNT_SHIFT,
    FIVE_OF_A_KIND,
    FLUSH,
    FLUSH_FLAGS,
    FULL_HOUSE,
    HIGH_CARD,
    JOKER_SHIFT,
    RANK_FIELDS,
    RANKS,
    ROYAL_FLUSH,
    STRAIGHT,
    STRAIGHT_FLUSH,
    SUIT_BIAS,
    SUIT_SHIFT,
    SUITED_SHIFT,
    SUITS,
    TABLE_MASK,
    TWO_PAIR,
    JokerEntry,
    JokerRanks,
    card_code,
    natural_tables,
    rank_counts,
    suited_entry,
    value_digits,
    weakest_with_a_flush,
)

__all__ = [
    "CATEGORIES",
    "HighValue",
    "LowValue",
    "best_five",
    "evaluate_high",
    "evaluate_low",
    "low_five",
    "prepare",
]

_NAMES = ("two", "three", "four", "five", "six", "seven", "eight", "nine", "ten", "jack", "queen",
          "king", "ace")  # fmt: skip
_PLURALS = ("twos", "threes", "fours", "fives", "sixes", "sevens", "eights", "nines", "tens",
            "jacks", "queens", "kings", "aces")  # fmt: skip


def _describe(value: int) -> str:
    """Words for a poker value, e.g. 'Full House, kings over fives', 'Straight, ten high'."""
    category = value >> CATEGORY_SHIFT
    first, *rest = value_digits(value)
    name = CATEGORIES[category]
    if category == ROYAL_FLUSH:
        return name
    if category in (STRAIGHT, FLUSH, STRAIGHT_FLUSH):
        return f"{name}, {_NAMES[first - 2]} high"
    if category == HIGH_CARD:
        return f"{name}, {_NAMES[first - 2]}"
    if category in (FULL_HOUSE, TWO_PAIR) and rest:
        joint = "over" if category == FULL_HOUSE else "and"
        return f"{name}, {_PLURALS[first - 2]} {joint} {_PLURALS[rest[0] - 2]}"
    return f"{name}, {_PLURALS[first - 2]}"


class _Value:
    """An immutable hand value, ordered by ``_key`` among values of the same class."""

    __slots__ = ("_key",)
    _key: int
    _LOW_BITS: ClassVar[int]  # bits under the poker value in _key

    def __init__(self, key: int) -> None:
        object.__setattr__(self, "_key", key)

    def __setattr__(self, name: str, value: object) -> NoReturn:
        raise AttributeError(f"{type(self).__name__} is immutable")

    def __delattr__(self, name: str) -> NoReturn:
        raise AttributeError(f"{type(self).__name__} is immutable")

    def __reduce__(self) -> tuple[type[Self], tuple[int]]:
        return type(self), (self._key,)

    def __hash__(self) -> int:
        return hash(self._key)

    def __eq__(self, other: object) -> bool:
        if type(other) is not type(self):
            return NotImplemented
        return self._key == other._key

    def __lt__(self, other: Self) -> bool:
        if type(other) is not type(self):
            return NotImplemented
        return self._key < other._key

    def __le__(self, other: Self) -> bool:
        if type(other) is not type(self):
            return NotImplemented
        return self._key <= other._key

    def __gt__(self, other: Self) -> bool:
        if type(other) is not type(self):
            return NotImplemented
        return self._key > other._key

    def __ge__(self, other: Self) -> bool:
        if type(other) is not type(self):
            return NotImplemented
        return self._key >= other._key

    @property
    def strength(self) -> int:
        """An int ordered as values of this class are: many values sort faster by it."""
        return self._key

    @property
    def category(self) -> str:
        """One of `CATEGORIES`, spelled as docs/rules.md section 6.1 spells it."""
        return CATEGORIES[self._key >> self._LOW_BITS + CATEGORY_SHIFT]

    @property
    def ranks(self) -> tuple[int, ...]:
        """The rank digits (2..14, ace 14) the description names, in its order."""
        return tuple(value_digits(self._key >> self._LOW_BITS))

    @property
    def substitutions(self) -> int:
        """The fewest wild-card substitutions that reach this poker value (0 for Low)."""
        return 7 - (self._key & 7) if self._LOW_BITS else 0

    @property
    def description(self) -> str:
        """E.g. 'Full House, kings over fives', 'Straight Flush, queen high (1 substitution)'."""
        words = _describe(self._key >> self._LOW_BITS)
        substitutions = self.substitutions
        if substitutions:
            words += f" ({substitutions} substitution{'s' if substitutions > 1 else ''})"
        return words

    def __repr__(self) -> str:
        return f"<{type(self).__name__} {self.description}>"


@final
class HighValue(_Value):
    """A hand's strength for High; a larger value wins. Made by `evaluate_high`, not by hand."""

    __slots__ = ()
    _LOW_BITS = 3  # _key is poker value << 3 | 7 - substitutions


@final
class LowValue(_Value):
    """A hand's strength for Low; a smaller value wins. Made by `evaluate_low`, not by hand."""

    __slots__ = ()
    _LOW_BITS = 0  # _key is the poker value


# Interned values: each distinct value is one shared object.
_HIGH_VALUES: dict[int, HighValue] = {}
_LOW_VALUES: dict[int, LowValue] = {}


def _high_value(key: int) -> HighValue:
    value = _HIGH_VALUES.get(key)
    return value if value is not None else _HIGH_VALUES.setdefault(key, HighValue(key))


def _low_value(key: int) -> LowValue:
    value = _LOW_VALUES.get(key)
    return value if value is not None else _LOW_VALUES.setdefault(key, LowValue(key))


# Every spelling of every card, straight to its code (see scoring._tables for the layout).
_SPELLINGS = {
    rank + suit: (rank_index, suit_index)
    for rank_index, rank_char in enumerate(RANKS)
    for suit_index, suit_char in enumerate(SUITS)
    for rank in {rank_char, rank_char.lower()}
    for suit in {suit_char, suit_char.upper()}
}
_CANONICAL: Final = {card: RANKS[rank] + SUITS[suit] for card, (rank, suit) in _SPELLINGS.items()}
_CODES: Final = {card: card_code(rank, suit) for card, (rank, suit) in _SPELLINGS.items()}

# Per wild rank: (bit offset of its rank count, card codes, rank-count mask without it).
type _Wild = tuple[int, dict[str, int], int]
_WILDS: Final[dict[str, _Wild]] = {}
for _wild, _char in enumerate(RANKS):
    _WILDS[_char] = _WILDS[_char.lower()] = (
        3 * _wild,
        {
            card: card_code(rank, suit, wild=rank == _wild)
            for card, (rank, suit) in _SPELLINGS.items()
        },
        RANK_FIELDS & ~(7 << 3 * _wild),
    )

# (suit counts block | jokers << 16) -> bit offsets of the suits where jokers can reach a flush.
_FLUSH_REACH: Final[dict[int, tuple[int, ...]]] = {
    sum(count + 3 << 4 * suit for suit, count in enumerate(counts)) | jokers << 16: tuple(
        SUITED_SHIFT + 39 * suit for suit, count in enumerate(counts) if count + jokers >= 5
    )
    for counts in product(range(8), repeat=4)
    if sum(counts) <= 7
    for jokers in range(1, 8)
}

_BIAS: Final = SUIT_BIAS
_FIVE_CARDS: Final = 5 << COUNT_SHIFT
_EIGHT_CARDS: Final = 8 << COUNT_SHIFT
_ONE_CARD: Final = 1 << COUNT_SHIFT
# The flush flag of each suit -> bit offset of that suit's rank counts.
_FLUSH_SHIFTS: Final = {8 << SUIT_SHIFT + 4 * suit: SUITED_SHIFT + 39 * suit for suit in range(4)}
_FIVE_OF_A_KIND_FLOOR: Final = FIVE_OF_A_KIND << CATEGORY_SHIFT
_NO_CARD: Final = object()

# Filled on first use (0.2-0.3 s of CPU), not at import: rank counts -> value, for 1-7 cards.
_HIGH: dict[int, HighValue] = {}
_LOW: dict[int, LowValue] = {}
_built = False
_build_lock = threading.Lock()


def _build() -> None:
    global _built
    with _build_lock:
        if _built:
            return
        high, low = natural_tables()
        highs = {value: _high_value(value << 3 | 7) for value in set(high.values())}
        lows = {value: _low_value(value) for value in set(low.values())}
        _HIGH.update({key: highs[value] for key, value in high.items()})
        _LOW.update({key: lows[value] for key, value in low.items()})
        _built = True


def prepare() -> None:
    """Build the tables now, so the first hand a process evaluates does not wait for them."""
    _build()


def _natural_high(ranks: int) -> int:
    if not _built:
        _build()
    return _HIGH[ranks]._key >> 3


# Filled on demand, each bounded by the number of rank-count patterns (see scoring._tables).
_joker_ranks: Final = JokerRanks(_natural_high)
_JOKER_RANKS: Final = _joker_ranks.entries
_JOKER_SUITS: dict[int, JokerEntry] = {}


def _suited(key: int) -> JokerEntry:
    entry = _JOKER_SUITS.get(key)
    if entry is None:
        entry = _JOKER_SUITS[key] = suited_entry(key)
    return entry


def _rejection(cards: object, card: object, error: Exception) -> Exception:
    """The ValueError for input that a card lookup refused (or the error itself, if not ours)."""
    if isinstance(cards, str):
        return ValueError(f"cards must be a collection of card strings, not the string {cards!r}")
    if card is _NO_CARD:
        if isinstance(error, TypeError) and not hasattr(cards, "__iter__"):
            return ValueError(
                f"cards must be an iterable of card strings, not {type(cards).__name__}"
            )
        return error
    if isinstance(card, str) and card in _CODES:
        return error  # raised while iterating, not by a card
    return ValueError(
        f"not a card: {card!r} (a card is a rank from {RANKS} and a suit from {SUITS}, like 'As')"
    )


def _check_count(key: int) -> None:
    if key < _ONE_CARD:
        raise ValueError("no cards: a hand holds 1 to 7 cards")
    if key >= _EIGHT_CARDS:
        raise ValueError("more than 7 cards: a hand holds 1 to 7 cards")


def _rare_high(key: int) -> HighValue:
    """High for what one table lookup does not settle: first use, a flush, bad input."""
    _check_count(key)
    if not _built:
        _build()
    value = _HIGH.get(key & TABLE_MASK)
    if value is not None:
        return value
    suited = key >> _FLUSH_SHIFTS[key & FLUSH_FLAGS] & RANK_FIELDS
    flush = _suited(suited)[0] << 3 | 7
    value = _HIGH[key & RANK_FIELDS]  # a full house or better beats the flush
    return value if value._key > flush else _high_value(flush)


def _wild_high(key: int, shift: int, natural: int, jokers: int) -> HighValue:
    """High for five to seven cards holding at least one card of the wild rank.

    The wild-rank cards become jokers: a joker given the wild rank is the card as printed (free),
    any other identity is a substitution. The best rank-only hand and, for every suit the jokers
    can complete, the best straight flush or flush are looked up; the largest (value, -cost) wins.
    """
    found = key & natural | jokers << JOKER_SHIFT
    try:
        value, used, taken = _JOKER_RANKS[found]
    except KeyError:
        value, used, taken = _joker_ranks.fill(found)
    best = value << 3 | 7 - used + (taken >> shift & 7)
    if value < _FIVE_OF_A_KIND_FLOOR:
        for suited_shift in _FLUSH_REACH[key >> SUIT_SHIFT & 0xFFFF | jokers << 16]:
            counts = key >> suited_shift
            found = counts & natural | jokers << JOKER_SHIFT
            try:
                value, used, taken = _JOKER_SUITS[found]
            except KeyError:
                value, used, taken = _suited(found)
            # Only a wild card printed in this suit is free where a joker takes the wild rank.
            printed, wanted = counts >> shift & 7, taken >> shift & 7
            candidate = value << 3 | 7 - used + (wanted if wanted < printed else printed)
            if candidate > best:
                best = candidate
    try:
        return _HIGH_VALUES[best]
    except KeyError:
        return _high_value(best)


def evaluate_high(cards: Iterable[str], wild_rank: str | None = None) -> HighValue:
    """The High value of 1-7 cards, every card of ``wild_rank`` (once revealed) being wild."""
    key = _BIAS
    card: object = _NO_CARD
    if wild_rank is None:
        try:
            for card in cards:
                key += _CODES[card]
        except (KeyError, TypeError) as error:
            raise _rejection(cards, card, error) from None
        if key < _EIGHT_CARDS:
            try:
                return _HIGH[key & TABLE_MASK]
            except KeyError:
                pass
        return _rare_high(key)
    try:
        shift, codes, natural = _WILDS[wild_rank]
    except (KeyError, TypeError):
        raise ValueError(f"not a wild rank: {wild_rank!r} (one of {RANKS})") from None
    try:
        for card in cards:
            key += codes[card]
    except (KeyError, TypeError) as error:
        raise _rejection(cards, card, error) from None
    jokers = key >> shift & 7
    if jokers and _FIVE_CARDS <= key < _EIGHT_CARDS:
        return _wild_high(key, shift, natural, jokers)
    if key < _EIGHT_CARDS:
        try:
            return _HIGH[key & TABLE_MASK]
        except KeyError:
            pass
    return _rare_high(key)


def _rare_low(key: int) -> LowValue:
    """Low for what one table lookup does not settle: first use, a flush, bad input."""
    _check_count(key)
    if not _built:
        _build()
    value = _LOW.get(key & TABLE_MASK)
    if value is not None:
        return value
    suited = key >> _FLUSH_SHIFTS[key & FLUSH_FLAGS] & RANK_FIELDS
    return _low_value(_weakest_with_a_flush(key & RANK_FIELDS, suited))


@lru_cache(maxsize=1 << 14)
def _weakest_with_a_flush(ranks: int, suited: int) -> int:
    def listed(counts: int) -> list[int]:
        return [rank for rank, count in enumerate(rank_counts(counts)) for _ in range(count)]

    return weakest_with_a_flush(
        listed(suited),
        listed(ranks - suited),
        lambda five: _LOW[five]._key,
        lambda five: _suited(five)[0],
    )


def evaluate_low(cards: Iterable[str]) -> LowValue:
    """The Low value of 1-7 printed cards."""
    key = _BIAS
    card: object = _NO_CARD
    try:
        for card in cards:
            key += _CODES[card]
    except (KeyError, TypeError) as error:
        raise _rejection(cards, card, error) from None
    if key < _EIGHT_CARDS:
        try:
            return _LOW[key & TABLE_MASK]
        except KeyError:
            pass
    return _rare_low(key)


def _held(cards: Iterable[str]) -> tuple[str, ...]:
    """The cards as canonical strings ('As'), checked."""
    held: list[str] = []
    card: object = _NO_CARD
    try:
        for card in cards:
            held.append(_CANONICAL[card])
    except (KeyError, TypeError) as error:
        raise _rejection(cards, card, error) from None
    return tuple(held)


_STRAIGHTS = ("Straight", "Straight Flush", "Royal Flush")


def _display_order(five: Iterable[str], straight: bool, wild: str | None) -> tuple[str, ...]:
    """Larger rank groups first, then higher ranks; a wheel's ace last; wild-rank cards last."""
    ranks = [card[0] for card in five]

    def weight(card: str) -> tuple[bool, int, int]:
        rank = RANKS.index(card[0]) + 2
        if straight and rank == 14 and "5" in ranks and "K" not in ranks:
            rank = 1
        return card[0] != wild, ranks.count(card[0]), rank

    return tuple(sorted(five, key=weight, reverse=True))


def best_five(cards: Iterable[str], wild_rank: str | None = None) -> tuple[str, ...]:
    """The printed cards making the High value (all of them when fewer than five), for display."""
    held = _held(cards)
    value = evaluate_high(held, wild_rank)
    wild = wild_rank.upper() if wild_rank is not None and len(held) >= 5 else None
    five = held
    if len(held) > 5:
        five = max(combinations(held, 5), key=lambda hand: evaluate_high(hand, wild_rank))
    return _display_order(five, value.category in _STRAIGHTS, wild)


def low_five(cards: Iterable[str]) -> tuple[str, ...]:
    """The printed cards making the Low value (all of them when fewer than five), for display."""
    held = _held(cards)
    value = evaluate_low(held)
    five = held
    if len(held) > 5:
        five = min(combinations(held, 5), key=evaluate_low)
    return _display_order(five, value.category in _STRAIGHTS, None)
