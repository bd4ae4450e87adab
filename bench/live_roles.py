"""Live House pages per role: the server CPU one change costs with one House page open against
four, one per role (owner, director, cashier, scorer), in the same run.

    DATABASE_URL=postgres://postgres@127.0.0.1:5432/postgres REDIS_URL=redis://127.0.0.1:6379/0 \\
        .venv/bin/python bench/live_roles.py      # --players 64 --changes 40 --rate 1 --rounds 3

House's live part is rendered once per sight (what a viewer's roles may see and do,
staff/roles.py): the owner and a director share one, a cashier and a scorer have one each, so
four pages, one per role, cost three renders of each change's House pieces from one read.

Each run seeds a fresh started League event of `--players` players through the services in a
scratch database (`bench_live_roles`, dropped at the end), every starting card chosen, and opens
its House pages: real House sockets (the project's ASGI application with channels'
WebsocketCommunicator, the Redis channel layer), each signed in as its member and following
`static/js/live.js`'s versions (an update on the version it holds, a reload over the socket on a
gap). Then `--changes` changes arrive open loop, `--rate` a second (exponential gaps, seeded):
each a result or a card choice of a random player, through the services, with live updates in a
worker thread of this process ("background", as in a server without the publisher process).
The run ends when every page holds the event's last version.

Three ways, interleaved in turn in each round on the same seed and arrivals: no House page
(the reference: the board, the places and the players' parts alone), one (the owner's), four.
Reported per change, median over the rounds: the server's CPU (this process's, less the writes'
own thread, which makes the changes as the requests would; and Redis's), the writes apart, and
the ratio of four pages to one.
"""

from __future__ import annotations

import argparse
import asyncio
import json
import os
import random
import statistics
import sys
import threading
import time
from pathlib import Path
from typing import Any

sys.path.insert(0, str(Path(__file__).resolve().parent))
os.environ["CHANNELS_PREFIX"] = f"bench-roles-{os.getpid()}"
os.environ["CACHE_PREFIX"] = f"bench-roles-{os.getpid()}"
os.environ["LIVE_UPDATES"] = "background"
import event as engine  # sets up Django and the scratch database helpers
import live_pages  # one change by a random player, as the live pages bench makes it
import load_seed
import redis
from channels.testing import WebsocketCommunicator
from django.conf import settings
from django.db import close_old_connections, connections

from accounts.models import User
from events import services
from events.models import Event, Registration
from live import delivery
from staff.scopes import Scope
from syndicate.asgi import application

ROLES = ("owner", "director", "cashier", "scorer")
WAYS = {"none": (), "one": ("owner",), "four": ROLES}
ORIGIN = b"http://127.0.0.1"


class Page:
    """One House dashboard's socket, holding versions as live.js does."""

    def __init__(self, event_id: int, sessionid: str) -> None:
        cookie = f"{settings.SESSION_COOKIE_NAME}={sessionid}".encode()
        self.socket = WebsocketCommunicator(
            application,
            f"/ws/events/{event_id}/house/",
            headers=[(b"origin", ORIGIN), (b"cookie", cookie)],
        )
        self.held: dict[str, int] = {}
        self.reloads = 0
        self.frames = 0
        self.house_frames = 0  # House frames taken: one a delivery

    async def open(self) -> None:
        connected, code = await self.socket.connect(timeout=30)
        assert connected, code

    def take(self, frame: dict[str, Any]) -> bool:
        """Apply a frame as live.js does; False when the page must ask for a reload."""
        stream, version = frame["stream"], frame["version"]
        if stream not in ("house", "board"):
            return True
        held = self.held.get(stream, -1)
        if version <= held:
            return True
        if stream == "house":
            self.house_frames += 1
        if "base" in frame:  # targeted: only on a version it builds on
            if held not in (frame.get("bases") or [frame["base"]]):
                return False
        elif "html" not in frame:
            return False  # House's version alone: nothing to show, ask for the part
        self.held[stream] = version
        return True

    async def follow(self, stop: asyncio.Event) -> None:
        while not stop.is_set():
            # (A receive that times out ends the application: wait for a frame first.)
            if await self.socket.receive_nothing(timeout=0.1, interval=0.005):
                continue
            text = await self.socket.receive_from(timeout=30)
            self.frames += 1
            if not self.take(json.loads(text)):
                self.reloads += 1
                await self.socket.send_to(text_data=json.dumps({"type": "reload"}))


