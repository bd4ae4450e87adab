"""A freed place reaches the next player: seconds from a cancellation's commit to the offer's push
arriving at the player's push service, with the app served as `make run` serves it.

    DATABASE_URL=postgres://postgres@127.0.0.1:5432/postgres REDIS_URL=redis://127.0.0.1:6379/0 \\
        .venv/bin/python bench/waitlist.py      # --capacity 64 --waiting 40 --cancels 40 --rate 2
    ... bench/waitlist.py --quick               # 8 places, 6 cancellations

A scratch database (`bench_waitlist`, dropped at the end) holds one open League event of
`--capacity` places, all taken, and `--waiting` players on its waitlist, each with Poker push on
(a device on the stand-in push service of the tests, tests/push/standin.py, on loopback: it
checks the VAPID signature and decrypts each message as a phone would). The app runs as
`make run` runs it (syndicate/launcher.py): daphne, the live-updates publisher, and one Celery
worker with beat on both queues, each a process of its own on the scratch database and
REDIS_URL's Redis under key prefixes of their own (the worker's queues are named as `make run`
names them: REDIS_URL must name a database no worker uses; the run refuses one holding Celery's
queues, and empties them at the end).

Then `--cancels` registered players cancel through the API as their phones do (session cookie,
CSRF header, an Idempotency-Key), open loop: arrivals at `--rate` a second with exponential gaps
(seeded), each in a thread of its own, so a slow answer never holds back the next arrival. Each
cancellation frees a place, which the waitlist offers to the first player still waiting, in the
same commit; the push task runs after it. The k-th offer's push (the k-th player in line) is
paired with the k-th cancellation to be answered, and timed from that request's sending (the
commit lies between the sending and the answer, so this bounds the time from the commit from
above) and from its answer (from below).

Reference, in the same run and the same threads: a bare `GET /healthz` round trip sent halfway
between arrivals. The goal: every offer's push within 2 s of the commit (the upper bound's p95).
"""
# ruff: noqa: E402 - project imports need django.setup() first.

from __future__ import annotations

import argparse
import contextlib
import http.client
import os
import random
import secrets
import signal
import statistics
import subprocess
import sys
import tempfile
import threading
import time
import uuid
from collections.abc import Iterator
from dataclasses import dataclass
from pathlib import Path
from typing import Any

ROOT = Path(__file__).resolve().parent.parent
sys.path.insert(0, str(ROOT))
sys.path.insert(0, str(ROOT / "bench"))
os.environ["DJANGO_SETTINGS_MODULE"] = "syndicate.settings"
os.environ.setdefault("DJANGO_DEBUG", "0")

import scratch

GOAL_SECONDS = 2.0
CSRF = secrets.token_hex(16)  # a 32-character secret, as Django's CSRF cookie holds


@dataclass
class Timed:
    """One request: when it left and when its answer came (the wall clock every process reads)."""

    sent: float
    answered: float
    status: int
    body: bytes = b""

    @property
    def seconds(self) -> float:
        return self.answered - self.sent


class Phone:
    """A signed-in player's browser: the session cookie, the CSRF cookie and header."""

    def __init__(self, port: int, sessionid: str) -> None:
        self.port = port
        self.cookie = f"sessionid={sessionid}; csrftoken={CSRF}"

    def request(self, method: str, path: str, body: bytes = b"{}") -> Timed:
        connection = http.client.HTTPConnection("127.0.0.1", self.port, timeout=60)
        headers = {"Cookie": self.cookie, "Accept": "application/json"}
        if method == "POST":
            headers |= {
                "X-CSRFToken": CSRF,
                "Idempotency-Key": str(uuid.uuid4()),
                "Content-Type": "application/json",
            }
        sent = time.time()
        try:
            connection.request(
                method, path, body=body if method == "POST" else None, headers=headers
            )
            response = connection.getresponse()
            answer = response.read()
            status = response.status
        except (OSError, http.client.HTTPException):
            status, answer = 0, b""
        finally:
            connection.close()
        return Timed(sent, time.time(), status, answer)


