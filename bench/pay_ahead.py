"""Signing up and paying ahead for a capped event: 200 players register and pay for 64 places
within a minute, through the app served as `make run` serves it, a local Stripe and signed
webhooks.

    DATABASE_URL=postgres://postgres@127.0.0.1:5432/postgres REDIS_URL=redis://127.0.0.1:6379/0 \\
        .venv/bin/python bench/pay_ahead.py      # --players 200 --capacity 64 --seconds 60
    ... bench/pay_ahead.py --quick               # 24 players, 8 places, 10 s

A scratch database (`bench_pay_ahead`, dropped at the end) holds one open League event with a
$30 entry paid ahead and `--capacity` places, and `--players` signed-in players (sessions made
in the database, as a sign-in makes them). The app runs as `make run` runs it (daphne, the
live-updates publisher, one Celery worker with beat: bench/waitlist.py starts them alike), with
STRIPE_SECRET_KEY, STRIPE_WEBHOOK_SECRET and STRIPE_API_BASE pointing the official `stripe`
library at the tests' local Stripe (tests/payments/stripe_server.py), run in this process: it
creates the Checkout Sessions, takes each payment and posts `checkout.session.completed` to the
app's webhook, signed as Stripe signs it.

The players arrive open loop: `--players` arrivals at random (a Poisson process holding that
many, seeded) in the first 95% of `--seconds`, each in a thread of its own, doing what the phone
does, through the API with its session cookie, the CSRF header and an Idempotency-Key: register
(`POST /api/events/<id>/register/`); given a place, start paying (`POST
/api/registrations/<id>/checkout/`, which answers Checkout's URL), pay on "Stripe's page", and
Stripe's signed webhook reaches the app (`POST /payments/stripe/webhook`). Each step is timed;
the reference is a bare `GET /healthz` sent halfway between arrivals.

Checked at the end, in the database and at the local Stripe: `--capacity` registrations hold a
place and are paid; the others are waitlisted, in arrival order (a player whose answer came back
before another's request left is ahead of them in line, and the API's positions count 1, 2, 3 ...
in that order); one `entry_paid` line, method online, per payment Stripe took, with its payment
intent as the reference (0 lost), at most one charge and one line per registration (0 double
charges), no refund; every webhook delivery answered 200.
"""

from __future__ import annotations

import argparse
import json
import os
import random
import sys
import tempfile
import threading
import time
from dataclasses import dataclass, field
from pathlib import Path
from typing import Any

sys.path.insert(0, str(Path(__file__).resolve().parent))
import scratch
import waitlist as served  # the servers and the phones, as the waitlist bench runs them

ROOT = served.ROOT
ENTRY = 30  # dollars
API_KEY = "sk_test_bench"
WEBHOOK_SECRET = "whsec_test_bench"


@dataclass
class Arrival:
    """One player's way through: each step's timing, and what the answers said."""

    number: int
    sessionid: str
    register: served.Timed | None = None
    checkout: served.Timed | None = None
    webhook: float | None = None  # the webhook's round trip, seconds
    done: float = 0.0  # when the last step's answer came (time.time())
    webhook_status: int = 0
    registration_id: int | None = None
    status: str = ""
    position: int | None = None
    problems: list[str] = field(default_factory=list)


