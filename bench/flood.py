"""A write flood from one account beside another player's page, open loop, on daphne as `make run`
starts it: the code of this checkout and of another (the code before) in the same run.

    DATABASE_URL=postgres://postgres@127.0.0.1:5432/postgres REDIS_URL=redis://127.0.0.1:6379/14 \\
        .venv/bin/python bench/flood.py --before /tmp/wt-before [--rounds 2] [--port 8114]

A scratch database (`bench_flood`, dropped at the end) migrated and seeded with the demo
(`manage.py seed_demo`: House, four checked-in players, passwords known). For each round and each
checkout, one daphne process (the environment `make run` gives it, key prefixes of its own, the
default API rates: 60 writes a minute per account), then:

- a player (player2) signs in through the form and loads the event's player page
  (`GET /events/<id>/`) `--page-rate` times a second, open loop (each load leaves on schedule,
  whether or not the previous one was answered): `--seconds` alone, then `--seconds` beside
- the flood: another player (player1, signed in the same way) sends
  `POST /api/events/<id>/register/` (already registered: 409, then 429 once the limit refuses)
  `--flood-rate` times a second, open loop, each with an Idempotency-Key of its own, starting
  `--ramp` seconds before the page loads are counted (the limit's first 60 writes go through).

It prints the page's p50/p95 alone and beside the flood, and the flood's answers by status.
"""

from __future__ import annotations

import argparse
import asyncio
import multiprocessing
import statistics
import sys
import time
import uuid
from collections import Counter
from dataclasses import dataclass, field
from pathlib import Path
from typing import Any

import aiohttp

sys.path.insert(0, str(Path(__file__).resolve().parent))

from rush import Client
from scratch import (
    ROOT,
    before_after_parser,
    cpu_seconds,
    daphne,
    delete_keys,
    make_run_environment,
    manage,
    percentile,
    scratch_database,
    servers_from_environment,
)

PASSWORD = "cornhole-demo-7"  # seed_demo's
TIMEOUT = 60.0


@dataclass
class Phase:
    page: list[float] = field(default_factory=list)  # seconds
    page_errors: int = 0
    flood: Counter[int] = field(default_factory=Counter)
    flood_seconds: list[float] = field(default_factory=list)
    server_cpu: float = 0.0  # seconds of CPU the daphne process used during the phase
    seconds: float = 0.0


def sign_in(base: str, email: str, source: str) -> dict[str, str]:
    client = Client(base, source)
    answer = client.form("/accounts/login/", {"login": email, "password": PASSWORD})
    if answer.status != 302 or "sessionid" not in client.cookies:
        sys.exit(f"Sign-in of {email} failed: {answer.status} {answer.body[:200]}")
    return client.cookies


def cookie_header(cookies: dict[str, str]) -> str:
    return "; ".join(f"{k}={v}" for k, v in cookies.items())


async def open_loop(rate: float, until: float, send: object) -> None:
    """Start `send()` every 1/rate seconds until `until`, without waiting for the answers."""
    interval = 1.0 / rate
    tasks = []
    next_at = time.monotonic()
    while next_at < until:
        tasks.append(asyncio.ensure_future(send()))  # type: ignore[operator]
        next_at += interval
        await asyncio.sleep(max(0.0, next_at - time.monotonic()))
    await asyncio.gather(*tasks)


async def flood(
    base: str, cookies: dict[str, str], event_id: int, rate: float, ramp: float, seconds: float
) -> tuple[Counter[int], list[float]]:
    """The flood's open loop; the answers after the ramp, by status, and their times."""
    statuses: Counter[int] = Counter()
    times: list[float] = []
    counted_from = time.monotonic() + ramp
    async with aiohttp.ClientSession(
        base,
        timeout=aiohttp.ClientTimeout(total=TIMEOUT),
        connector=aiohttp.TCPConnector(limit=400),
        headers={
            "Cookie": cookie_header(cookies),
            "X-CSRFToken": cookies["csrftoken"],
            "Content-Type": "application/json",
        },
    ) as session:

        async def write() -> None:
            began = time.perf_counter()
            counted = time.monotonic() >= counted_from
            try:
                async with session.post(
                    f"/api/events/{event_id}/register/",
                    data=b"{}",
                    headers={"Idempotency-Key": uuid.uuid4().hex},
                ) as response:
                    await response.read()
                    status = response.status
            except (TimeoutError, aiohttp.ClientError):
                status = 0
            if counted:
                statuses[status] += 1
                times.append(time.perf_counter() - began)

        await open_loop(rate, counted_from + seconds, write)
    return statuses, times


def flood_process(
    answers: multiprocessing.Queue[tuple[Counter[int], list[float]]], *arguments: Any
) -> None:
    """The flood in a process of its own: its event loop never delays the page's timings."""
    answers.put(asyncio.run(flood(*arguments)))


