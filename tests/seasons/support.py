"""Seasons built through the real services: a series, its House, nights played by
events.simulation with the same people, and a check that a refusal changed nothing."""

from __future__ import annotations

import datetime
import functools
from collections.abc import Callable, Iterator, Sequence
from contextlib import contextmanager
from dataclasses import dataclass, field
from typing import Any

import pytest
from django.test import TestCase

from accounts.models import User
from events.errors import DomainError
from events.simulation import Simulation
from seasons import services
from seasons.models import (
    ChampionshipInvitation,
    PlayerKey,
    Season,
    SeasonResult,
    SeasonStanding,
    Series,
)
from staff.models import Membership
from tests.factories import make_user

FIRST = datetime.date(2026, 9, 3)
WEEK = datetime.timedelta(days=7)


@dataclass
class League:
    house: User
    series_id: int
    players: list[User] = field(default_factory=list)
    season_id: int | None = None

    @property
    def season(self) -> Season:
        assert self.season_id is not None
        return Season.objects.get(pk=self.season_id)

    def open_season(self, rules: dict[str, Any] | None = None, weeks: int = 10) -> int:
        self.season_id = services.season_create(
            series_id=self.series_id,
            by=self.house,
            name="Autumn",
            starts_on=FIRST,
            ends_on=FIRST + WEEK * (weeks - 1),
            rules=rules,
        ).season_id
        return self.season_id

    def night(self, week: int, players: Sequence[User], seed: int = 1) -> int:
        """Play a whole night of the series (its finalization recorded after the commit, as in
        production); with four or more players one comes late and one withdraws."""
        with TestCase.captureOnCommitCallbacks(execute=True):
            return self._play(week, players, seed)

    def _play(self, week: int, players: Sequence[User], seed: int) -> int:
        return int(
            Simulation(
                format="league",
                players=len(players),
                seed=seed,
                house=self.house,
                users=list(players),
                date=FIRST + WEEK * week,
                created=functools.partial(_into_series, series_id=self.series_id, by=self.house),
            ).run()["event_id"]
        )


def _into_series(event_id: int, *, series_id: int, by: User) -> None:
    services.event_series_set(event_id=event_id, series_id=series_id, by=by)


def make_league(players: int = 5) -> League:
    house = make_user("House", staff=True)
    series_id = services.series_create(
        by=house, name="Thursday League at The Dock", venue="The Dock", time_zone="Europe/London"
    ).series_id
    return League(
        house=house,
        series_id=series_id,
        players=[make_user(f"Player {n}") for n in range(1, players + 1)],
    )


def seasons_snapshot() -> dict[str, Any]:
    """Every row of the seasons app, with every field, and the series' House."""
    return {
        "series": list(Series.objects.order_by("pk").values()),
        "house": sorted(
            Membership.objects.of_kind(Series).values_list("scope_id", "user_id", "role")
        ),
        "seasons": list(Season.objects.order_by("pk").values()),
        "results": list(SeasonResult.objects.order_by("pk").values()),
        "standings": list(SeasonStanding.objects.order_by("pk").values()),
        "keys": list(PlayerKey.objects.order_by("pk").values()),
        "invitations": list(ChampionshipInvitation.objects.order_by("pk").values()),
    }


@contextmanager
def seasons_unchanged() -> Iterator[None]:
    before = seasons_snapshot()
    yield
    assert seasons_snapshot() == before, "a refused change changed a series or season"


def refused_season(error: type[DomainError], call: Callable[[], object]) -> DomainError:
    """`call` raises exactly `error` and changes no series or season."""
    with seasons_unchanged(), pytest.raises(DomainError) as caught:
        call()
    assert type(caught.value) is error, f"expected {error.__name__}, got {caught.value!r}"
    return caught.value