def main() -> None:
    parser = argparse.ArgumentParser(description=__doc__.splitlines()[0])
    parser.add_argument("--players", type=int, default=200)
    parser.add_argument("--capacity", type=int, default=64)
    parser.add_argument("--seconds", type=float, default=60.0, help="the arrivals' span")
    parser.add_argument("--seed", type=int, default=2026)
    parser.add_argument("--port", type=int, default=8261)
    parser.add_argument("--database", default="bench_pay_ahead", help="scratch database")
    parser.add_argument("--keep-logs", type=Path, help="keep the servers' logs in this folder")
    parser.add_argument("--quick", action="store_true", help="24 players, 8 places, 10 s")
    args = parser.parse_args()
    if args.quick:
        args.players, args.capacity, args.seconds = 24, 8, 10.0

    server_url, redis_url = scratch.servers_from_environment()
    if served.celery_keys(redis_url):
        sys.exit(
            "REDIS_URL's database holds Celery queues: another worker may use it. Give the bench "
            "a database of its own (redis://127.0.0.1:6379/<n>)."
        )
    prefix = f"bench-pay-ahead-{os.getpid()}"
    folder = args.keep_logs or Path(tempfile.mkdtemp(prefix="bench-pay-ahead-"))
    folder.mkdir(parents=True, exist_ok=True)
    with scratch.scratch_database(server_url, args.database) as database_url:
        os.environ |= {"DATABASE_URL": database_url, "REDIS_URL": redis_url}
        os.environ |= {"CHANNELS_PREFIX": prefix, "CACHE_PREFIX": prefix, "LIVE_UPDATES": "off"}
        os.environ |= {"STRIPE_SECRET_KEY": API_KEY, "STRIPE_WEBHOOK_SECRET": WEBHOOK_SECRET}
        try:
            ok = run(args, database_url, redis_url, prefix, folder)
        finally:
            from django.db import connections

            connections.close_all()
            scratch.delete_keys(redis_url, prefix)
            served.forget_celery(redis_url)
    if not args.keep_logs:
        for log in folder.iterdir():
            log.unlink()
        folder.rmdir()
    sys.exit(0 if ok else 1)


def seed(players: int, capacity: int) -> tuple[int, list[str]]:
    """The event, and a signed-in session for each player."""
    import datetime

    from django.test import Client

    from accounts.models import User
    from events import services

    house = User.objects.create_user(
        email="house@bench.example", password=None, display_name="House", is_staff=True
    )
    event_id = services.event_create(
        by=house,
        name="Pay ahead bench",
        date=datetime.date.today() + datetime.timedelta(days=7),
        format="league",
        contribution=ENTRY,
        remainder_policy="Unallocated dollars roll into the next event.",
    ).event_id
    services.event_update(
        event_id=event_id, by=house, changes={"capacity": capacity, "pay_ahead": True}
    )
    services.registration_open(event_id=event_id, by=house)
    sessions = []
    for n in range(players):
        player = User.objects.create_user(
            email=f"player{n}@bench.example", password=None, display_name=f"Player {n}"
        )
        browser = Client()
        browser.force_login(player)
        sessions.append(browser.cookies["sessionid"].value)
    return event_id, sessions


def run(
    args: argparse.Namespace, database_url: str, redis_url: str, prefix: str, folder: Path
) -> bool:
    import django

    django.setup()
    from django.core.management import call_command

    from syndicate import launcher
    from tests.payments.stripe_server import StripeServer

    call_command("migrate", verbosity=0, interactive=False)
    event_id, sessions = seed(args.players, args.capacity)
    stripe = StripeServer(api_key=API_KEY, webhook_secret=WEBHOOK_SECRET).start()
    try:
        env = scratch.make_run_environment(database_url, redis_url, prefix) | {
            "STRIPE_SECRET_KEY": API_KEY,
            "STRIPE_WEBHOOK_SECRET": WEBHOOK_SECRET,
            "STRIPE_API_BASE": stripe.url,
            "LOG_LEVEL": "WARNING",
        }
        publisher = [sys.executable, "manage.py", "publish_live"]
        worker = [*launcher.worker_argv(folder), "--hostname", f"{prefix}@%h"]
        with (
            scratch.daphne(ROOT, args.port, env, folder / "daphne.log") as (base, _),
            served.process(publisher, env, folder / "publisher.log"),
            served.process(worker, env, folder / "worker.log"),
        ):
            stripe.webhook_url = f"{base}/payments/stripe/webhook"
            served.wait_for_worker(folder / "worker.log")
            print(
                f"{os.cpu_count()} cores, load average {os.getloadavg()[0]:.1f}; "
                f"{args.players} players for {args.capacity} places over {args.seconds:.0f} s; "
                f"daphne on {base}, logs in {folder}",
                flush=True,
            )
            began = time.time()
            arrivals, bare = arrive(args, event_id, sessions, stripe)
            last = max((a.done for a in arrivals), default=began)
            spent = max([last, *(a.register.answered for a in arrivals if a.register)]) - began
        return report(args, event_id, arrivals, bare, stripe, spent)
    finally:
        stripe.stop()


