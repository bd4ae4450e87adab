"""What each series and season service answers: frozen dataclasses, as events.answers are (the
API derives its schema from them)."""

from __future__ import annotations

from dataclasses import dataclass

from events.answers import Answer


@dataclass(frozen=True)
class SeriesCreated(Answer):
    series_id: int


@dataclass(frozen=True)
class SeriesHouseChanged(Answer):
    series_id: int
    house: list[str]


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
    EventSeriesSet,
    NextEventCreated,
    SeasonSaved,
    ChampionshipCreated,
)
