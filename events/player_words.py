"""What the player's own page says in words: their hand's names, their wild's effect, a review.

Only what the player already sees goes into these words: kept cards (face up in their hand) and a
wild rank once it is revealed. A pending offer's cards never do.
"""

from __future__ import annotations

from collections.abc import Sequence
from dataclasses import dataclass
from typing import Annotated

from events.answers import Described
from events.models import Outcome, Review
from scoring.evaluator import evaluate_high, evaluate_low

RANK_WORDS = {
    "2": "2",
    "3": "3",
    "4": "4",
    "5": "5",
    "6": "6",
    "7": "7",
    "8": "8",
    "9": "9",
    "T": "10",
    "J": "jack",
    "Q": "queen",
    "K": "king",
    "A": "ace",
}


def rank_word(rank: str) -> str:
    """'T' -> '10', 'Q' -> 'queen'."""
    return RANK_WORDS.get(rank.upper(), rank)


@dataclass(frozen=True, slots=True)
class HandNames:
    """The kept cards' High and Low names (null before any)."""

    high: Annotated[
        str | None, Described("'Three of a Kind, twos'; the wild counts once revealed.")
    ]
    low: str | None


def hand_names(cards: Sequence[str], wild_rank: str | None) -> HandNames:
    """The High and Low names of the kept cards ('Three of a Kind, twos'); None before any."""
    if not cards:
        return HandNames(high=None, low=None)
    return HandNames(
        high=evaluate_high(cards, wild_rank or None).description,
        low=evaluate_low(cards).description,
    )


def wild_effect(cards: Sequence[str], wild_rank: str | None) -> str | None:
    """What the revealed wild does to the High hand, in a sentence; None before the reveal."""
    if not wild_rank or not cards:
        return None
    word = rank_word(wild_rank)
    held = sum(1 for card in cards if card[0].upper() == wild_rank.upper())
    if held == 0:
        return f"You hold no {word}, so the wild does not change your High hand."
    plural = f"{word}s" if held > 1 else word
    natural = evaluate_high(cards)
    wild = evaluate_high(cards, wild_rank)
    if wild.substitutions == 0:
        return f"Your best High hand, {wild.description}, needs no wild {plural}."
    return (
        f"Your wild {plural} make{'' if held > 1 else 's'} your High hand {wild.description}; "
        f"without the wild it would be {natural.description}."
    )


@dataclass(frozen=True, slots=True)
class ReviewWords:
    """What House is reviewing and why, for the paused player."""

    game: int | None
    text: Annotated[str, Described("What House is reviewing and why, in words.")]


def review_words(review: Review | None) -> ReviewWords | None:
    """What House is reviewing and why, for the paused player; None without an open review."""
    if review is None:
        return None
    game = review.result.game if review.result is not None else None
    if game is not None and review.corrected_to:
        was = "a win" if review.corrected_from == Outcome.WIN else "a loss"
        now = "a win" if review.corrected_to == Outcome.WIN else "a loss"
        what = f"House corrected game {game} from {was} to {now} and is reviewing it"
    elif game is not None:
        what = f"House is reviewing game {game}"
    else:
        what = "House paused your play for a review"
    return ReviewWords(game=game, text=f"{what}. Reason: {review.reason}")
