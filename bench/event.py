"""Event engine benchmark: 256-player League and Switch events played end to end on PostgreSQL.

    DATABASE_URL=postgres://postgres@127.0.0.1:5432/postgres REDIS_URL=redis://127.0.0.1:6379/0 \\
        .venv/bin/python bench/event.py

Everything goes through the services, as pages and the API call them. Every `result_submit` and
every keep-card call (`starting_selection_confirm`, `win_choice_confirm`) is timed, and so is a bare
one-row transaction (BEGIN, one UPDATE by primary key, COMMIT) run through the same ORM and
connection every few actions, so that both are measured under the same load.

The database named in DATABASE_URL is only used to create and drop a scratch database on the same
server (`bench_event`, see --database); the script refuses to run if that database already exists,
and on anything but PostgreSQL. DEBUG is off unless DJANGO_DEBUG says otherwise, so queries are not
recorded, as in production. Live updates run as configured (LIVE_UPDATES, "background" by
default: a worker thread in this process computes the snapshots after each commit, as it would in
the web process) and are sent under a channel prefix of their own, which nobody listens to; the
time to drain what is still queued after finalize is reported apart.
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
import uuid
from collections.abc import Callable, Iterator
from contextlib import contextmanager
from dataclasses import dataclass, field
from pathlib import Path
from typing import Any

sys.path.insert(0, str(Path(__file__).resolve().parent.parent))
os.environ["DJANGO_SETTINGS_MODULE"] = "syndicate.settings"
os.environ.setdefault("DJANGO_DEBUG", "0")
# Live updates go to channel groups named after event ids, which repeat across databases: a prefix
# of our own keeps them from reaching anyone's sockets on a shared Redis.
os.environ["CHANNELS_PREFIX"] = f"bench-event-{os.getpid()}"
os.environ["CACHE_PREFIX"] = f"bench-event-{os.getpid()}"

import django

django.setup()

import psycopg
from django.conf import settings
from django.core.management import call_command
from django.db import connection, connections, models, transaction
from django.db.models import F
from psycopg import sql

from accounts.models import User
from events import services
from events.models import Event, Registration
from live import delivery

GOAL_RATIO = 5.0  # p95 of an action within 5x the p95 of the bare transaction
GOAL_EVENT_SECONDS = 60.0


class ReferenceRow(models.Model):
    """The row the bare reference transaction updates, in a table only the scratch database has."""

    counter = models.BigIntegerField()

    class Meta:
        app_label = "bench"
        managed = False
        db_table = "bench_reference_row"

    def __str__(self) -> str:
        return f"reference row {self.pk}"


@dataclass
class Timings:
    """Per call: wall seconds, this thread's CPU seconds, statements sent (SAVEPOINTs included)."""

    seconds: list[float] = field(default_factory=list)
    cpu: list[float] = field(default_factory=list)
    statements: list[int] = field(default_factory=list)

    def median_ms(self) -> float:
        return statistics.median(self.seconds) * 1000

    def p95_ms(self) -> float:
        return statistics.quantiles(self.seconds, n=20, method="inclusive")[-1] * 1000

    def cpu_median_ms(self) -> float:
        return statistics.median(self.cpu) * 1000

    def mean_statements(self) -> float:
        return statistics.fmean(self.statements)


@dataclass
class Run:
    """One event's figures."""

    format: str
    players: int
    submit: Timings = field(default_factory=Timings)
    keep: Timings = field(default_factory=Timings)
    bare: Timings = field(default_factory=Timings)
    phases: dict[str, float] = field(default_factory=dict)
    total: float = 0.0
    drain: float = 0.0  # waiting, after finalize, for the live updates still queued
    worker_cpu: float = 0.0  # CPU seconds of the process's other threads during the event

    @property
    def actions(self) -> int:
        return len(self.submit.seconds) + len(self.keep.seconds)


