"""Page languages benchmark: the same pages rendered in Spanish and in English, in one run.

    DATABASE_URL=postgres://postgres@127.0.0.1:5432/postgres REDIS_URL=redis://127.0.0.1:6379/0 \\
        .venv/bin/python bench/page_languages.py   # --players N --rounds R --database NAME

A series with a season is seeded through the services in a scratch database (created and
dropped here): two finished nights of 16 players (events.simulation), then a started League event
of `--players` players in the series, played part-way (every starting card chosen, two results
each, every Win's card kept). Four pages are requested by Django's test client, each `--rounds`
times in each language, the two languages alternating (en then es, then es then en) so that
neither always goes first: the player's page mid-game, House's dashboard, the board and the
season's table. The language is the browser's (Accept-Language), as for a player who has not
chosen one; the board's is the event's, set to the language measured before each request.
Printed: the median of each page in each language, in wall time and in the process's CPU time
(the rendering; PostgreSQL's work is the same in both languages), the es/en ratios (goal: at
most 1.1x) and the median of each round's es/en pair, and msgfmt's statistics of each catalog.
The catalogs are compiled first (scripts/compile-messages).
"""
# ruff: noqa: E402 - project imports need django.setup() first.

from __future__ import annotations

import argparse
import datetime
import os
import statistics
import subprocess
import sys
import time
from pathlib import Path
from typing import Any

ROOT = Path(__file__).resolve().parent.parent
sys.path.insert(0, str(ROOT))
os.environ["DJANGO_SETTINGS_MODULE"] = "syndicate.settings"
os.environ.setdefault("DJANGO_DEBUG", "0")
os.environ["CHANNELS_PREFIX"] = f"bench-languages-{os.getpid()}"
os.environ["CACHE_PREFIX"] = f"bench-languages-{os.getpid()}"
os.environ.setdefault("LIVE_UPDATES", "off")

import django

django.setup()

import psycopg
from django.conf import settings
from django.core.management import call_command
from django.db import connections
from django.test import Client
from psycopg import sql

from accounts.models import User
from events import services
from events.models import Event
from events.simulation import Simulation
from seasons import services as seasons

SERVER = dict(settings.DATABASES["default"])
LANGUAGES = ("en", "es")
GOAL = 1.1


def server_connection() -> psycopg.Connection[Any]:
    return psycopg.connect(
        dbname=SERVER["NAME"],
        user=SERVER.get("USER") or None,
        password=SERVER.get("PASSWORD") or None,
        host=SERVER.get("HOST") or None,
        port=str(SERVER["PORT"]) if SERVER.get("PORT") else None,
        autocommit=True,
    )


def scene(players: int) -> tuple[dict[str, str], User, User, int]:
    """The four pages' addresses, House and the player whose page is read."""
    house = User.objects.create_user(
        email="house@bench.invalid", display_name="Hattie Hollis", is_staff=True
    )
    series_id = seasons.series_create(
        by=house, name="Tuesday League", venue="The Anchor", time_zone="America/Chicago"
    ).series_id
    first = datetime.date(2026, 9, 1)
    season_id = seasons.season_create(
        series_id=series_id,
        by=house,
        name="Autumn",
        starts_on=first,
        ends_on=first + datetime.timedelta(weeks=12),
    ).season_id
    regulars = [
        User.objects.create_user(email=f"r{n}@bench.invalid", display_name=f"Regular {n}")
        for n in range(16)
    ]

    def into_series(event_id: int) -> None:
        seasons.event_series_set(event_id=event_id, series_id=series_id, by=house)

    for week in range(2):
        Simulation(
            format="league",
            players=len(regulars),
            seed=week + 1,
            house=house,
            users=regulars,
            date=first + datetime.timedelta(weeks=week),
            created=into_series,
        ).run()
    event_id = services.event_create(
        by=house,
        name="Tuesday League, week 3",
        date=first + datetime.timedelta(weeks=2),
        format="league",
        contribution=10,
        remainder_policy="Unallocated dollars roll into the next event.",
        venue="The Anchor",
        time_zone="America/Chicago",
    ).event_id
    seasons.event_series_set(event_id=event_id, series_id=series_id, by=house)
    services.registration_open(event_id=event_id, by=house)
    people = [
        User.objects.create_user(email=f"p{n}@bench.invalid", display_name=f"Player {n}")
        for n in range(players)
    ]
    registrations = [
        services.player_register(event_id=event_id, by=person).registration_id for person in people
    ]
    services.check_in_all(event_id=event_id, by=house)
    services.event_start(event_id=event_id, by=house)
    rules = Event.objects.get(pk=event_id).rules
    for n, (person, registration_id) in enumerate(zip(people, registrations, strict=True)):
        services.starting_selection_confirm(
            registration_id=registration_id, by=person, slots=list(range(rules.starting))
        )
        for game in (1, 2):
            outcome = "win" if (n + game) % 2 else "loss"
            services.result_submit(
                registration_id=registration_id, by=person, game=game, outcome=outcome
            )
            if outcome == "win":
                services.win_choice_confirm(registration_id=registration_id, by=person, slot=0)
    pages = {
        "player's page mid-game": f"/events/{event_id}/",
        "House dashboard": f"/house/events/{event_id}/",
        "board": f"/board/{event_id}/",
        "season page": f"/seasons/{season_id}/",
    }
    return pages, house, people[0], event_id


