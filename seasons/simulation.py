"""A whole season played through the services, for `manage.py simulate_season` and benchmarks.

One series, one season of `events` weekly nights (events.simulation plays each night), the same
pool of players throughout: each night some stay home, one comes late and one withdraws
(events.simulation's twists, falling on different players each night), and the season's short
points lists make equal totals likely. Choices and attendance come from the seed.
"""

from __future__ import annotations

import datetime
import functools
import random
import uuid
from dataclasses import dataclass
from typing import Any

from accounts.models import User
from events.simulation import Simulation
from seasons import services
from seasons.models import Season
from seasons.reads import season_table
from seasons.standings import catch_up

FORMATS = ("league", "switch", "standard-v1")
WEEK = datetime.timedelta(days=7)


@dataclass
class SeasonSimulation:
    events: int
    players: int
    seed: int
    format: str = "league"
    contribution: int = 10
    attendance: float = 0.8  # the chance that a player comes on a given night

    def run(self) -> dict[str, Any]:
        if self.events < 1:
            raise ValueError("A season needs at least one event.")
        if self.players < 4:
            raise ValueError("A season needs at least four players (a night needs four).")
        rng = random.Random(self.seed)
        tag = uuid.uuid4().hex[:10]
        house = User.objects.create_user(
            email=f"house-{tag}@sim.invalid", display_name="Season House", is_staff=True
        )
        pool = [
            User.objects.create_user(email=f"s{n}-{tag}@sim.invalid", display_name=f"Player {n}")
            for n in range(1, self.players + 1)
        ]
        series_id = services.series_create(
            by=house, name="Simulated Thursday League", venue="Simulation", time_zone="UTC"
        ).series_id
        first = datetime.date.today() - WEEK * self.events
        season_id = services.season_create(
            series_id=series_id,
            by=house,
            name="Simulated season",
            starts_on=first,
            ends_on=first + WEEK * (self.events - 1),
            rules={
                "high_points": [3, 2, 1],
                "low_points": [2, 1],
                "attendance": 1,
                "best_of": max(1, self.events - 1),
                "min_events": max(1, self.events // 2),
                "qualifiers": min(4, self.players),
            },
        ).season_id
        played = []
        for night in range(self.events):
            came = [user for user in pool if rng.random() < self.attendance]
            while len(came) < 4:
                came.append(rng.choice([user for user in pool if user not in came]))
            rng.shuffle(came)  # the last comes late, the one before withdraws
            outcome = Simulation(
                format=self.format,
                players=len(came),
                seed=rng.randrange(2**32),
                contribution=self.contribution,
                house=house,
                users=came,
                date=first + WEEK * night,
                created=functools.partial(_into_series, series_id=series_id, by=house),
            ).run()
            played.append(outcome["event_id"])
        season = Season.objects.get(pk=season_id)
        # Each finalization was recorded after its commit; inside a caller's transaction (a test)
        # nothing has committed yet, and the nights are recorded here instead.
        catch_up(season)
        rows = season_table(season).rows
        ranks = [row.rank for row in rows]
        return {
            "series_id": series_id,
            "events": played,
            "players": self.players,
            "ranked": len(rows),
            "ties": len(ranks) - len(set(ranks)),
            "qualified": [row.player_id for row in rows if row.qualified],
            "season_id": season_id,
        }


def _into_series(event_id: int, *, series_id: int, by: User) -> None:
    services.event_series_set(event_id=event_id, series_id=series_id, by=by)


def simulate_season(
    *, events: int, players: int, seed: int, format: str = "league"
) -> dict[str, Any]:
    return SeasonSimulation(events=events, players=players, seed=seed, format=format).run()