class Counter:
    """Counts the statements sent on the connection (an execute wrapper: no DEBUG needed)."""

    def __init__(self) -> None:
        self.count = 0

    def __call__(self, execute: Callable[..., Any], *args: Any) -> Any:
        self.count += 1
        return execute(*args)


class Bench:
    def __init__(self, *, format: str, players: int, seed: int, reference_every: int) -> None:
        self.run = Run(format=format, players=players)
        self.rng = random.Random(seed)
        self.reference_every = reference_every
        self.counter = Counter()
        self.since_reference = 0
        self.reference_seconds = 0.0

    def measure(self, into: Timings, call: Callable[[], Any]) -> float:
        statements, cpu, start = self.counter.count, time.thread_time(), time.perf_counter()
        call()
        elapsed = time.perf_counter() - start
        into.seconds.append(elapsed)
        into.cpu.append(time.thread_time() - cpu)
        into.statements.append(self.counter.count - statements)
        return elapsed

    def timed(self, into: Timings, call: Callable[[], dict[str, Any]]) -> None:
        self.measure(into, call)
        self.since_reference += 1
        if self.since_reference >= self.reference_every:
            self.since_reference = 0
            self.reference_seconds += self.measure(self.run.bare, bare_transaction)

    @contextmanager
    def phase(self, name: str) -> Iterator[None]:
        start = time.perf_counter()
        reference_before = self.reference_seconds
        yield
        spent = time.perf_counter() - start - (self.reference_seconds - reference_before)
        self.run.phases[name] = spent

    def play(self) -> Run:
        with connection.execute_wrapper(self.counter):
            start, cpu, process = time.perf_counter(), time.thread_time(), time.process_time()
            self._play()
            self.run.total = time.perf_counter() - start - self.reference_seconds
            # What the process spent beyond this thread: the live updates worker.
            self.run.worker_cpu = time.process_time() - process - (time.thread_time() - cpu)
        start = time.perf_counter()
        if not delivery.wait_until_idle(timeout=600):
            sys.exit("The live updates worker did not catch up within 10 minutes.")
        self.run.drain = time.perf_counter() - start
        return self.run

    def _play(self) -> None:
        run = self.run
        tag = uuid.uuid4().hex[:8]
        with self.phase("accounts"):
            house = User.objects.create_user(
                email=f"house-{tag}@bench.invalid", display_name="Bench House", is_staff=True
            )
            users = [
                User.objects.create_user(
                    email=f"p{n}-{tag}@bench.invalid", display_name=f"Player {n}"
                )
                for n in range(1, run.players + 1)
            ]
        with self.phase("registration"):
            event_id = services.event_create(
                by=house,
                name=f"Bench {run.format} event",
                date=datetime.date.today(),
                format=run.format,
                contribution=10,
                remainder_policy="An indivisible High remainder goes to next event's pool.",
                venue="Benchmark",
            ).event_id
            services.registration_open(event_id=event_id, by=house)
            for user in users:
                registration_id = services.player_register(
                    event_id=event_id, by=user
                ).registration_id
                services.player_check_in(registration_id=registration_id, by=house)
        with self.phase("start"):
            services.event_start(event_id=event_id, by=house)
        event = Event.objects.get(pk=event_id)
        rules = event.rules
        registrations: list[Registration] = list(
            event.registrations.select_related("player").order_by("check_in_order")
        )
        with self.phase("starting selections"):
            for registration in registrations:
                slots = self.rng.sample(range(rules.offered), rules.starting)
                self.timed(
                    run.keep,
                    lambda r=registration, s=slots: services.starting_selection_confirm(
                        registration_id=r.pk, by=r.player, slots=s
                    ),
                )
        with self.phase("games"):
            for game in range(1, rules.games + 1):
                for registration in registrations:
                    self._game(registration, game)
        with self.phase("close, pool"):
            event.refresh_from_db()
            if event.registration_open:
                services.registration_close(event_id=event_id, by=house)
            services.pool_confirm(event_id=event_id, by=house)
        with self.phase("finalize"):
            services.event_finalize(event_id=event_id, by=house)

    def _game(self, registration: Registration, game: int) -> None:
        player = registration.player
        assert player is not None
        outcome = self.rng.choice(["win", "loss"])
        self.timed(
            self.run.submit,
            lambda: services.result_submit(
                registration_id=registration.pk, by=player, game=game, outcome=outcome
            ),
        )
        if outcome == "win":
            slot = self.rng.randrange(2)
            self.timed(
                self.run.keep,
                lambda: services.win_choice_confirm(
                    registration_id=registration.pk, by=player, slot=slot
                ),
            )


