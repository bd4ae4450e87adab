"""The prize split (docs/rules.md section 7.4): 80% High, 20% Low, whole dollars, integer arithmetic
only.

`allocate(pool, high_winners, low_winners)` returns the dollars each winner receives and what stays
unallocated for House to resolve under the event's announced remainder policy. Importable without
Django settings.
"""

from __future__ import annotations

from collections.abc import Hashable, Sequence
from dataclasses import dataclass, field


@dataclass(frozen=True, slots=True)
class Allocation[K: Hashable]:
    """The outcome of a split. `awards` holds every winner, summed when one player wins both."""

    awards: dict[K, int]
    unallocated: int
    high_share: int  # after any Low dollars moved to High
    low_share: int  # before any Low dollars moved to High
    high_each: int = 0
    low_each: int = 0
    notes: tuple[str, ...] = field(default=())


def allocate[K: Hashable](
    pool: int, high_winners: Sequence[K], low_winners: Sequence[K]
) -> Allocation[K]:
    """Split `pool` dollars between the tied High winners and the tied Low winners."""
    if isinstance(pool, bool) or not isinstance(pool, int):
        raise ValueError(f"pool must be a whole number of dollars (an int), not {pool!r}")
    if pool < 0:
        raise ValueError(f"pool must not be negative: {pool}")
    _refuse_repeats("high_winners", high_winners)
    _refuse_repeats("low_winners", low_winners)

    low_share = pool // 5
    high_share = pool - low_share
    awards: dict[K, int] = {}
    notes: list[str] = []

    low_each = 0
    if low_winners:
        low_each = low_share // len(low_winners)
        for winner in low_winners:
            awards[winner] = awards.get(winner, 0) + low_each
        moved = low_share - low_each * len(low_winners)
        if moved:
            notes.append(f"${moved} left over from the Low split moves to High.")
        high_share += moved
    else:
        notes.append(f"No eligible Low winner: the Low share of ${low_share} moves to High.")
        high_share += low_share

    high_each = 0
    if high_winners:
        high_each = high_share // len(high_winners)
        for winner in high_winners:
            awards[winner] = awards.get(winner, 0) + high_each
        unallocated = high_share - high_each * len(high_winners)
        if unallocated:
            notes.append(
                f"${unallocated} of the High share cannot be divided equally: unallocated."
            )
    else:
        unallocated = high_share
        notes.append(f"No eligible High winner: ${high_share} is unallocated.")

    return Allocation(
        awards=awards,
        unallocated=unallocated,
        high_share=high_share,
        low_share=low_share,
        high_each=high_each,
        low_each=low_each,
        notes=tuple(notes),
    )


def _refuse_repeats(name: str, winners: Sequence[Hashable]) -> None:
    if isinstance(winners, str | bytes):
        raise ValueError(f"{name} must be a sequence of winners, not a string")
    seen: set[Hashable] = set()
    for winner in winners:
        if winner in seen:
            raise ValueError(f"{name} lists {winner!r} twice")
        seen.add(winner)