def night(players: int, tag: str) -> tuple[int, list[tuple[int, User]], dict[str, str]]:
    """A started event, every starting card chosen, and a signed-in session per role."""
    (plan,) = load_seed.seed(events=1, players=players, tag=tag)
    event = Event.objects.get(pk=plan.event_id)
    owner = event.staff.select_related("user").get().user
    seated = []
    for p in [*plan.players, plan.marker]:
        registration = Registration.objects.select_related("player").get(pk=p.registration_id)
        player = registration.player
        assert player is not None
        seated.append((registration.pk, player))
        services.starting_selection_confirm(
            registration_id=registration.pk,
            by=player,
            slots=list(range(event.rules.starting)),
        )
    sessions = {"owner": plan.house_sessionid}
    for role in ROLES[1:]:
        member = User.objects.create_user(
            email=f"{role}-{tag}@bench.invalid", display_name=role.capitalize()
        )
        services.house_member_add(scope=Scope.of(event), by=owner, member=member, role=role)
        sessions[role] = load_seed.sign_in(member)[0]
    delivery.wait_until_idle(timeout=60)
    return event.pk, seated, sessions


def redis_cpu(client: redis.Redis) -> float:
    info = client.info("cpu")
    return float(info["used_cpu_sys"]) + float(info["used_cpu_user"])


def run(way: str, args: argparse.Namespace, tag: str) -> dict[str, float]:
    """One way: its event seeded, its pages open, the changes arriving open loop."""
    event_id, seated, sessions = night(args.players, tag)
    rng = random.Random(args.seed)
    gaps = [rng.expovariate(args.rate) for _ in range(args.changes)]
    client = redis.Redis.from_url(settings.REDIS_URL)
    spent: dict[str, float] = {}

    def writes() -> None:
        began = time.perf_counter()
        cpu = time.thread_time()
        due = began
        made = 0
        try:
            for gap in gaps:
                due += gap
                time.sleep(max(0.0, due - time.perf_counter()))
                made += live_pages.act(rng, seated) is not None
        finally:
            spent["writes_cpu"] = time.thread_time() - cpu
            spent["made"] = made
            connections.close_all()

    async def scenario() -> dict[str, float]:
        pages = [Page(event_id, sessions[role]) for role in WAYS[way]]
        for page in pages:
            await page.open()
        stop = asyncio.Event()
        followers = [asyncio.create_task(page.follow(stop)) for page in pages]
        await asyncio.sleep(1.0)  # the first snapshots taken
        redis_before, cpu_before = redis_cpu(client), time.process_time()
        for page in pages:
            page.house_frames = 0
        began = time.perf_counter()
        writer = threading.Thread(target=writes)
        writer.start()
        while writer.is_alive():
            await asyncio.sleep(0.05)
        await asyncio.to_thread(delivery.wait_until_idle, 60.0)
        last = await asyncio.to_thread(lambda: Event.objects.get(pk=event_id).version)
        deadline = time.perf_counter() + 60
        while any(page.held.get("house", -1) < last for page in pages):
            assert time.perf_counter() < deadline, (
                f"a page fell behind: {last}, {[(p.held, p.frames, p.reloads) for p in pages]}"
            )
            await asyncio.sleep(0.02)
        wall = time.perf_counter() - began
        cpu = time.process_time() - cpu_before
        redis_spent = redis_cpu(client) - redis_before
        stop.set()
        await asyncio.gather(*followers)
        for page in pages:
            await page.socket.disconnect()
        changes = max(spent["made"], 1)
        # The publisher merges the changes that arrive while it works: each delivery it makes
        # reaches the owner's page as one House frame.
        deliveries = pages[0].house_frames if pages else 0
        server = (cpu - spent["writes_cpu"] + redis_spent) * 1000
        return {
            "deliveries": deliveries,
            "per_delivery_ms": server / deliveries if deliveries else 0.0,
            "server_ms": server / changes,
            "python_ms": (cpu - spent["writes_cpu"]) * 1000 / changes,
            "redis_ms": redis_spent * 1000 / changes,
            "writes_ms": spent["writes_cpu"] * 1000 / changes,
            "wall_s": wall,
            "reloads": sum(page.reloads for page in pages),
            "changes": spent["made"],
        }

    try:
        return asyncio.run(scenario())
    finally:
        close_old_connections()
        client.close()


