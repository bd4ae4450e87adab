"""Season benchmark: 52 weekly events of 64 players, on PostgreSQL.

    DATABASE_URL=postgres://postgres@127.0.0.1:5432/postgres REDIS_URL=redis://127.0.0.1:6379/0 \\
        .venv/bin/python bench/season.py            # options: --weeks N --players N --rounds N

A series and its season hold 51 finalized weeks (their events, audit heads and registrations
with final places written directly, then recorded by the season as after each finalization) and
a 52nd event of the same 64 players played through the services. Measured in one run, side by side:

- the season's update for the 52nd finalization (`seasons.standings.record_event`, what the
  listener runs after the commit: that event's rows and its players' totals), against recomputing
  the season from every event, as a design that keeps no rows or totals would;
- the season page, its projector view, the JSON export and the API's season table (Django's test
  client, in process), against a bare request (`/healthz`) in the same run.

The database DATABASE_URL names is only used to create and drop a scratch database on the same
server. Figures: docs/performance.md, "Seasons".
"""
# ruff: noqa: E402 - project imports need django.setup() first.

from __future__ import annotations

import argparse
import datetime
import os
import random
import statistics
import sys
import time
from collections.abc import Callable
from pathlib import Path
from typing import Any

sys.path.insert(0, str(Path(__file__).resolve().parent.parent))
os.environ["DJANGO_SETTINGS_MODULE"] = "syndicate.settings"
os.environ.setdefault("DJANGO_DEBUG", "0")
os.environ["CHANNELS_PREFIX"] = f"bench-season-{os.getpid()}"
os.environ["CACHE_PREFIX"] = f"bench-season-{os.getpid()}"
os.environ.setdefault("LIVE_UPDATES", "off")
os.environ.setdefault("API_THROTTLE_RATES", "address=off,account_read=off,account_write=off")

import django

django.setup()

import psycopg
from django.conf import settings
from django.core.management import call_command
from django.db import connections, transaction
from django.test import Client
from django.utils import timezone
from psycopg import sql

from accounts.models import User
from audit.writer import PendingEntry, chain
from events import changes
from events.models import Event, Phase, Registration, RegistrationStatus
from events.simulation import Simulation
from seasons import services, standings
from seasons.models import Season, SeasonResult, SeasonStanding, SeriesEvent

SERVER = dict(settings.DATABASES["default"])
WEEK = datetime.timedelta(days=7)


def server_connection() -> psycopg.Connection[Any]:
    return psycopg.connect(
        dbname=SERVER["NAME"],
        user=SERVER.get("USER") or None,
        password=SERVER.get("PASSWORD") or None,
        host=SERVER.get("HOST") or None,
        port=str(SERVER["PORT"]) if SERVER.get("PORT") else None,
        autocommit=True,
    )


def timed(call: Callable[[], object], rounds: int) -> list[float]:
    times = []
    for _ in range(rounds):
        start = time.perf_counter()
        call()
        times.append((time.perf_counter() - start) * 1000)
    return sorted(times)


def shown(name: str, times: list[float], reference: list[float] | None = None) -> str:
    median = statistics.median(times)
    p95 = times[max(0, int(len(times) * 0.95) - 1)]
    line = f"{name:<44} median {median:7.2f} ms   p95 {p95:7.2f} ms"
    if reference is not None:
        line += f"   x{median / statistics.median(reference):.1f} the reference's median"
    return line


def past_weeks(season: Season, players: list[User], weeks: int, seed: int) -> list[int]:
    """What `weeks` finalized events leave in the engine: each event (finalized, with an audit
    entry) and its registrations with their final places (random; some withdrew), written
    directly. The season records each as the listener does after a finalization."""
    rng = random.Random(seed)
    made = []
    now = timezone.now()
    for week in range(weeks):
        event = Event.objects.create(
            name="Thursday League", date=season.starts_on + WEEK * week, format="league",
            venue="The Dock", finalized_at=now, commitment="0" * 64,
        )  # fmt: skip
        # In its series while a draft: a started or finalized event stays where it is.
        SeriesEvent.objects.create(event=event, series=season.series)
        event.phase = Phase.FINALIZED
        event.save(update_fields=["phase"])
        entry = PendingEntry("system", "system", "event_finalized", None, {}, None)
        for row in chain(event, [entry], now):
            row.save()
        event.save(update_fields=["audit_seq", "audit_hash"])
        came = [p for p in players if rng.random() < 0.85]
        high = list(range(1, len(came) + 1))
        low = list(range(1, len(came) + 1))
        rng.shuffle(high)
        rng.shuffle(low)
        registrations = []
        for index, player in enumerate(came):
            left = rng.random() < 0.05
            registrations.append(
                Registration(
                    event=event, player=player, label=player.display_name,
                    status=RegistrationStatus.WITHDRAWN if left else RegistrationStatus.CHECKED_IN,
                    checked_in_at=now, check_in_order=index + 1,
                    high_place=None if left else high[index],
                    low_place=None if left else low[index], award=0,
                )
            )  # fmt: skip
        Registration.objects.bulk_create(registrations)
        made.append(event.pk)
    for event_id in made:
        standings.record_event(event_id=event_id)
    return made


