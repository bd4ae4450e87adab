"""Real pages under load: Chromium player pages, a board and a House page open while players write.

    REDIS_URL=redis://127.0.0.1:6379/0 .venv/bin/python bench/browser_pages.py --private-postgres

What `bench/load.py` does with websocket clients that behave like `static/js/live.js`, done here
with the pages themselves, in Debian's Chromium (Playwright's sync API, the launch arguments of
`tests/browser/conftest.py`), on a smaller scale:

- a scratch database (`bench_browser`) on DATABASE_URL's server or a private one
  (`--private-postgres`), a Redis database of its own, `--daphne` daphne processes as in
  `bench/load.py` (the live-updates publisher, the connection pool);
- two League events of `--pages` players each, seeded through the services;
- phase 1: every player of event A has their player page open (a browser context of its own,
  signed in with their session cookie), and A's board and A's House dashboard are open; players
  write through the API, open loop, `--rate` writes a second (Poisson, fixed seed) for
  `--seconds` seconds; every HTTP request each page makes after it went live is counted
  (`page.on("request")`), and daphne's CPU time over the writes;
- after the writes, each page's versions (`window.syndicateLive.versions`) against the database;
- phase 2: the pages closed, the same writes (same seed, same number of players) in event B with
  no page open: the reference for daphne's CPU per write.

The report gives each kind of page's requests per write, daphne's CPU per write in both phases
and their ratio, and Chromium's CPU. Figures: docs/performance.md, "Load".
"""

from __future__ import annotations

import argparse
import asyncio
import contextlib
import os
import shutil
import signal
import subprocess
import tempfile
import threading
import time
import uuid
from pathlib import Path
from typing import Any

import aiohttp
from load import (
    PYTHON,
    REQUEST_TIMEOUT,
    ROOT,
    Daphne,
    Traffic,
    Writer,
    empty_redis,
    forget_keys,
    migrate,
    open_loop,
    postgres_server,
    process_cpu,
    quantiles_ms,
    raise_timeout,
    scratch_env,
    setup_django,
    start_servers,
    steps,
    wait_healthy,
)

CHROMIUM = "/usr/bin/chromium"
CHROMIUM_ARGS = [
    "--headless",
    "--no-sandbox",
    "--disable-gpu",
    "--disable-background-networking",
    "--disable-component-update",
    "--disable-sync",
    "--no-first-run",
    "--disable-quic",
]
PHONE = {"width": 390, "height": 844}
LIVE_WAIT_MS = 60_000
SETTLE_S = 5.0


def arguments() -> argparse.Namespace:
    parser = argparse.ArgumentParser(description=__doc__.splitlines()[0] if __doc__ else None)
    parser.add_argument("--pages", type=int, default=16, help="player pages (players per event)")
    parser.add_argument("--rate", type=float, default=4.0, help="writes per second (Poisson)")
    parser.add_argument("--seconds", type=float, default=30.0, help="how long writes arrive")
    parser.add_argument("--daphne", type=int, default=1, help="daphne processes")
    parser.add_argument("--pool", type=int, default=12)
    parser.add_argument("--seed", type=int, default=2026)
    parser.add_argument("--timeout", type=int, default=900)
    parser.add_argument("--database", default="bench_browser")
    parser.add_argument("--redis-db", type=int, default=12)
    parser.add_argument("--private-postgres", action="store_true")
    return parser.parse_args()


def chromium_cpu(browser_pid: int) -> float:
    """CPU seconds of Chromium's processes: the browser and all its descendants, live or reaped."""
    children: dict[int, list[int]] = {}
    for entry in Path("/proc").glob("[0-9]*"):
        with contextlib.suppress(OSError, IndexError, ValueError):
            text = (entry / "stat").read_text()
            parent = int(text[text.rfind(")") + 2 :].split()[1])
            children.setdefault(parent, []).append(int(entry.name))
    total, todo = 0.0, [browser_pid]
    while todo:
        pid = todo.pop()
        total += process_cpu(pid, children=pid == browser_pid)
        todo.extend(children.get(pid, []))
    return total


def write_phase(
    writers: list[Writer], traffic: Traffic, args: argparse.Namespace, deadline: float
) -> threading.Thread:
    """The writers, in a thread of their own (Playwright's sync API holds this one)."""

    async def go() -> None:
        timeout = aiohttp.ClientTimeout(total=REQUEST_TIMEOUT)
        async with aiohttp.ClientSession(
            connector=aiohttp.TCPConnector(limit=0),
            cookie_jar=aiohttp.DummyCookieJar(),
            timeout=timeout,
        ) as session:
            for writer in writers:
                writer.session = session
            await open_loop(
                writers,
                traffic,
                rate=args.rate,
                seed=args.seed,
                duration=args.seconds,
                deadline=deadline,
            )

    thread = threading.Thread(target=lambda: asyncio.run(go()), name="writers")
    thread.start()
    return thread