def arrive(
    args: argparse.Namespace, event_id: int, sessions: list[str], stripe: Any
) -> tuple[list[Arrival], list[served.Timed]]:
    rng = random.Random(args.seed)
    arrivals = [Arrival(n, sessionid) for n, sessionid in enumerate(sessions)]
    bare: list[served.Timed] = []
    lock = threading.Lock()
    threads: list[threading.Thread] = []

    def reference(sessionid: str) -> None:
        timed = served.Phone(args.port, sessionid).request("GET", "/healthz")
        with lock:
            bare.append(timed)

    # A Poisson process holding `players` arrivals in the span: its times are sorted uniform
    # draws. The last arrives with 5% of the span left, for its payment to land within it.
    times = sorted(rng.uniform(0, args.seconds * 0.95) for _ in arrivals)
    began = time.monotonic()
    before = 0.0
    for arrival, at in zip(arrivals, times, strict=True):
        served.pause(began + (before + at) / 2)
        threads.append(threading.Thread(target=reference, args=(arrival.sessionid,)))
        threads[-1].start()
        served.pause(began + at)
        threads.append(threading.Thread(target=play, args=(args, event_id, arrival, stripe)))
        threads[-1].start()
        before = at
    for thread in threads:
        thread.join()
    return arrivals, bare


def play(args: argparse.Namespace, event_id: int, arrival: Arrival, stripe: Any) -> None:
    """What a player's phone does: register; with a place, pay through Checkout."""
    phone = served.Phone(args.port, arrival.sessionid)
    arrival.register = phone.request("POST", f"/api/events/{event_id}/register/")
    if arrival.register.status != 201:
        arrival.problems.append(f"register answered {arrival.register.status}")
        return
    answer = json.loads(arrival.register.body)
    arrival.registration_id = int(answer["registration_id"])
    arrival.status = answer["status"]
    arrival.position = answer.get("position")
    if arrival.status != "registered":
        return
    arrival.checkout = phone.request(
        "POST", f"/api/registrations/{arrival.registration_id}/checkout/"
    )
    if arrival.checkout.status != 200:
        arrival.problems.append(f"checkout answered {arrival.checkout.status}")
        return
    session_id = json.loads(arrival.checkout.body)["session_id"]
    event = stripe.pay(session_id, deliver=False)  # the player pays on Checkout's page
    sent = time.time()
    arrival.webhook_status = stripe.deliver(event)  # Stripe tells the app, signed
    arrival.done = time.time()
    arrival.webhook = arrival.done - sent
    if arrival.webhook_status != 200:
        arrival.problems.append(f"the webhook answered {arrival.webhook_status}")