def whole_season(season: Season) -> None:
    """The reference: the season recomputed from every event, as a design that does not keep
    its rows and totals would at each finalization."""
    with transaction.atomic():
        SeasonStanding.objects.filter(season=season).delete()
        SeasonResult.objects.filter(season=season).delete()
    standings.catch_up(season)


def run(weeks: int, players: int, rounds: int) -> None:
    house = User.objects.create_user(
        email="house@example.com", password=None, display_name="House", is_staff=True
    )
    users = [
        User.objects.create_user(email=f"p{n}@example.com", password=None, display_name=f"P {n}")
        for n in range(players)
    ]
    series_id = services.series_create(by=house, name="Thursday League at The Dock").series_id
    first = datetime.date(2025, 1, 2)
    season_id = services.season_create(
        series_id=series_id, by=house, name="2025", starts_on=first,
        ends_on=first + WEEK * (weeks - 1), rules={"best_of": 40},
    ).season_id  # fmt: skip
    season = Season.objects.select_related("series").get(pk=season_id)
    start = time.perf_counter()
    past_weeks(season, users, weeks - 1, seed=7)
    print(f"{weeks - 1} past weeks written in {time.perf_counter() - start:.1f} s", flush=True)

    # The last week is played through the services; the season listener is taken off so that
    # its work is timed on its own below.
    changes._listeners.remove(standings.on_change)
    start = time.perf_counter()
    event_id = Simulation(
        format="league", players=players, seed=11, house=house, users=users,
        date=first + WEEK * (weeks - 1),
        created=lambda pk: services.event_series_set(event_id=pk, series_id=series_id, by=house),
    ).run()["event_id"]  # fmt: skip
    print(f"week {weeks}: {players} players played to finalization in "
          f"{time.perf_counter() - start:.1f} s", flush=True)  # fmt: skip

    def forget_last_week() -> None:
        with transaction.atomic():
            SeasonResult.objects.filter(season=season, event_id=event_id).delete()
            standings.rebuild_totals(season, [u.pk for u in users])

    update: list[float] = []
    for _ in range(rounds):
        forget_last_week()
        start = time.perf_counter()
        assert standings.record_event(event_id=event_id) == 1
        update.append((time.perf_counter() - start) * 1000)
    update.sort()
    print(shown("finalization's season update (incremental)", update))
    print(
        shown(
            "the season from every event (reference)",
            timed(lambda: whole_season(season), max(3, rounds // 4)),
        )
    )

    client = Client(HTTP_HOST="127.0.0.1")
    bare = timed(lambda: client.get("/healthz"), rounds * 5)
    print(shown("bare request: /healthz (reference)", bare))
    for name, path in (
        ("season page", f"/seasons/{season_id}/"),
        ("projector view", f"/seasons/{season_id}/board/"),
        ("JSON export", f"/seasons/{season_id}/season.json"),
        ("API: season table", f"/api/seasons/{season_id}/"),
        ("API: season download", f"/api/seasons/{season_id}/download/"),
    ):
        assert client.get(path).status_code == 200, path
        print(shown(name, timed(lambda path=path: client.get(path), rounds * 5), bare))


def main() -> None:
    parser = argparse.ArgumentParser(description=__doc__.splitlines()[0])
    parser.add_argument("--weeks", type=int, default=52)
    parser.add_argument("--players", type=int, default=64)
    parser.add_argument("--rounds", type=int, default=20)
    parser.add_argument("--database", default="bench_season")
    args = parser.parse_args()
    db = settings.DATABASES["default"]
    if "postgresql" not in db["ENGINE"] or db["NAME"] == args.database:
        sys.exit("Point DATABASE_URL at a PostgreSQL database other than the scratch one.")
    with server_connection() as server:
        if server.execute(
            "SELECT 1 FROM pg_database WHERE datname = %s", [args.database]
        ).fetchone():
            sys.exit(f"Database {args.database!r} already exists: drop it or choose another.")
        server.execute(sql.SQL("CREATE DATABASE {}").format(sql.Identifier(args.database)))
    try:
        db["NAME"] = args.database
        call_command("migrate", verbosity=0, interactive=False)
        print(f"Python {sys.version.split()[0]}, {os.cpu_count()} cores, "
              f"load average {os.getloadavg()[0]:.1f}", flush=True)  # fmt: skip
        run(args.weeks, args.players, args.rounds)
    finally:
        connections.close_all()
        with server_connection() as server:
            server.execute(
                sql.SQL("DROP DATABASE IF EXISTS {} WITH (FORCE)").format(
                    sql.Identifier(args.database)
                )
            )


if __name__ == "__main__":
    main()