def percentile(values: list[float], fraction: float) -> float:
    return scratch.percentile(values, fraction)


def shown(values: list[float]) -> str:
    if not values:
        return "-"
    return (
        f"{statistics.median(values) * 1000:,.0f} / {percentile(values, 0.95) * 1000:,.0f} / "
        f"{max(values) * 1000:,.0f}"
    )


@contextlib.contextmanager
def process(argv: list[str], env: dict[str, str], log: Path) -> Iterator[subprocess.Popen[bytes]]:
    """A server process of the app, stopped (SIGTERM, then SIGKILL) at the end."""
    with log.open("ab") as output:
        started = subprocess.Popen(argv, cwd=ROOT, env=env, stdout=output, stderr=subprocess.STDOUT)
    try:
        yield started
    finally:
        started.send_signal(signal.SIGTERM)
        try:
            started.wait(timeout=30)
        except subprocess.TimeoutExpired:
            started.kill()
            started.wait()


def seed(capacity: int, waiting: int, devices: Any) -> tuple[int, list[tuple[int, str]], list[int]]:
    """The event, its registered players (registration id, session) and its line (user ids)."""
    import datetime

    from django.test import Client

    from accounts.models import User
    from events import services, waitlist
    from events.models import Registration, RegistrationStatus
    from push.subscriptions import subscription_save

    house = User.objects.create_user(
        email="house@bench.example", password=None, display_name="House", is_staff=True
    )
    event_id = services.event_create(
        by=house,
        name="Waitlist bench",
        date=datetime.date.today() + datetime.timedelta(days=7),
        format="league",
        contribution=0,
    ).event_id
    services.event_update(event_id=event_id, by=house, changes={"capacity": capacity})
    services.registration_open(event_id=event_id, by=house)
    registered: list[tuple[int, str]] = []
    line: list[int] = []
    for n in range(capacity + waiting):
        player = User.objects.create_user(
            email=f"player{n}@bench.example", password=None, display_name=f"Player {n}"
        )
        answer = services.player_register(event_id=event_id, by=player)
        status = Registration.objects.get(pk=answer.registration_id).status
        if n < capacity:
            assert status == RegistrationStatus.REGISTERED, status
            browser = Client()
            browser.force_login(player)
            registered.append((answer.registration_id, browser.cookies["sessionid"].value))
        else:
            assert status == RegistrationStatus.WAITLISTED, status
            device = devices.device(f"player-{player.pk}")
            subscription_save(
                user=player,
                endpoint=device.endpoint,
                p256dh=device.p256dh,
                auth=device.auth,
                user_agent="bench",
            )
            line.append(player.pk)
    from events.models import Event

    assert [r.player_id for r in waitlist.waitlist_of(Event.objects.get(pk=event_id))] == line
    return event_id, registered, line


# The queues (with their priority lists) and the messages a worker holds: not kombu's bindings.
CELERY_KEYS = ("celery*", "announcements*", "unacked*")


def celery_keys(redis_url: str) -> list[bytes]:
    import redis

    server = redis.Redis.from_url(redis_url)
    return [key for pattern in CELERY_KEYS for key in server.scan_iter(match=pattern)]


def forget_celery(redis_url: str) -> None:
    """The run's queues, its tasks still waiting for their time (holds ending) among them."""
    import redis

    server = redis.Redis.from_url(redis_url)
    for key in celery_keys(redis_url):
        server.delete(key)


