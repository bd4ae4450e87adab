"""Provisional and final places (docs/rules.md sections 6.6 and 6.8): pure functions over kept cards
and wild ranks.

The caller decides who is included (checked in, not withdrawn, not paused, at least one kept card);
these functions order the hands and give shared places by competition ranking (1, 1, 3).
"""

from __future__ import annotations

from collections.abc import Callable, Hashable, Iterable, Mapping, Sequence
from dataclasses import dataclass
from operator import attrgetter, itemgetter
from typing import Any

from scoring.evaluator import evaluate_high, evaluate_low


@dataclass(frozen=True, slots=True)
class Hand:
    """A player's kept cards, in the order kept, and their wild rank once revealed."""

    cards: tuple[str, ...]
    wild_rank: str | None = None


@dataclass(frozen=True, slots=True)
class Place[K: Hashable]:
    player: K
    place: int
    value: Any  # the evaluator's value (High or Low)


@dataclass(frozen=True, slots=True)
class Standings[K: Hashable]:
    high: tuple[Place[K], ...]
    low: tuple[Place[K], ...]

    def high_winners(self) -> list[K]:
        return winners(self.high)

    def low_winners(self) -> list[K]:
        return winners(self.low)

    def high_place(self, player: K) -> int | None:
        return _place_of(self.high, player)

    def low_place(self, player: K) -> int | None:
        return _place_of(self.low, player)


STRENGTH = attrgetter("strength")  # the evaluator's values, ordered as ints


def standings[K: Hashable](hands: Mapping[K, Hand]) -> Standings[K]:
    """High and Low places for every hand holding at least one card."""
    held = {player: hand for player, hand in hands.items() if hand.cards}
    high = {p: evaluate_high(h.cards, h.wild_rank) for p, h in held.items()}
    low = {p: evaluate_low(h.cards) for p, h in held.items()}
    return Standings(
        high=competition_places(high, best_is_highest=True, key=STRENGTH),
        low=competition_places(low, best_is_highest=False, key=STRENGTH),
    )


def competition_places[K: Hashable](
    values: Mapping[K, Any],
    *,
    best_is_highest: bool,
    key: Callable[[Any], Any] | None = None,
) -> tuple[Place[K], ...]:
    """Order players best first; place = 1 + the number of players strictly better.

    Tied players keep the mapping's order, so callers list players in a stable order. `key`, if
    given, maps each value to one ordered (and equal) as the values are, to sort by.
    """
    order = [
        (value if key is None else key(value), player, value) for player, value in values.items()
    ]
    order.sort(key=itemgetter(0), reverse=best_is_highest)
    places: list[Place[K]] = []
    previous = None
    for position, (ordered, player, value) in enumerate(order):
        tied = position > 0 and ordered == previous
        place = places[-1].place if tied else position + 1
        places.append(Place(player=player, place=place, value=value))
        previous = ordered
    return tuple(places)


def winners[K: Hashable](places: Iterable[Place[K]]) -> list[K]:
    """Every player in first place (several when tied)."""
    return [entry.player for entry in places if entry.place == 1]


def _place_of[K: Hashable](places: Sequence[Place[K]], player: K) -> int | None:
    for entry in places:
        if entry.player == player:
            return entry.place
    return None
