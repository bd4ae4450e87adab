"""The event formats: each states its whole shape, and the numbers derived from it (docs/rules.md
section 1.3).

Everything that deals, checks, counts or words a hand reads its format; no other module repeats
these numbers. A format is registered in `FORMATS` under its machine name, which `Event.format`
stores.
"""

from __future__ import annotations

from dataclasses import dataclass
from enum import StrEnum

from django.utils.translation import gettext, gettext_noop


class FormatName(StrEnum):
    LEAGUE = "league"
    SWITCH = "switch"
    STANDARD_V1 = "standard-v1"


NUMBER_WORDS = ("no", "one", "two", "three", "four", "five", "six", "seven", "eight", "nine")


def number_word(n: int) -> str:
    """A small count in words, as the rules say it ("one of two cards")."""
    return NUMBER_WORDS[n] if 0 <= n < len(NUMBER_WORDS) else str(n)


def cards_word(n: int) -> str:
    return f"{number_word(n)} card{'' if n == 1 else 's'}"


@dataclass(frozen=True, slots=True, kw_only=True)
class Format:
    """One format's shape: the starting offer, the games, and what a Win and a Loss deal."""

    name: str
    label: str
    offered: int  # face-down starting cards offered
    starting: int  # starting cards kept
    games: int  # games that earn cards
    win_offered: int = 2  # face-up cards a Win offers
    win_kept: int = 1  # of them, the cards the player keeps
    loss_dealt: int = 1  # cards a Loss deals straight into the hand
    automatic_reveal: bool

    def __post_init__(self) -> None:
        if not 0 <= self.starting <= self.offered:
            raise ValueError(
                f"{self.name}: keeps {self.starting} of {self.offered} starting cards."
            )
        if self.offered and not self.starting:
            raise ValueError(f"{self.name}: a starting offer keeps at least one card.")
        if self.games < 1:
            raise ValueError(f"{self.name}: a format plays at least one game.")
        if not 1 <= self.win_kept <= self.win_offered:
            raise ValueError(f"{self.name}: a Win keeps {self.win_kept} of {self.win_offered}.")
        # Every game adds as many cards whatever its result, so every complete hand has one size
        # and a Win -> Loss correction moves no card (docs/rules.md section 5).
        if self.loss_dealt != self.win_kept:
            raise ValueError(f"{self.name}: a Loss deals as many cards as a Win keeps.")
        # A win choice names one slot and its answer one card (the API's contract).
        if self.win_kept != 1:
            raise ValueError(f"{self.name}: a Win keeps one card.")

    @property
    def kept(self) -> int:
        """Cards a complete hand holds."""
        return self.starting + self.games * self.win_kept

    @property
    def reserve(self) -> int:
        """Stock cards reserved per supported place: the starting offer and, for every game,
        the larger of what a Win offers and a Loss deals (docs/rules.md section 2)."""
        return self.offered + self.games * max(self.win_offered, self.loss_dealt)

    # The rules' words for this shape, so no text repeats a number.

    @property
    def win_offer_words(self) -> str:
        """ "two face-up cards" """
        return f"{number_word(self.win_offered)} face-up cards"

    @property
    def win_kept_word(self) -> str:
        """ "one" """
        return number_word(self.win_kept)

    @property
    def win_discard_words(self) -> str:
        """ "The other card is discarded." """
        left = self.win_offered - self.win_kept
        if left == 1:
            return "The other card is discarded."
        return f"The other {cards_word(left)} are discarded."

    @property
    def win_keep_words(self) -> str:
        """ "keep one card" """
        return f"keep {cards_word(self.win_kept)}"

    @property
    def win_choice_words(self) -> str:
        """ "keep one of two cards" """
        return f"keep {number_word(self.win_kept)} of {cards_word(self.win_offered)}"

    @property
    def label_words(self) -> str:
        """The format's name as the active language says it (`label` is the English one)."""
        return gettext(self.label)

    @property
    def loss_words(self) -> str:
        """ "one card" """
        return cards_word(self.loss_dealt)


FORMATS: dict[str, Format] = {
    FormatName.LEAGUE: Format(
        name=FormatName.LEAGUE,
        label=gettext_noop("League"),
        offered=3,
        starting=1,
        games=6,
        automatic_reveal=True,
    ),
    FormatName.SWITCH: Format(
        name=FormatName.SWITCH,
        label=gettext_noop("Switch"),
        offered=5,
        starting=3,
        games=4,
        automatic_reveal=True,
    ),
    FormatName.STANDARD_V1: Format(
        name=FormatName.STANDARD_V1,
        label=gettext_noop("Standard v1"),
        offered=0,
        starting=0,
        games=6,
        automatic_reveal=False,
    ),
}


def format_for(name: str) -> Format:
    """The format with this machine name (`league`, `switch`, `standard-v1`); KeyError if none."""
    return FORMATS[name]
