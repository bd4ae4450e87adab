"""The three event formats and their numbers (docs/rules.md section 1.3)."""

from __future__ import annotations

from dataclasses import dataclass
from enum import StrEnum


class FormatName(StrEnum):
    LEAGUE = "league"
    SWITCH = "switch"
    STANDARD_V1 = "standard-v1"


@dataclass(frozen=True, slots=True)
class Format:
    name: FormatName
    label: str
    offered: int  # face-down starting cards offered
    starting: int  # starting cards kept
    games: int  # games that earn a card
    reserve: int  # drawn cards reserved per supported place
    automatic_reveal: bool

    @property
    def kept(self) -> int:
        """Cards a complete hand holds."""
        return self.starting + self.games


FORMATS: dict[FormatName, Format] = {
    FormatName.LEAGUE: Format(FormatName.LEAGUE, "League", 3, 1, 6, 15, True),
    FormatName.SWITCH: Format(FormatName.SWITCH, "Switch", 5, 3, 4, 13, True),
    FormatName.STANDARD_V1: Format(FormatName.STANDARD_V1, "Standard v1", 0, 0, 6, 12, False),
}


def format_for(name: str) -> Format:
    """The format with this machine name (`league`, `switch`, `standard-v1`)."""
    return FORMATS[FormatName(name)]