def main() -> None:
    parser = argparse.ArgumentParser(description=__doc__.splitlines()[0])
    parser.add_argument("--capacity", type=int, default=64, help="the event's places")
    parser.add_argument("--waiting", type=int, default=40, help="players on the waitlist")
    parser.add_argument("--cancels", type=int, default=40, help="cancellations, each frees one")
    parser.add_argument("--rate", type=float, default=2.0, help="cancellations a second")
    parser.add_argument("--seed", type=int, default=2026)
    parser.add_argument("--port", type=int, default=8260)
    parser.add_argument("--database", default="bench_waitlist", help="scratch database to create")
    parser.add_argument("--keep-logs", type=Path, help="keep the servers' logs in this folder")
    parser.add_argument("--quick", action="store_true", help="8 places, 6 waiting, 6 cancels")
    args = parser.parse_args()
    if args.quick:
        args.capacity, args.waiting, args.cancels = 8, 6, 6
    if args.cancels > min(args.capacity, args.waiting):
        sys.exit("--cancels may not exceed --capacity or --waiting: each frees one offered place.")

    server_url, redis_url = scratch.servers_from_environment()
    if celery_keys(redis_url):
        sys.exit(
            "REDIS_URL's database holds Celery queues: another worker may use it. Give the bench "
            "a database of its own (redis://127.0.0.1:6379/<n>)."
        )
    prefix = f"bench-waitlist-{os.getpid()}"
    folder = args.keep_logs or Path(tempfile.mkdtemp(prefix="bench-waitlist-"))
    folder.mkdir(parents=True, exist_ok=True)
    with scratch.scratch_database(server_url, args.database) as database_url:
        os.environ |= {"DATABASE_URL": database_url, "CHANNELS_PREFIX": prefix}
        os.environ |= {"CACHE_PREFIX": prefix, "REDIS_URL": redis_url, "LIVE_UPDATES": "off"}
        try:
            told = run(args, database_url, redis_url, prefix, folder)
        finally:
            from django.db import connections

            connections.close_all()
            scratch.delete_keys(redis_url, prefix)
            forget_celery(redis_url)
    if not args.keep_logs:
        for log in folder.iterdir():
            log.unlink()
        folder.rmdir()
    # Every offer told once, to the right player: anything else is an error, whatever the times.
    sys.exit(0 if told else 1)


def run(
    args: argparse.Namespace, database_url: str, redis_url: str, prefix: str, folder: Path
) -> bool:
    import django

    django.setup()
    from django.conf import settings
    from django.core.management import call_command

    from push.keys import generate
    from syndicate import launcher
    from tests.push.standin import PushService

    call_command("migrate", verbosity=0, interactive=False)
    keys = generate()
    arrived: dict[str, float] = {}

    class Receiver(PushService):
        """The stand-in push service, noting when each device's first message arrived."""

        def accept(self, path: str, headers: dict[str, str], body: bytes) -> tuple[int, str]:
            status, problem = super().accept(path, headers, body)
            if status < 300:
                arrived.setdefault(path, time.time())
            return status, problem

    with Receiver(keys.public_key) as devices:
        settings.PUSH_SERVICE_HOSTS = [devices.origin]
        _, registered, line = seed(args.capacity, args.waiting, devices)
        env = scratch.make_run_environment(database_url, redis_url, prefix) | {
            "VAPID_PUBLIC_KEY": keys.public_key,
            "VAPID_PRIVATE_KEY": keys.private_key,
            "PUSH_SERVICE_HOSTS": devices.origin,
            "LOG_LEVEL": "WARNING",
        }
        publisher = [sys.executable, "manage.py", "publish_live"]
        worker = [*launcher.worker_argv(folder), "--hostname", f"{prefix}@%h"]
        with (
            scratch.daphne(ROOT, args.port, env, folder / "daphne.log") as (base, _),
            process(publisher, env, folder / "publisher.log"),
            process(worker, env, folder / "worker.log"),
        ):
            wait_for_worker(folder / "worker.log")
            print(
                f"{os.cpu_count()} cores, load average {os.getloadavg()[0]:.1f}; {args.capacity} "
                f"places, {args.waiting} waiting, {args.cancels} cancellations at {args.rate}/s; "
                f"daphne on {base}, logs in {folder}",
                flush=True,
            )
            cancels, bare = arrive(args, registered)
            deadline = time.time() + 60
            wanted = [f"/push/player-{user_id}" for user_id in line[: args.cancels]]
            while any(path not in arrived for path in wanted) and time.time() < deadline:
                time.sleep(0.05)
            time.sleep(1.0)  # a second offer to anyone would show up here
        return report(args, cancels, bare, arrived, line, devices)