def bare_transaction() -> None:
    """The reference: BEGIN, one UPDATE of one row by primary key, COMMIT."""
    with transaction.atomic(durable=True):
        ReferenceRow.objects.filter(pk=1).update(counter=F("counter") + 1)


# --- the scratch database --------------------------------------------------------------------


SERVER = dict(settings.DATABASES["default"])  # as DATABASE_URL gave it, before the switch


def server_connection() -> psycopg.Connection[Any]:
    """An autocommit connection to the database DATABASE_URL names, for CREATE/DROP DATABASE."""
    db = SERVER
    return psycopg.connect(
        dbname=db["NAME"],
        user=db.get("USER") or None,
        password=db.get("PASSWORD") or None,
        host=db.get("HOST") or None,
        port=str(db["PORT"]) if db.get("PORT") else None,
        autocommit=True,
    )


def create_scratch(name: str) -> None:
    with server_connection() as server:
        exists = server.execute("SELECT 1 FROM pg_database WHERE datname = %s", [name]).fetchone()
        if exists:
            sys.exit(
                f"Database {name!r} already exists (a run that was killed?). "
                "Drop it yourself or choose another name with --database."
            )
        server.execute(sql.SQL("CREATE DATABASE {}").format(sql.Identifier(name)))


def drop_scratch(name: str) -> None:
    delivery.wait_until_idle(timeout=30)  # the worker's last reads need the database
    connections.close_all()
    with server_connection() as server:
        server.execute(
            sql.SQL("DROP DATABASE IF EXISTS {} WITH (FORCE)").format(sql.Identifier(name))
        )


def prepare_scratch() -> None:
    call_command("migrate", verbosity=0, interactive=False)
    with connection.cursor() as cursor:
        cursor.execute(
            "CREATE TABLE bench_reference_row (id bigint PRIMARY KEY, counter bigint NOT NULL)"
        )
        cursor.execute("INSERT INTO bench_reference_row (id, counter) VALUES (1, 0)")


# --- the report ------------------------------------------------------------------------------


def table(runs: list[Run]) -> str:
    lines = [
        "| Format | Players | Total (s) | Actions | Submit result median / p95 (ms) "
        "| Keep card median / p95 (ms) | Bare transaction median / p95 (ms) "
        "| p95 ratio submit / keep | Median ratio submit / keep | Finalize (s) |",
        "|---|---:|---:|---:|---:|---:|---:|---:|---:|---:|",
    ]
    for run in runs:
        bare_median, bare_p95 = run.bare.median_ms(), run.bare.p95_ms()
        lines.append(
            f"| {run.format.capitalize()} | {run.players} | {run.total:.1f} | {run.actions} "
            f"| {run.submit.median_ms():.2f} / {run.submit.p95_ms():.2f} "
            f"| {run.keep.median_ms():.2f} / {run.keep.p95_ms():.2f} "
            f"| {bare_median:.2f} / {bare_p95:.2f} "
            f"| {run.submit.p95_ms() / bare_p95:.1f}x / {run.keep.p95_ms() / bare_p95:.1f}x "
            f"| {run.submit.median_ms() / bare_median:.1f}x "
            f"/ {run.keep.median_ms() / bare_median:.1f}x "
            f"| {run.phases['finalize']:.2f} |"
        )
    return "\n".join(lines)