async def measure(
    base: str, pid: int, event_id: int, args: argparse.Namespace
) -> tuple[Phase, Phase]:
    other = sign_in(base, "player2@example.com", "127.0.0.2")
    greedy = sign_in(base, "player1@example.com", "127.0.0.3")
    page_path = f"/events/{event_id}/"
    alone, beside = Phase(), Phase()
    counting: list[Phase | None] = [None]

    async with aiohttp.ClientSession(
        base,
        timeout=aiohttp.ClientTimeout(total=TIMEOUT),
        connector=aiohttp.TCPConnector(limit=50),
        headers={"Cookie": cookie_header(other)},
    ) as player:

        async def load_page() -> None:
            phase = counting[0]
            began = time.perf_counter()
            try:
                async with player.get(page_path) as response:
                    await response.read()
                    ok = response.status == 200
            except (TimeoutError, aiohttp.ClientError):
                ok = False
            if phase is not None:
                if ok:
                    phase.page.append(time.perf_counter() - began)
                else:
                    phase.page_errors += 1

        start = time.monotonic()
        # Warm up: a few loads not counted.
        await open_loop(args.page_rate, start + 3, load_page)
        counting[0] = alone
        cpu, began = cpu_seconds(pid), time.monotonic()
        await open_loop(args.page_rate, time.monotonic() + args.seconds, load_page)
        alone.server_cpu, alone.seconds = cpu_seconds(pid) - cpu, time.monotonic() - began
        counting[0] = None
        answers: multiprocessing.Queue[tuple[Counter[int], list[float]]] = multiprocessing.Queue()
        flooding = multiprocessing.Process(
            target=flood_process,
            args=(answers, base, greedy, event_id, args.flood_rate, args.ramp, args.seconds),
        )
        flooding.start()
        await asyncio.sleep(args.ramp)
        counting[0] = beside
        cpu, began = cpu_seconds(pid), time.monotonic()
        await open_loop(args.page_rate, time.monotonic() + args.seconds, load_page)
        beside.server_cpu, beside.seconds = cpu_seconds(pid) - cpu, time.monotonic() - began
        counting[0] = None
        beside.flood, beside.flood_seconds = await asyncio.to_thread(answers.get, True, 600)
        flooding.join(timeout=60)
    return alone, beside


def describe(label: str, alone: Phase, beside: Phase) -> str:
    def ms(values: list[float], fraction: float) -> str:
        return f"{percentile(values, fraction) * 1000:,.0f}"

    flood = ", ".join(f"{status or 'no answer'}: {n}" for status, n in sorted(beside.flood.items()))
    refused = beside.flood_seconds
    extra_cpu = beside.server_cpu / beside.seconds - alone.server_cpu / alone.seconds
    per_write = extra_cpu * beside.seconds / max(1, sum(beside.flood.values())) * 1000
    return (
        f"| {label} | {len(alone.page)} | {ms(alone.page, 0.5)} | {ms(alone.page, 0.95)} "
        f"| {len(beside.page)} | {ms(beside.page, 0.5)} | {ms(beside.page, 0.95)} "
        f"| {alone.page_errors + beside.page_errors} | {flood} "
        f"| {ms(refused, 0.5)} / {ms(refused, 0.95)} "
        f"| {alone.server_cpu / alone.seconds:.2f} / {beside.server_cpu / beside.seconds:.2f} "
        f"| {per_write:.1f} |"
    )


def main() -> int:
    import os

    parser = before_after_parser(__doc__.splitlines()[0], port=8114, database="bench_flood")
    parser.add_argument("--page-rate", type=float, default=5.0)
    parser.add_argument("--flood-rate", type=float, default=100.0)
    parser.add_argument("--seconds", type=float, default=20.0)
    parser.add_argument("--ramp", type=float, default=10.0)
    args = parser.parse_args()
    server_url, redis_url = servers_from_environment()
    checkouts = {"before": args.before.resolve(), "after": ROOT}
    logs = Path(f"/tmp/bench-flood-{os.getpid()}")
    logs.mkdir(exist_ok=True)
    results: list[tuple[str, Phase, Phase]] = []
    with scratch_database(server_url, args.database) as database_url:
        seed_prefix = f"bench-flood-{os.getpid()}-seed"
        seed_env = make_run_environment(database_url, redis_url, seed_prefix)
        manage(ROOT, seed_env, "migrate", "--noinput", "-v", "0")
        manage(ROOT, seed_env, "seed_demo")
        delete_keys(redis_url, seed_prefix)
        import psycopg

        with psycopg.connect(database_url) as connection:
            row = connection.execute("SELECT id FROM events_event ORDER BY id LIMIT 1").fetchone()
        assert row is not None
        event_id = int(row[0])
        print(
            f"{os.cpu_count()} cores, load average {os.getloadavg()[0]:.1f} at the start; "
            f"page {args.page_rate}/s, flood {args.flood_rate}/s, {args.seconds:.0f} s each",
            flush=True,
        )
        for round_ in range(1, args.rounds + 1):
            for label, checkout in checkouts.items():
                prefix = f"bench-flood-{os.getpid()}-{label}-{round_}"
                env = make_run_environment(database_url, redis_url, prefix)
                log = logs / f"{label}-{round_}.log"
                try:
                    with daphne(checkout, args.port, env, log) as (base, pid):
                        alone, beside = asyncio.run(measure(base, pid, event_id, args))
                finally:
                    delete_keys(redis_url, prefix)
                results.append((f"{label}, round {round_}", alone, beside))
                print(describe(f"{label}, round {round_}", alone, beside), flush=True)
    print(f"\nload average {os.getloadavg()[0]:.1f} at the end; logs in {logs}/")
    print(
        "| Code | Page loads alone | p50 (ms) | p95 (ms) | Page loads beside the flood | p50 (ms) "
        "| p95 (ms) | Page errors | Flood answers | Flood answer p50 / p95 (ms) "
        "| Server cores busy, alone / beside | Server CPU per flood request (ms) |"
    )
    print("|---|---:|---:|---:|---:|---:|---:|---:|---|---:|---:|---:|")
    for label, alone, beside in results:
        print(describe(label, alone, beside))
    for label in checkouts:
        mine = [r for r in results if r[0].startswith(label)]
        ratio = statistics.median(
            percentile(b.page, 0.95) / percentile(a.page, 0.95) for _, a, b in mine
        )
        print(f"{label}: page p95 beside the flood / alone, median over rounds: {ratio:.1f}x")
    return 0


if __name__ == "__main__":
    sys.exit(main())
