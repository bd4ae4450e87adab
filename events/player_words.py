"""What the player's own page says in words: their hand's names, their wild's effect, a review.

Only what the player already sees goes into these words: kept cards (face up in their hand) and a
wild rank once it is revealed. A pending offer's cards never do.
"""

from __future__ import annotations

from collections.abc import Sequence
from dataclasses import dataclass
from typing import Annotated

from django.utils.translation import gettext as _
from django.utils.translation import gettext_lazy, ngettext, pgettext, pgettext_lazy

from events.answers import Described
from events.formats import Format
from events.models import Outcome, Phase, RegistrationStatus, Review
from scoring.evaluator import HighValue, LowValue, evaluate_high, evaluate_low

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


# The words the page says, in the active language (docs/decisions.md, "Languages"). The audit and
# everything stored keep scoring's English names; these are for reading only.
_CARD_COUNTS = (
    pgettext_lazy("a number of cards", "no"),
    pgettext_lazy("a number of cards", "one"),
    pgettext_lazy("a number of cards", "two"),
    pgettext_lazy("a number of cards", "three"),
    pgettext_lazy("a number of cards", "four"),
    pgettext_lazy("a number of cards", "five"),
)


def cards_words(count: int) -> str:
    """'one card', 'two cards', in the active language."""
    number = str(_CARD_COUNTS[count]) if 0 <= count < len(_CARD_COUNTS) else str(count)
    return ngettext("%(number)s card", "%(number)s cards", count) % {"number": number}


def win_keep_words(rules: Format) -> str:
    """'keep one card': what a Win's choice asks, in the active language."""
    return _("keep %(cards)s") % {"cards": cards_words(rules.win_kept)}


def win_choice_words(rules: Format) -> str:
    """'keep one of two cards': a Win's whole choice, in the active language."""
    kept = rules.win_kept
    number = str(_CARD_COUNTS[kept]) if 0 <= kept < len(_CARD_COUNTS) else str(kept)
    return _("keep %(number)s of %(cards)s") % {
        "number": number,
        "cards": cards_words(rules.win_offered),
    }


def win_offer_words(rules: Format) -> str:
    """'two face-up cards': what a Win offers, in the active language."""
    count = rules.win_offered
    number = str(_CARD_COUNTS[count]) if 0 <= count < len(_CARD_COUNTS) else str(count)
    return ngettext("%(number)s face-up card", "%(number)s face-up cards", count) % {
        "number": number
    }


# Hand categories as players say them (scoring.evaluator.CATEGORIES spells them in English).
_CATEGORY_WORDS = {
    "High Card": gettext_lazy("High Card, %(rank)s"),
    "Pair": gettext_lazy("Pair, %(ranks)s"),
    "Two Pair": gettext_lazy("Two Pair, %(ranks)s and %(second)s"),
    "Three of a Kind": gettext_lazy("Three of a Kind, %(ranks)s"),
    "Straight": gettext_lazy("Straight, %(rank)s high"),
    "Flush": gettext_lazy("Flush, %(rank)s high"),
    "Full House": gettext_lazy("Full House, %(ranks)s over %(second)s"),
    "Four of a Kind": gettext_lazy("Four of a Kind, %(ranks)s"),
    "Straight Flush": gettext_lazy("Straight Flush, %(rank)s high"),
    "Royal Flush": gettext_lazy("Royal Flush"),
    "Five of a Kind": gettext_lazy("Five of a Kind, %(ranks)s"),
}
# A Two Pair or Full House that names one rank only.
_ONE_RANK_WORDS = {
    "Two Pair": gettext_lazy("Two Pair, %(ranks)s"),
    "Full House": gettext_lazy("Full House, %(ranks)s"),
}
# Digits 2..14, as one card ("ace high") and as several ("aces").
_RANK_NAMES = {
    2: pgettext_lazy("one card", "two"),
    3: pgettext_lazy("one card", "three"),
    4: pgettext_lazy("one card", "four"),
    5: pgettext_lazy("one card", "five"),
    6: pgettext_lazy("one card", "six"),
    7: pgettext_lazy("one card", "seven"),
    8: pgettext_lazy("one card", "eight"),
    9: pgettext_lazy("one card", "nine"),
    10: pgettext_lazy("one card", "ten"),
    11: pgettext_lazy("one card", "jack"),
    12: pgettext_lazy("one card", "queen"),
    13: pgettext_lazy("one card", "king"),
    14: pgettext_lazy("one card", "ace"),
}
_RANK_PLURALS = {
    2: pgettext_lazy("several cards", "twos"),
    3: pgettext_lazy("several cards", "threes"),
    4: pgettext_lazy("several cards", "fours"),
    5: pgettext_lazy("several cards", "fives"),
    6: pgettext_lazy("several cards", "sixes"),
    7: pgettext_lazy("several cards", "sevens"),
    8: pgettext_lazy("several cards", "eights"),
    9: pgettext_lazy("several cards", "nines"),
    10: pgettext_lazy("several cards", "tens"),
    11: pgettext_lazy("several cards", "jacks"),
    12: pgettext_lazy("several cards", "queens"),
    13: pgettext_lazy("several cards", "kings"),
    14: pgettext_lazy("several cards", "aces"),
}