def main() -> None:
    parser = argparse.ArgumentParser(description=__doc__.splitlines()[0] if __doc__ else None)
    parser.add_argument("--players", type=int, default=64)
    parser.add_argument("--changes", type=int, default=40)
    parser.add_argument("--rate", type=float, default=1.0, help="changes a second, open loop")
    parser.add_argument("--rounds", type=int, default=3)
    parser.add_argument("--seed", type=int, default=2026)
    parser.add_argument("--database", default="bench_live_roles")
    args = parser.parse_args()
    db = settings.DATABASES["default"]
    engine.create_scratch(args.database)
    results: dict[str, list[dict[str, float]]] = {way: [] for way in WAYS}
    try:
        db["NAME"] = args.database
        engine.prepare_scratch()
        delivery.wait_until_idle(timeout=5)
        for number in range(args.rounds):
            order = list(WAYS) if number % 2 == 0 else list(reversed(WAYS))
            for way in order:
                results[way].append(run(way, args, f"r{number}{way}"))
                print(f"round {number + 1}, {way}: {results[way][-1]}", flush=True)
    finally:
        engine.drop_scratch(args.database)

    def med(way: str, key: str) -> float:
        return statistics.median(row[key] for row in results[way])

    print(
        f"\n{args.players} players, {args.changes} changes at {args.rate}/s open loop, "
        f"{args.rounds} rounds; per change, median of the rounds"
    )
    print(
        "| House pages open | server CPU per change, ms | of which Python / Redis | "
        "writes, ms | deliveries | server CPU per delivery, ms | reloads |"
    )
    print("|---|---:|---:|---:|---:|---:|---:|")
    names = {"none": "none (reference)", "one": "1 (owner)", "four": "4 (one per role)"}
    for way in WAYS:
        print(
            f"| {names[way]} | {med(way, 'server_ms'):.1f} | {med(way, 'python_ms'):.1f} / "
            f"{med(way, 'redis_ms'):.1f} | {med(way, 'writes_ms'):.1f} | "
            f"{med(way, 'deliveries'):.0f} | {med(way, 'per_delivery_ms'):.1f} | "
            f"{med(way, 'reloads'):.0f} |"
        )
    overall = med("four", "server_ms") / med("one", "server_ms")
    ratios = [
        four["server_ms"] / one["server_ms"]
        for one, four in zip(results["one"], results["four"], strict=True)
    ]
    house_one = med("one", "server_ms") - med("none", "server_ms")
    house_four = med("four", "server_ms") - med("none", "server_ms")
    print(
        f"four pages / one, server CPU per change: {overall:.2f}"
        f" (per round: {', '.join(f'{r:.2f}' for r in ratios)}); House's own share (less the "
        f"reference): {house_one:.1f} ms with one page, {house_four:.1f} ms with four"
    )
    per_delivery = med("four", "per_delivery_ms") / med("one", "per_delivery_ms")
    print(f"four pages / one, server CPU per delivery: {per_delivery:.2f}")


if __name__ == "__main__":
    main()