def writers_of(plan: Any, servers: list[Daphne], seed: int) -> list[Writer]:
    import random

    return [
        Writer(
            player,
            None,  # type: ignore[arg-type]  # the thread's session, set when it starts
            servers[n % len(servers)].base,
            steps(random.Random(f"{seed}-{player.label}")),
        )
        for n, player in enumerate(plan.players)
    ]


def cpu_of(servers: list[Daphne]) -> float:
    return sum(process_cpu(s.process.pid) for s in servers)


def run_writes(
    plan: Any,
    servers: list[Daphne],
    args: argparse.Namespace,
    deadline: float,
    pump: Any = None,
) -> tuple[Traffic, float, float]:
    """Open-loop writes in one event: (traffic, daphne CPU seconds, wall seconds)."""
    traffic = Traffic()
    writers = writers_of(plan, servers, args.seed)
    before, began = cpu_of(servers), time.monotonic()
    thread = write_phase(writers, traffic, args, deadline)
    while thread.is_alive():
        if pump is not None:
            pump(200)  # Playwright delivers the pages' events while this thread waits in it
        else:
            thread.join(0.2)
    thread.join()
    return traffic, cpu_of(servers) - before, time.monotonic() - began


def main() -> None:
    args = arguments()
    signal.signal(signal.SIGALRM, raise_timeout)
    signal.alarm(args.timeout)
    started = time.monotonic()
    with contextlib.ExitStack() as stack:
        server_url, _pg_data = postgres_server(
            stack, private=args.private_postgres, max_connections=200
        )
        redis_url, redis_client = empty_redis(args.redis_db)
        tag = uuid.uuid4().hex[:8]
        prefix = f"benchbrowser-{tag}"
        stack.callback(forget_keys, redis_client, [prefix])
        folder = Path(tempfile.mkdtemp(prefix="bench-browser."))
        stack.callback(shutil.rmtree, folder, True)
        env = scratch_env(stack, server_url, args.database, redis_url=redis_url, prefix=prefix)
        migrate(env)
        # With DEBUG off whitenoise serves the collected files only (staticfiles/, not in git).
        subprocess.run(
            [PYTHON, "manage.py", "collectstatic", "--noinput", "-v", "0"],
            cwd=ROOT,
            env=env,
            check=True,
        )
        setup_django(env)
        import load_seed
        from django.db import connections

        from events.models import Event

        stack.callback(connections.close_all)
        pages_plan, quiet_plan = load_seed.seed(events=2, players=args.pages, tag=tag)
        connections.close_all()
        servers, _ = start_servers(stack, env, folder, count=args.daphne, pool=args.pool)
        asyncio.run(wait_healthy(servers))
        deadline = started + args.timeout - 60

        from playwright.sync_api import sync_playwright

        # Playwright's sync API keeps an event loop on this thread; this process's ORM calls
        # (reading the event's version) are plain synchronous ones.
        os.environ["DJANGO_ALLOW_ASYNC_UNSAFE"] = "true"

        with sync_playwright() as playwright:
            browser = playwright.chromium.launch(executable_path=CHROMIUM, args=CHROMIUM_ARGS)
            browser_pid = browser_process(browser)
            opened = time.monotonic()
            pages: list[tuple[str, Any]] = []
            event_id = pages_plan.event_id
            for n, player in enumerate(pages_plan.players):
                base = servers[n % len(servers)].base
                pages.append(
                    ("phone", open_page(browser, base, f"/events/{event_id}/", player.sessionid))
                )
            base = servers[0].base
            pages.append(("board", open_page(browser, base, f"/board/{event_id}/", None)))
            house = pages_plan.house_sessionid
            pages.append(("house", open_page(browser, base, f"/house/events/{event_id}/", house)))
            open_seconds = time.monotonic() - opened
            made: list[list[str]] = []
            for _kind, page in pages:
                urls: list[str] = []
                page.on("request", lambda request, urls=urls: urls.append(request.url))
                made.append(urls)
            chromium_before = chromium_cpu(browser_pid) if browser_pid else 0.0
            traffic, cpu_pages, wall_pages = run_writes(
                pages_plan, servers, args, deadline, pump=pages[-1][1].wait_for_timeout
            )
            chromium_spent = (chromium_cpu(browser_pid) if browser_pid else 0.0) - chromium_before
            pages[-1][1].wait_for_timeout(SETTLE_S * 1000)
            version = Event.objects.values_list("version", flat=True).get(pk=event_id)
            connections.close_all()
            shown = []
            for kind, page in pages:
                versions = page.evaluate("() => (window.syndicateLive || {}).versions || {}")
                main = {"phone": "places", "board": "board", "house": "house"}[kind]
                shown.append((kind, versions.get(main) == version, versions.get(main)))
            for _kind, page in pages:
                page.context.close()
            browser.close()

        quiet, cpu_quiet, wall_quiet = run_writes(quiet_plan, servers, args, deadline)
        signal.alarm(0)

    def answered(t: Traffic) -> list[Any]:
        return [s for s in t.sent if s.answered is not None]

    done, done_quiet = answered(traffic), answered(quiet)
    per_write = cpu_pages * 1000 / max(len(done), 1)
    per_write_quiet = cpu_quiet * 1000 / max(len(done_quiet), 1)
    kinds = ("phone", "board", "house")
    print()
    print(
        f"Machine: {os.cpu_count()} cores, load average {os.getloadavg()[0]:.1f} at the end; "
        f"{args.pages} player pages, a board and a House page in Chromium over {len(servers)} "
        f"daphne process(es); writes at {args.rate:g}/s (Poisson) for {args.seconds:g} s; "
        f"pages opened in {open_seconds:.1f} s."
    )
    print()
    print("| Measure | pages open | no page open | ratio |")
    print("|---|---:|---:|---:|")
    print(f"| writes answered / sent | {len(done)} / {len(traffic.sent)} | "
          f"{len(done_quiet)} / {len(quiet.sent)} | |")  # fmt: skip
    print(f"| errors | {len(traffic.failures)} | {len(quiet.failures)} | |")
    latency = quantiles_ms([s.answered - s.began for s in done])
    latency_quiet = quantiles_ms([s.answered - s.began for s in done_quiet])
    if latency and latency_quiet:
        print(
            f"| write latency from arrival p50 / p95 (ms) | {latency[0]:.0f} / {latency[1]:.0f} | "
            f"{latency_quiet[0]:.0f} / {latency_quiet[1]:.0f} | |"
        )
    print(
        f"| daphne CPU s (wall s) | {cpu_pages:.1f} ({wall_pages:.0f}) | "
        f"{cpu_quiet:.1f} ({wall_quiet:.0f}) | |"
    )
    print(
        f"| daphne CPU per write (ms) | {per_write:.1f} | {per_write_quiet:.1f} | "
        f"{per_write / per_write_quiet:.2f}x |"
    )
    print(f"| Chromium CPU per write (ms) | {chromium_spent * 1000 / max(len(done), 1):.0f} | | |")
    total = 0
    for kind in kinds:
        counted = [urls for (k, _p), urls in zip(pages, made, strict=True) if k == kind]
        requests = sum(len(urls) for urls in counted)
        total += requests
        print(
            f"| {kind} pages ({len(counted)}): HTTP requests / per write | {requests} / "
            f"{requests / max(len(done), 1):.3f} | | |"
        )
        shown_right = sum(ok for k, ok, _v in shown if k == kind)
        print(f"| {kind} pages at the database's version after the writes | {shown_right} / "
              f"{len(counted)} | | |")  # fmt: skip
    print(f"| all pages: HTTP requests per write | {total / max(len(done), 1):.3f} | | |")
    urls = sorted({u for urls in made for u in urls})
    if urls:
        print("\nRequests made by the pages: " + ", ".join(urls[:10]))
    print(f"\nEvent version {version}; pages' versions: {[v for _k, _ok, v in shown][:40]}")


