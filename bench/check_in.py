"""Check-in benchmark: a crowd arriving at once, on PostgreSQL.

    DATABASE_URL=postgres://postgres@127.0.0.1:5432/postgres REDIS_URL=redis://127.0.0.1:6379/0 \\
        .venv/bin/python bench/check_in.py            # options: --players N --database NAME

Three ways in, each through the services as pages and the API call them: House's "check in all
registered" (one transaction for everyone), players checking themselves in with the event's code
(one transaction each), and House's one-tap check-in (one transaction each). The database
DATABASE_URL names is only used to create and drop a scratch database on the same server.
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
os.environ["CHANNELS_PREFIX"] = f"bench-check-in-{os.getpid()}"
os.environ["CACHE_PREFIX"] = f"bench-check-in-{os.getpid()}"
os.environ.setdefault("LIVE_UPDATES", "off")

import django

django.setup()

import psycopg
from django.conf import settings
from django.core.management import call_command
from django.db import connections
from psycopg import sql

from accounts.models import User
from events import services

SERVER = dict(settings.DATABASES["default"])


def server_connection() -> psycopg.Connection[Any]:
    return psycopg.connect(
        dbname=SERVER["NAME"],
        user=SERVER.get("USER") or None,
        password=SERVER.get("PASSWORD") or None,
        host=SERVER.get("HOST") or None,
        port=str(SERVER["PORT"]) if SERVER.get("PORT") else None,
        autocommit=True,
    )


def event_with_registrations(house: User, players: int, tag: str) -> tuple[int, list[User]]:
    event_id = services.event_create(
        by=house, name=f"Bench {tag}", date=datetime.date(2026, 12, 3), format="league",
        contribution=10, remainder_policy="Rolls over.",
    ).event_id  # fmt: skip
    services.registration_open(event_id=event_id, by=house)
    users = [
        User.objects.create_user(
            email=f"{tag}-{n}@example.com", password=None, display_name=f"{tag} {n}"
        )
        for n in range(players)
    ]
    for user in users:
        services.player_register(event_id=event_id, by=user)
    return event_id, users


def each(calls: list[Any]) -> tuple[float, float]:
    """Median and 95th percentile of one call, in ms."""
    times = []
    for call in calls:
        start = time.perf_counter()
        call()
        times.append((time.perf_counter() - start) * 1000)
    times.sort()
    return statistics.median(times), times[int(len(times) * 0.95) - 1]


def run(players: int) -> None:
    house = User.objects.create_user(
        email="house@example.com", password=None, display_name="House", is_staff=True
    )
    event_id, _ = event_with_registrations(house, players, "all")
    start = time.perf_counter()
    services.check_in_all(event_id=event_id, by=house)
    whole = time.perf_counter() - start
    print(f"check in all {players} registered, one transaction: {whole * 1000:.0f} ms "
          f"({whole * 1000 / players:.2f} ms a player)")  # fmt: skip

    event_id, users = event_with_registrations(house, players, "self")
    code = services.self_check_in_switch(event_id=event_id, by=house, enabled=True).code
    median, p95 = each(
        [
            lambda user=user: services.self_check_in(
                event_id=event_id, by=user, code=code, idempotency_key=f"self-{user.pk}"
            )
            for user in users
        ]
    )
    print(f"self check-in with the code, {players} players one after another: "
          f"median {median:.2f} ms, p95 {p95:.2f} ms")  # fmt: skip

    event_id, users = event_with_registrations(house, players, "tap")
    from events.models import Registration

    ids = list(
        Registration.objects.filter(event_id=event_id).order_by("pk").values_list("pk", flat=True)
    )
    median, p95 = each(
        [
            lambda rid=rid: services.player_check_in(
                registration_id=rid, by=house, idempotency_key=f"tap-{rid}"
            )
            for rid in ids
        ]
    )
    print(f"House one-tap check-in, {players} players one after another: "
          f"median {median:.2f} ms, p95 {p95:.2f} ms")  # fmt: skip


def main() -> None:
    parser = argparse.ArgumentParser(description=__doc__.splitlines()[0])
    parser.add_argument("--players", type=int, default=300)
    parser.add_argument("--database", default="bench_check_in")
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
        run(args.players)
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