def run(players: int, rounds: int) -> None:
    pages, house, player, event_id = scene(players)

    def board_in(language: str) -> None:
        """The board reads in the event's language (set by House), whichever the browser asks
        for: each board request is made with the event's language set to the one measured."""
        Event.objects.filter(pk=event_id).update(language=language)

    clients = {}
    for page in pages:
        viewer = house if page == "House dashboard" else player
        for language in LANGUAGES:
            client = Client(HTTP_HOST="127.0.0.1", headers={"accept-language": language})
            client.force_login(viewer)
            clients[page, language] = client
    for (page, language), client in clients.items():  # warm: templates, catalogs, connections
        if page == "board":
            board_in(language)
        response = client.get(pages[page])
        assert response.status_code == 200, (page, language, response.status_code)
        assert f'<html lang="{language}">' in response.content.decode(), (page, language)
    wall: dict[tuple[str, str], list[float]] = {key: [] for key in clients}
    cpu: dict[tuple[str, str], list[float]] = {key: [] for key in clients}
    for round_ in range(rounds):
        order = LANGUAGES if round_ % 2 == 0 else LANGUAGES[::-1]
        for page, url in pages.items():
            for language in order:
                if page == "board":
                    board_in(language)
                started, started_cpu = time.perf_counter(), time.process_time()
                response = clients[page, language].get(url)
                cpu[page, language].append((time.process_time() - started_cpu) * 1000)
                wall[page, language].append((time.perf_counter() - started) * 1000)
                assert response.status_code == 200
    print(
        f"{'page':24} {'en wall':>9} {'es wall':>9} {'es/en':>6}"
        f" {'en CPU':>9} {'es CPU':>9} {'es/en':>6} {'pairs':>6}"
    )
    worst = 0.0
    for page in pages:
        en, es = (statistics.median(wall[page, language]) for language in LANGUAGES)
        en_cpu, es_cpu = (statistics.median(cpu[page, language]) for language in LANGUAGES)
        # Each round's es against the en beside it: a load that comes and goes touches both.
        pairs = statistics.median(
            b / a for a, b in zip(cpu[page, "en"], cpu[page, "es"], strict=True) if a
        )
        worst = max(worst, es_cpu / en_cpu)
        print(
            f"{page:24} {en:6.1f} ms {es:6.1f} ms {es / en:5.2f}x"
            f" {en_cpu:6.1f} ms {es_cpu:6.1f} ms {es_cpu / en_cpu:5.2f}x {pairs:5.2f}x",
            flush=True,
        )
    verdict = "met" if worst <= GOAL else "MISSED"
    print(f"worst es/en ratio of CPU medians {worst:.2f}x (goal at most {GOAL}x): {verdict}")


def catalog_statistics() -> None:
    for po in sorted((ROOT / "locale").glob("*/LC_MESSAGES/*.po")):
        checked = subprocess.run(
            ["msgfmt", "--check", "--statistics", "-o", "/dev/null", str(po)],
            capture_output=True,
            text=True,
            check=False,
        )
        figures = checked.stderr.strip().splitlines()[-1]  # after any warning on the header
        print(f"msgfmt --statistics {po.relative_to(ROOT)}: {figures}")


def main() -> None:
    parser = argparse.ArgumentParser(description=__doc__.splitlines()[0])
    parser.add_argument("--players", type=int, default=32)
    parser.add_argument("--rounds", type=int, default=40)
    parser.add_argument("--database", default="bench_page_languages")
    args = parser.parse_args()
    db = settings.DATABASES["default"]
    if "postgresql" not in db["ENGINE"] or db["NAME"] == args.database:
        sys.exit("Point DATABASE_URL at a PostgreSQL database other than the scratch one.")
    subprocess.run([str(ROOT / "scripts" / "compile-messages")], check=True)
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
        catalog_statistics()
        run(args.players, args.rounds)
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