def browser_process(browser: Any) -> int | None:
    """The Chromium browser process Playwright started (the newest `chromium` child of ours)."""
    del browser
    mine = os.getpid()
    found = []
    for entry in Path("/proc").glob("[0-9]*"):
        with contextlib.suppress(OSError, IndexError, ValueError):
            text = (entry / "stat").read_text()
            fields = text[text.rfind(")") + 2 :].split()
            name = text[text.find("(") + 1 : text.rfind(")")]
            if "chrom" in name and _descends(int(fields[1]), mine):
                found.append(int(entry.name))
    return min(found) if found else None


def _descends(pid: int, ancestor: int) -> bool:
    for _ in range(10):
        if pid == ancestor:
            return True
        if pid <= 1:
            return False
        try:
            text = Path(f"/proc/{pid}/stat").read_text()
        except OSError:
            return False
        pid = int(text[text.rfind(")") + 2 :].split()[1])
    return False


def open_page(browser: Any, base: str, path: str, sessionid: str | None) -> Any:
    """A page in a browser context of its own, signed in if a session is given, once live."""
    context = browser.new_context(viewport=PHONE)
    if sessionid:
        context.add_cookies([{"name": "sessionid", "value": sessionid, "url": base}])
    page = context.new_page()
    page.goto(base + path)
    page.wait_for_selector('.conn[data-state="live"]', timeout=LIVE_WAIT_MS)
    return page


if __name__ == "__main__":
    main()