def detail(runs: list[Run]) -> str:
    names = list(runs[0].phases)
    lines = [
        "| Format | " + " | ".join(f"{name} (s)" for name in names) + " "
        "| Statements per submit / keep / bare | Client CPU median submit / keep / bare (ms) "
        "| Live updates worker CPU (s) | Drain after finalize (s) | Bare samples |",
        "|---|" + "---:|" * (len(names) + 5),
    ]
    for run in runs:
        lines.append(
            f"| {run.format.capitalize()} | "
            + " | ".join(f"{run.phases[name]:.2f}" for name in names)
            + f" | {run.submit.mean_statements():.1f} / {run.keep.mean_statements():.1f} "
            f"/ {run.bare.mean_statements():.0f} "
            f"| {run.submit.cpu_median_ms():.1f} / {run.keep.cpu_median_ms():.1f} "
            f"/ {run.bare.cpu_median_ms():.1f} | {run.worker_cpu:.1f} | {run.drain:.1f} "
            f"| {len(run.bare.seconds)} |"
        )
    return "\n".join(lines)


def goals(runs: list[Run]) -> list[str]:
    lines = []
    for run in runs:
        bare_p95 = run.bare.p95_ms()
        worst = max(run.submit.p95_ms(), run.keep.p95_ms()) / bare_p95
        lines.append(
            f"- {run.format.capitalize()}: p95 per action within {GOAL_RATIO:.0f}x of the bare "
            f"transaction: {'met' if worst <= GOAL_RATIO else 'NOT met'} ({worst:.1f}x); "
            f"event under {GOAL_EVENT_SECONDS:.0f} s: "
            f"{'met' if run.total < GOAL_EVENT_SECONDS else 'NOT met'} ({run.total:.1f} s)."
        )
    return lines


def main() -> None:
    parser = argparse.ArgumentParser(description=__doc__.splitlines()[0])
    parser.add_argument("--players", type=int, default=256)
    parser.add_argument("--seed", type=int, default=2026)
    parser.add_argument(
        "--formats", nargs="+", choices=["league", "switch"], default=["league", "switch"]
    )
    parser.add_argument("--database", default="bench_event", help="scratch database to create")
    parser.add_argument(
        "--reference-every", type=int, default=4, help="a bare transaction after every N actions"
    )
    args = parser.parse_args()

    db = settings.DATABASES["default"]
    if "postgresql" not in db["ENGINE"]:
        sys.exit("This benchmark runs on PostgreSQL only: set DATABASE_URL=postgres://...")
    if db["NAME"] == args.database:
        sys.exit(f"DATABASE_URL names {args.database!r}: point it at another database.")

    create_scratch(args.database)
    try:
        db["NAME"] = args.database  # no connection is open yet: everything below uses the scratch
        prepare_scratch()
        with connection.cursor() as cursor:
            cursor.execute("SHOW server_version")
            (version,) = cursor.fetchone()
        print(
            f"PostgreSQL {version}, Python {sys.version.split()[0]}, {os.cpu_count()} cores, "
            f"DEBUG={settings.DEBUG}, LIVE_UPDATES={delivery.mode()}, "
            f"scratch database {args.database!r}, load average {os.getloadavg()[0]:.1f}",
            flush=True,
        )
        runs = []
        for format in args.formats:
            bench = Bench(
                format=format,
                players=args.players,
                seed=args.seed,
                reference_every=args.reference_every,
            )
            runs.append(bench.play())
            print(
                f"{format}: {runs[-1].total:.1f} s, load average {os.getloadavg()[0]:.1f}",
                flush=True,
            )
    finally:
        drop_scratch(args.database)

    print()
    print(table(runs))
    print()
    print(detail(runs))
    print()
    print("\n".join(goals(runs)))


if __name__ == "__main__":
    main()
