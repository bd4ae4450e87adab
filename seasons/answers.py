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
class SeriesDefaultsSaved(Answer):
    """The defaults the series' events take when they are made or put in it as drafts."""

    series_id: int
    entry_mode: Annotated[str, Described("`paid` or `sponsored` (free entry).")]
    minimum_age: Annotated[int, Described("The age players confirm; 0: none asked.")]
    capacity: Annotated[int | None, Described("The most players who hold a place; null: no cap.")]
    hold_minutes: Annotated[
        int, Described("Minutes an offered or unpaid place is held before the event's day.")
    ]
    day_hold_minutes: Annotated[int, Described("The same on the event's day.")]
    pay_ahead: Annotated[
        bool, Described("The entry is paid online when registering, where Stripe is configured.")
    ]
    registration_opens_days_before: Annotated[
        int | None,
        Described("Registration opens at midnight this many days before; null: no bound."),
    ]
    registration_closes_time: Annotated[
        str | None,
        Described("Registration closes at this time (HH:MM) on the event's day; null: no bound."),
    ]
    language: Annotated[
        str, Described("The language the series' new events take; empty: the venue's.")
    ]


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


ALL_SEASON_ANSWERS: tuple[type[Answer], ...] = (
    SeriesCreated,
    SeriesDefaultsSaved,
    EventSeriesSet,
    NextEventCreated,
    SeasonSaved,
    ChampionshipCreated,
)