def report(
    args: argparse.Namespace,
    event_id: int,
    arrivals: list[Arrival],
    bare: list[served.Timed],
    stripe: Any,
    spent: float,
) -> bool:
    from events.models import Event, Registration, RegistrationStatus
    from ledger.lines import lines_of

    event = Event.objects.get(pk=event_id)
    rows = {r.pk: r for r in Registration.objects.filter(event=event)}
    problems = [f"player {a.number}: {p}" for a in arrivals for p in a.problems]
    holding = [r for r in rows.values() if r.status == RegistrationStatus.REGISTERED]
    waiting = [r for r in rows.values() if r.status == RegistrationStatus.WAITLISTED]
    paid = [r for r in holding if r.paid]
    others = len(rows) - len(holding) - len(waiting)

    # Arrival order: whoever's answer came back before another's request left is ahead of them.
    served_order = sorted(
        (a for a in arrivals if a.registration_id is not None), key=lambda a: a.registration_id or 0
    )
    rank = {a.number: n for n, a in enumerate(served_order)}
    out_of_order = sum(
        1
        for a in served_order
        for b in served_order
        if a.register and b.register and a.register.answered < b.register.sent
        if rank[a.number] > rank[b.number]
    )
    first = {a.registration_id for a in served_order[: args.capacity]}
    places_to_first = {r.pk for r in holding} == first
    line = sorted(waiting, key=lambda r: r.waitlist_seq or 0)
    line_in_order = [r.pk for r in line] == sorted(r.pk for r in line)
    positions = [a.position for a in served_order if a.status == "waitlisted"]
    positions_count = positions == list(range(1, len(positions) + 1))

    entry_lines = [x for x in lines_of(event) if x.action == "entry_paid"]
    by_label = {r.label: r.pk for r in rows.values()}
    lines_per_registration: dict[int, int] = {}
    for x in entry_lines:
        key = by_label.get(x.player, -1)
        lines_per_registration[key] = lines_per_registration.get(key, 0) + 1
    intents = {c["payment_intent"] for c in stripe.charges}
    references = [x.note for x in entry_lines]
    lost = len(intents - set(references))
    charges_per_registration: dict[str, int] = {}
    for c in stripe.charges:
        rid = stripe.sessions[c["session"]]["metadata"].get("registration_id", "?")
        charges_per_registration[rid] = charges_per_registration.get(rid, 0) + 1
    double = sum(n - 1 for n in charges_per_registration.values() if n > 1) + sum(
        n - 1 for n in lines_per_registration.values() if n > 1
    )
    wrong_lines = [x for x in entry_lines if x.method != "online" or x.amount != ENTRY]
    webhooks = [d.status for d in stripe.deliveries]

    registers = [a.register.seconds for a in arrivals if a.register]
    checkouts = [a.checkout.seconds for a in arrivals if a.checkout]
    deliveries = [a.webhook for a in arrivals if a.webhook is not None]
    steps = [
        ("reference: GET /healthz", [t.seconds for t in bare]),
        ("register: POST /api/events/<id>/register/", registers),
        ("checkout: POST /api/registrations/<id>/checkout/", checkouts),
        ("webhook: POST /payments/stripe/webhook", deliveries),
    ]
    reference = scratch.percentile(steps[0][1], 0.95)
    print()
    print("| step | requests | median (ms) | p95 (ms) | p95 / reference p95 |")
    print("|---|---:|---:|---:|---:|")
    for name, values in steps:
        p95 = scratch.percentile(values, 0.95)
        median = sorted(values)[len(values) // 2] if values else float("nan")
        print(
            f"| {name} | {len(values)} | {median * 1000:,.0f} | {p95 * 1000:,.0f} | "
            f"{p95 / reference:.1f}x |"
        )
    checks = [
        (f"{args.capacity} registered and paid", len(holding) == len(paid) == args.capacity),
        (
            f"{args.players - args.capacity} waitlisted",
            len(waiting) == args.players - args.capacity,
        ),
        ("no registration in another state", others == 0),
        ("the places went to the first to arrive", places_to_first),
        ("the line is in arrival order", line_in_order and out_of_order == 0),
        ("the positions answered count 1, 2, 3 ...", positions_count),
        ("0 double charges", double == 0),
        ("0 lost payments", lost == 0 and len(entry_lines) == len(intents) == args.capacity),
        ("every entry line online, the entry's amount", not wrong_lines),
        ("no refund", not stripe.refunds),
        ("every webhook answered 200", all(s == 200 for s in webhooks)),
        ("no request refused", not problems),
    ]
    print()
    print(
        f"{len(arrivals)} arrivals, the last answer (a payment confirmed) {spent:.1f} s after the "
        f"arrivals began; {len(holding)} registered ({len(paid)} paid), "
        f"{len(waiting)} waitlisted, {others} other; {len(stripe.charges)} charges, "
        f"{len(entry_lines)} entry lines, {len(webhooks)} webhook deliveries; pairs out of "
        f"arrival order {out_of_order}; load average {os.getloadavg()[0]:.1f}"
    )
    for name, held in checks:
        print(f"- {name}: {'yes' if held else 'NO'}")
    for problem in problems[:10]:
        print(f"  {problem}")
    return all(held for _, held in checks)


if __name__ == "__main__":
    main()
