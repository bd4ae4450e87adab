"""How soon House sees the standby copy change: the keeper's report to the panel on open House
pages, against a frame relayed to the same sockets through the same group without a render.

    DATABASE_URL=postgres://postgres@127.0.0.1:5432/postgres REDIS_URL=redis://127.0.0.1:6379/0 \\
        .venv/bin/python bench/standby_panel.py        # options: --sockets N --rounds N --silent N

Every House socket is real (the project's ASGI application with channels' WebsocketCommunicator,
the Redis channel layer, a scratch database on DATABASE_URL's server), in this one process.

- Told: `standby.state.publish` of a changed copy (in step, behind, lost, in turn), until every
  socket has the panel's frame. Reference, in the same run and interleaved: a frame sent to group
  "standby" that each socket relays as it is (`live_snapshot`), until every socket has it.
- Silent: the keeper reports "in step" once and never again (a dead keeper); the time from that
  report until every socket shows the copy as lost, with no message sent.
"""
# ruff: noqa: E402 - project imports need django.setup() first.

from __future__ import annotations

import argparse
import asyncio
import datetime
import json
import os
import statistics
import sys
import time
from pathlib import Path
from typing import Any

sys.path.insert(0, str(Path(__file__).resolve().parent.parent))
os.environ["DJANGO_SETTINGS_MODULE"] = "syndicate.settings"
os.environ.setdefault("DJANGO_DEBUG", "0")
os.environ["CHANNELS_PREFIX"] = f"bench-standby-{os.getpid()}"
os.environ["CACHE_PREFIX"] = f"bench-standby-{os.getpid()}"
os.environ.setdefault("LIVE_UPDATES", "off")

import django

django.setup()

import psycopg
from asgiref.sync import sync_to_async
from channels.layers import get_channel_layer
from channels.testing import WebsocketCommunicator
from django.conf import settings
from django.core.management import call_command
from django.db import connections
from django.test import Client
from psycopg import sql

from accounts.models import User
from events import services
from live import protocol
from standby import state
from standby.state import Copy
from syndicate.asgi import application

SERVER = dict(settings.DATABASES["default"])
WAIT = 60.0


def server_connection() -> psycopg.Connection[Any]:
    return psycopg.connect(
        dbname=SERVER["NAME"],
        user=SERVER.get("USER") or None,
        password=SERVER.get("PASSWORD") or None,
        host=SERVER.get("HOST") or None,
        port=str(SERVER["PORT"]) if SERVER.get("PORT") else None,
        autocommit=True,
    )


def house_and_event() -> tuple[bytes, int]:
    house = User.objects.create_user(
        email="house@example.com", password=None, display_name="House", is_staff=True
    )
    event_id = services.event_create(
        by=house, name="Bench", date=datetime.date(2026, 12, 4), format="league",
        contribution=10, remainder_policy="Rolls over.",
    ).event_id  # fmt: skip
    services.registration_open(event_id=event_id, by=house)  # not a draft: it has a socket
    client = Client()
    client.force_login(house)
    name = settings.SESSION_COOKIE_NAME
    return f"{name}={client.cookies[name].value}".encode(), event_id


def copy(kind: state.State, at: datetime.datetime | None = None) -> Copy:
    return Copy(
        name="folder",
        where="/media/usb/night",
        state=kind,
        synchronous=kind == "in_step",
        seconds_behind=4.0 if kind == "behind" else None,
        reason="The folder is gone." if kind == "lost" else "",
        reported_at=at or datetime.datetime.now(datetime.UTC),
    )


async def until_all(sockets: list[WebsocketCommunicator], stream: str, start: float) -> float:
    """Seconds from `start` until the last socket got a frame of `stream`."""

    async def one(socket: WebsocketCommunicator) -> float:
        while True:
            frame = await socket.receive_json_from(timeout=WAIT)
            if frame.get("stream") == stream:
                return time.perf_counter() - start

    return max(await asyncio.gather(*(one(socket) for socket in sockets)))


def summary(values: list[float]) -> str:
    ordered = sorted(values)
    p95 = ordered[max(0, int(len(ordered) * 0.95) - 1)]
    return f"median {statistics.median(ordered) * 1000:.1f} ms, p95 {p95 * 1000:.1f} ms"


async def run(cookie: bytes, event_id: int, count: int, rounds: int, silent: int) -> None:
    sockets = []
    for _ in range(count):
        socket = WebsocketCommunicator(
            application,
            f"/ws/events/{event_id}/house/",
            headers=[(b"origin", b"http://127.0.0.1"), (b"cookie", cookie)],
        )
        connected, _ = await socket.connect(timeout=WAIT)
        assert connected
        for _ in range(2):  # the board and House's table
            await socket.receive_json_from(timeout=WAIT)
        sockets.append(socket)
    layer = get_channel_layer()
    assert layer is not None
    told, relayed = [], []
    kinds: list[state.State] = ["in_step", "behind", "lost"]
    for n in range(rounds):
        start = time.perf_counter()
        await sync_to_async(state.publish)(copy(kinds[n % 3]))
        told.append(await until_all(sockets, "standby", start))
        frame = {"type": "update", "stream": "reference", "version": n + 1, "html": "<p></p>"}
        start = time.perf_counter()
        await protocol.send_on(
            layer,
            [
                (
                    state.GROUP,
                    {
                        "type": "live.snapshot",
                        "stream": "reference",
                        "version": n + 1,
                        "frame": json.dumps(frame),
                        "fragment": True,
                    },
                )
            ],
        )
        relayed.append(await until_all(sockets, "reference", start))
    print(f"{count} House sockets, {rounds} changes each way")
    print(f"  copy changed (publish, a render per socket): {summary(told)}")
    print(f"  reference (the same group, relayed as is):   {summary(relayed)}")
    print(f"  ratio of medians: {statistics.median(told) / statistics.median(relayed):.2f}")
    silences = []
    for _ in range(silent):
        await sync_to_async(state.forget)("folder")  # so the next report is a change
        reported = time.perf_counter()
        await sync_to_async(state.publish)(copy("in_step"))
        await until_all(sockets, "standby", reported)
        # The keeper is dead from here: nothing is sent until the sockets wake on their own.
        silences.append(await until_all(sockets, "standby", reported))
    if silences:
        print(
            f"  silent keeper, last report to lost on every page ({silent} times): "
            f"median {statistics.median(silences):.2f} s, max {max(silences):.2f} s "
            f"(SILENT_AFTER {state.SILENT_AFTER.total_seconds():.0f} s)"
        )
    for socket in sockets:
        await socket.disconnect()


def main() -> None:
    parser = argparse.ArgumentParser(description=__doc__.splitlines()[0])
    parser.add_argument("--sockets", type=int, default=20)
    parser.add_argument("--rounds", type=int, default=60)
    parser.add_argument("--silent", type=int, default=3)
    parser.add_argument("--database", default="bench_standby_panel")
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
        cookie, event_id = house_and_event()
        asyncio.run(run(cookie, event_id, args.sockets, args.rounds, args.silent))
    finally:
        state.forget("folder")
        connections.close_all()
        with server_connection() as server:
            server.execute(
                sql.SQL("DROP DATABASE IF EXISTS {} WITH (FORCE)").format(
                    sql.Identifier(args.database)
                )
            )


if __name__ == "__main__":
    main()
