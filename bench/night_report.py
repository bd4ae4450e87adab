"""Night report benchmark: a 128-player event with 300 ledger lines, on PostgreSQL.

    DATABASE_URL=postgres://postgres@127.0.0.1:5432/postgres REDIS_URL=redis://127.0.0.1:6379/0 \\
        .venv/bin/python bench/night_report.py        # options: --rounds N --database NAME

The lines are written through the ledger's services as House's night page writes them: 128
entries (cash, card, online and a few comps), then 86 mistaken marks taken back and taken again
(a void and a new entry each), 300 lines in all. Then, in the same run and the same process,
House's night page, its CSV and a bare request (`/favicon.ico`, a redirect through the same
middleware) are each requested `--rounds` times by Django's test client, interleaved; medians
and the ratio are printed. The database DATABASE_URL names is only used to create and drop a
scratch database.
"""
# ruff: noqa: E402 - project imports need django.setup() first.

from __future__ import annotations

import argparse
import datetime
import os
import statistics
import sys
import time
from pathlib import Path
from typing import Any

sys.path.insert(0, str(Path(__file__).resolve().parent.parent))
os.environ["DJANGO_SETTINGS_MODULE"] = "syndicate.settings"
os.environ.setdefault("DJANGO_DEBUG", "0")
os.environ["CHANNELS_PREFIX"] = f"bench-night-{os.getpid()}"
os.environ["CACHE_PREFIX"] = f"bench-night-{os.getpid()}"
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
from ledger import services as ledger
from ledger.lines import lines_of

SERVER = dict(settings.DATABASES["default"])
PLAYERS = 128
VOIDED = 86


def server_connection() -> psycopg.Connection[Any]:
    return psycopg.connect(
        dbname=SERVER["NAME"],
        user=SERVER.get("USER") or None,
        password=SERVER.get("PASSWORD") or None,
        host=SERVER.get("HOST") or None,
        port=str(SERVER["PORT"]) if SERVER.get("PORT") else None,
        autocommit=True,
    )


def night() -> tuple[int, User]:
    house = User.objects.create_user(
        email="house@bench.invalid", display_name="House", is_staff=True
    )
    event_id = services.event_create(
        by=house,
        name="Bench night",
        date=datetime.date(2026, 12, 3),
        format="league",
        contribution=20,
        remainder_policy="Unallocated dollars roll into the next event.",
        time_zone="America/Chicago",
    ).event_id
    services.registration_open(event_id=event_id, by=house)
    registrations = []
    for n in range(PLAYERS):
        player = User.objects.create_user(email=f"p{n}@bench.invalid", display_name=f"Player {n}")
        registrations.append(services.player_register(event_id=event_id, by=player).registration_id)
    services.check_in_all(event_id=event_id, by=house)
    methods = ["cash", "card", "online", "cash", "card"]
    for n, registration_id in enumerate(registrations):
        method = "comp" if n % 40 == 0 else methods[n % len(methods)]
        ledger.entry_payment(
            event_id=event_id,
            registration_id=registration_id,
            by=house,
            method=method,
            reference=f"ref-{n}" if method == "online" else "",
            reason="Sponsor's guest" if method == "comp" else "",
        )
    for registration_id in registrations[1 : VOIDED + 1]:
        services.payment_mark(registration_id=registration_id, by=house, paid=False)
        ledger.entry_payment(
            event_id=event_id, registration_id=registration_id, by=house, method="cash"
        )
    return event_id, house


def run(rounds: int) -> None:
    event_id, house = night()
    lines = len(lines_of(Event.objects.get(pk=event_id)))
    print(f"{PLAYERS} players, {lines} ledger lines", flush=True)
    client = Client(HTTP_HOST="127.0.0.1")
    client.force_login(house)
    urls = {
        "bare request": "/favicon.ico",
        "night report page": f"/house/events/{event_id}/night",
        "night report CSV": f"/house/events/{event_id}/night.csv",
    }
    for url in urls.values():  # warm: templates compiled, connections open
        assert client.get(url).status_code < 400, url
    times: dict[str, list[float]] = {name: [] for name in urls}
    for _ in range(rounds):
        for name, url in urls.items():
            start = time.perf_counter()
            response = client.get(url)
            times[name].append((time.perf_counter() - start) * 1000)
            assert response.status_code < 400
    bare = statistics.median(times["bare request"])
    for name, values in times.items():
        median = statistics.median(values)
        p90 = sorted(values)[int(len(values) * 0.9)]
        print(
            f"{name:18} median {median:7.1f} ms  p90 {p90:7.1f} ms  x{median / bare:5.1f} the bare",
            flush=True,
        )


def main() -> None:
    parser = argparse.ArgumentParser(description=__doc__.splitlines()[0])
    parser.add_argument("--rounds", type=int, default=30)
    parser.add_argument("--database", default="bench_night_report")
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
        run(args.rounds)
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