def wait_for_worker(log: Path, timeout: float = 120.0) -> None:
    deadline = time.monotonic() + timeout
    while time.monotonic() < deadline:
        if log.exists() and " ready." in log.read_text(errors="replace"):
            return
        time.sleep(0.2)
    sys.exit(f"The Celery worker did not start within {timeout:.0f} s; see {log}")


def arrive(
    args: argparse.Namespace, registered: list[tuple[int, str]]
) -> tuple[list[Timed], list[Timed]]:
    """The cancellations, open loop, and a bare request halfway between each two arrivals."""
    rng = random.Random(args.seed)
    cancels: list[Timed] = []
    bare: list[Timed] = []
    lock = threading.Lock()
    threads: list[threading.Thread] = []

    def cancel(registration_id: int, sessionid: str) -> None:
        timed = Phone(args.port, sessionid).request(
            "POST", f"/api/registrations/{registration_id}/cancel/"
        )
        with lock:
            cancels.append(timed)

    def reference(sessionid: str) -> None:
        timed = Phone(args.port, sessionid).request("GET", "/healthz")
        with lock:
            bare.append(timed)

    began = time.monotonic()
    at = 0.0
    for registration_id, sessionid in registered[: args.cancels]:
        gap = rng.expovariate(args.rate)
        pause(began + at + gap / 2)
        threads.append(threading.Thread(target=reference, args=(sessionid,)))
        threads[-1].start()
        at += gap
        pause(began + at)
        threads.append(threading.Thread(target=cancel, args=(registration_id, sessionid)))
        threads[-1].start()
    for thread in threads:
        thread.join()
    return cancels, bare


def pause(until: float) -> None:
    delay = until - time.monotonic()
    if delay > 0:
        time.sleep(delay)


def report(
    args: argparse.Namespace,
    cancels: list[Timed],
    bare: list[Timed],
    arrived: dict[str, float],
    line: list[int],
    devices: Any,
) -> bool:
    answered = sorted(cancels, key=lambda t: t.answered)
    from_sending: list[float] = []
    from_answer: list[float] = []
    missing = 0
    for timed, user_id in zip(answered, line, strict=False):
        at = arrived.get(f"/push/player-{user_id}")
        if at is None:
            missing += 1
            continue
        from_sending.append(at - timed.sent)
        from_answer.append(at - timed.answered)
    beyond = [p for p in arrived if p not in {f"/push/player-{u}" for u in line[: args.cancels]}]
    failed = [t.status for t in cancels if t.status != 200]
    rows = [
        ("reference: GET /healthz round trip", [t.seconds for t in bare]),
        ("cancel: POST .../cancel/ round trip", [t.seconds for t in cancels]),
        ("push arrival, from the cancel's sending", from_sending),
        ("push arrival, from the cancel's answer", from_answer),
    ]
    print()
    print("| measure (ms) | median / p95 / max | count |")
    print("|---|---:|---:|")
    for name, values in rows:
        print(f"| {name} | {shown(values)} | {len(values)} |")
    print()
    print(
        f"cancels answered other than 200: {failed or 'none'}; offers never pushed: {missing}; "
        f"pushed beyond the first {args.cancels} in line: {len(beyond)}; messages the push "
        f"service refused: {len(devices.refused)}; load average {os.getloadavg()[0]:.1f}"
    )
    worst = percentile(from_sending, 0.95) if from_sending else float("inf")
    met = not missing and not failed and not beyond and worst <= GOAL_SECONDS
    print(
        f"goal: every offer pushed within {GOAL_SECONDS:.0f} s of the commit (p95 from sending "
        f"{worst * 1000:,.0f} ms): {'met' if met else 'NOT met'}"
    )
    return not missing and not failed and not beyond and not devices.refused


if __name__ == "__main__":
    main()
