"""What each series and season service answers: frozen dataclasses, as events.answers are (the
API derives its schema from them)."""

from __future__ import annotations

from dataclasses import dataclass
from typing import Annotated

from events.answers import Answer, Described


@dataclass(frozen=True)
class SeriesCreated(Answer):
    series_id: int


@dataclass(frozen=True)
class SeriesHouseChanged(Answer):
    series_id: int
    house: list[str]


@dataclass(frozen=True)
class SeriesOwnershipTransferred(Answer):
    """The series' owner now (already its owner: nothing changed)."""

    series_id: int
    owner: Annotated[int, Described("The owner's account id.")]


@dataclass(frozen=True)
class SeriesStaffInvited(Answer):
    """The invitation made: its token, to hand to the invitee (no email is sent)."""

    series_id: int
    invitation_id: int
    role: str
    token: Annotated[
        str, Described("What the invitee, signed in with the email, accepts the invitation with.")
    ]


@dataclass(frozen=True)
class SeriesStaffInvitationAccepted(Answer):
    """The invitee is on the series' staff, in the invitation's role."""

    series_id: int
    role: str


@dataclass(frozen=True)
class SeriesStaffInvitationCancelled(Answer):
    """The invitation is withdrawn: its link no longer works and its email is not kept."""

    series_id: int
    invitation_id: int


@dataclass(frozen=True)
class SeriesDefaultsSaved(Answer):
    """The defaults the series' events take when they are made or put in it as drafts."""

    series_id: int
    entry_mode: Annotated[str, Described("`paid` or `sponsored` (free entry).")]
    minimum_age: Annotated[int, Described("The age players confirm; 0: none asked.")]


@dataclass(frozen=True)
class EventSeriesSet(Answer):
    event_id: int
    series_id: int | None


@dataclass(frozen=True)
class NextEventCreated(Answer):
    series_id: int
    event_id: int
    date: str


@dataclass(frozen=True)
class SeasonSaved(Answer):
    """The season as saved: whether its rules are locked, how many finalized events it counts."""

    season_id: int
    locked: bool
    counted_events: int


@dataclass(frozen=True)
class ChampionshipCreated(Answer):
    season_id: int
    event_id: int
    invited: list[str]


@dataclass(frozen=True)
class SeriesDisplayLinkCreated(Answer):
    """The series' display link made: its address, shown this once (only its hash is kept)."""

    series_id: int
    link_id: int
    label: str
    path: str


@dataclass(frozen=True)
class SeriesDisplayLinkRevoked(Answer):
    """The series' display link no longer opens a board; its open displays close."""

    series_id: int
    link_id: int


ALL_SEASON_ANSWERS: tuple[type[Answer], ...] = (
    SeriesCreated,
    SeriesHouseChanged,
    SeriesOwnershipTransferred,
    SeriesStaffInvited,
    SeriesStaffInvitationAccepted,
    SeriesStaffInvitationCancelled,
    SeriesDefaultsSaved,
    SeriesDisplayLinkCreated,
    SeriesDisplayLinkRevoked,
    EventSeriesSet,
    NextEventCreated,
    SeasonSaved,
    ChampionshipCreated,
)