def hand_words(value: HighValue | LowValue) -> str:
    """A hand's name as the page says it: 'Full House, kings over fives (1 substitution)'."""
    first, *rest = value.ranks or (0,)
    second = rest[0] if rest else 0
    words = str(_CATEGORY_WORDS[value.category]) % {
        "rank": str(_RANK_NAMES.get(first, "")),
        "ranks": str(_RANK_PLURALS.get(first, "")),
        "second": str(_RANK_PLURALS.get(second, "")),
    }
    if value.category in _ONE_RANK_WORDS and not rest:
        words = str(_ONE_RANK_WORDS[value.category]) % {"ranks": str(_RANK_PLURALS.get(first, ""))}
    if value.substitutions:
        words += " " + ngettext(
            "(%(count)s substitution)", "(%(count)s substitutions)", value.substitutions
        ) % {"count": value.substitutions}
    return words


def shown_hand_words(cards: Sequence[str], wild_rank: str | None, *, low: bool) -> str:
    """The name of a hand a public page shows (a board row, a winner's five), from its cards:
    scoring's own in English, as players say it elsewhere."""
    return hand_words(evaluate_low(cards) if low else evaluate_high(cards, wild_rank or None))


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
        high=hand_words(evaluate_high(cards, wild_rank or None)),
        low=hand_words(evaluate_low(cards)),
    )


def _wild_words(rank: str, held: int) -> str:
    """The wild rank as the sentence names it: '7', 'queen'; several: '7s', 'queens'."""
    digit = list(RANK_WORDS).index(rank.upper()) + 2
    if digit <= 10:
        word = rank_word(rank)
        # Translators: a rank written as a digit, several of them ("7s").
        return (
            word
            if held <= 1
            else pgettext("several of a digit rank", "%(digit)ss") % {"digit": word}
        )
    return str((_RANK_NAMES if held <= 1 else _RANK_PLURALS)[digit])


def wild_effect(cards: Sequence[str], wild_rank: str | None) -> str | None:
    """What the revealed wild does to the High hand, in a sentence; None before the reveal."""
    if not wild_rank or not cards:
        return None
    held = sum(1 for card in cards if card[0].upper() == wild_rank.upper())
    if held == 0:
        return _("You hold no %(rank)s, so the wild does not change your High hand.") % {
            "rank": _wild_words(wild_rank, 1)
        }
    wilds = _wild_words(wild_rank, held)
    natural = evaluate_high(cards)
    wild = evaluate_high(cards, wild_rank)
    if wild.substitutions == 0:
        return _("Your best High hand, %(hand)s, needs no wild %(wild)s.") % {
            "hand": hand_words(wild),
            "wild": wilds,
        }
    return ngettext(
        "Your wild %(wild)s makes your High hand %(hand)s; "
        "without the wild it would be %(natural)s.",
        "Your wild %(wild)s make your High hand %(hand)s; "
        "without the wild it would be %(natural)s.",
        held,
    ) % {"wild": wilds, "hand": hand_words(wild), "natural": hand_words(natural)}


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
        what = _("House corrected game %(game)s from %(was)s to %(now)s and is reviewing it") % {
            "game": game,
            "was": _result_word(review.corrected_from),
            "now": _result_word(review.corrected_to),
        }
    elif game is not None:
        what = _("House is reviewing game %(game)s") % {"game": game}
    else:
        what = _("House paused your play for a review")
    return ReviewWords(
        game=game, text=_("%(what)s. Reason: %(reason)s") % {"what": what, "reason": review.reason}
    )


def _result_word(outcome: str) -> str:
    return (
        pgettext("a game's result", "a win")
        if outcome == Outcome.WIN
        else pgettext("a game's result", "a loss")
    )


# A registration's status as a sentence ends with it ("Your registration is checked in."); the
# status' own label (events/models.py) names it on its own, as a chip or a column does.
STATUS_WORDS = {
    RegistrationStatus.REGISTERED: pgettext_lazy("a registration's status", "registered"),
    RegistrationStatus.CHECKED_IN: pgettext_lazy("a registration's status", "checked in"),
    RegistrationStatus.WITHDRAWN: pgettext_lazy("a registration's status", "withdrawn"),
    RegistrationStatus.CANCELLED: pgettext_lazy("a registration's status", "cancelled"),
    RegistrationStatus.NO_SHOW: pgettext_lazy("a registration's status", "marked no-show"),
    RegistrationStatus.WAITLISTED: pgettext_lazy("a registration's status", "on the waitlist"),
    RegistrationStatus.OFFERED: pgettext_lazy("a registration's status", "offered a place"),
}


def phase_words(phase: str) -> str:
    """An event's phase in the reader's language ("Open", "Abierto"): the phase's own label."""
    return str(Phase(phase).label)


def status_words(status: str) -> str:
    """A registration's status in the reader's language, to end "Your registration is ..."."""
    return str(STATUS_WORDS[RegistrationStatus(status)])
