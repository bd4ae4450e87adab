"""Redis restarted empty: nothing saved is lost, live updates resume, the sweep sends reminders.

Redis carries the channel layer, the cache and the Celery broker; the state is in PostgreSQL. A
private Redis serves daphne and a Celery worker; it is killed and started again empty (the worst
case: docker-compose.yml runs Redis with an append-only file, which keeps the queue across a plain
restart, but not across a lost volume or a failover to an empty replica).

The tests marked xfail(strict=True) state what should hold and does not yet (docs/reliability.md).
"""

from __future__ import annotations

import json
import time
import uuid
from collections.abc import Iterator
from dataclasses import dataclass
from typing import Any

import pytest
from django.utils import timezone

from accounts.models import User
from cards.models import Offer, OfferKind
from events.models import Event, GameResult
from events.reads.board import board_view
from events.reads.common import to_json
from push.keys import VapidKeys
from push.models import DeliveryStatus, PushDelivery
from push.subscriptions import subscription_save
from tests.factories import Table, make_table
from tests.faults.clients import Api, LiveSocket, Loop, session_cookie
from tests.faults.processes import (
    Managed,
    Processes,
    RedisServer,
    app_env,
    publish,
    report,
)
from tests.faults.pushing import due_offer, sweeps_sent
from tests.push.standin import PushService
from tests.waiting import holds_throughout, wait_until

TRANSACTIONAL = pytest.mark.django_db(transaction=True)

REMINDER_DELAY = 4  # seconds, in the daphne process that creates the win offer


@pytest.fixture
def push_service(vapid: VapidKeys) -> Iterator[PushService]:
    with PushService(vapid.public_key) as service:
        yield service


def as_sent(value: Any) -> Any:
    return json.loads(json.dumps(value))


@dataclass
class Stack:
    """A private Redis, one daphne process on it, an event in play and its players' API clients."""

    redis: RedisServer
    server: Managed
    env: dict[str, str]
    table: Table
    apis: dict[int, Api]

    def submit(self, player: User, game: int, outcome: str) -> dict[str, Any]:
        path = f"/api/registrations/{self.table.rid(player)}/results/"
        body = {"game": game, "outcome": outcome}
        response = self.apis[player.pk].post(self.server.url, path, body)
        assert response.status_code == 201, response.text
        return dict(response.json())

    def sockets(self, loop: Loop, players: list[User], boards: int = 2) -> list[LiveSocket]:
        event_id = self.table.event.pk
        servers = [self.server.url]
        found = [LiveSocket(loop, f"/ws/events/{event_id}/board/", servers) for _ in range(boards)]
        found += [
            LiveSocket(loop, f"/ws/events/{event_id}/player/", servers, session_cookie(p))
            for p in players
        ]
        for s in found:
            s.wait_for(lambda k: k.event_stream in k.snapshots(1), "the first snapshot")
        return found

    def version(self) -> int:
        return Event.objects.get(pk=self.table.event.pk).version


def stack(processes: Processes, vapid: VapidKeys) -> Stack:
    redis_server = processes.redis()
    env = app_env(
        redis_server.url,
        CHANNELS_PREFIX=f"faults-{uuid.uuid4().hex[:8]}",
        LIVE_UPDATES="background",
        PUSH_REMINDER_DELAY=str(REMINDER_DELAY),
        VAPID_PUBLIC_KEY=vapid.public_key,
        VAPID_PRIVATE_KEY=vapid.private_key,
    )
    server = processes.daphne("daphne", env)
    table = make_table("league", players=3, start=True)
    for player in table.players:
        table.choose_start(player)
    apis = {p.pk: Api(p) for p in table.players}
    server.wait_ready()
    return Stack(redis_server, server, env, table, apis)


def wait_settled(sockets: list[LiveSocket], since: float, quiet: float = 1.0) -> float:
    """Wait until every socket is open with its snapshots and none has closed or opened for
    `quiet` seconds; return the seconds from `since`."""

    def settled() -> bool:
        now = time.monotonic()
        if now - since < quiet:
            return False
        for k in sockets:
            moments = [at for at, _ in k.opened] + [c.at for c in k.closes]
            is_open = len(k.closes) < k.connection
            if not is_open or k.event_stream not in k.snapshots(k.connection):
                return False
            if now - max(moments) < quiet:
                return False
        return True

    wait_until(settled, "the sockets to settle")
    return time.monotonic() - since


def worker_fate(worker: Managed, logged: int) -> str:
    """What a worker did after its broker restarted: "reconnected" or "unrecoverable error"."""

    def decided() -> bool:
        later = worker.log_text()[logged:]
        return not worker.alive() or "Connected to" in later or "Unrecoverable error" in later

    wait_until(decided, "the worker to reconnect or fail")
    later = worker.log_text()[logged:]
    return (
        "unrecoverable error"
        if "Unrecoverable error" in later or not worker.alive()
        else ("reconnected")
    )


@TRANSACTIONAL
def test_a_redis_restart_loses_nothing_saved_and_the_sweep_sends_the_lost_reminder(
    processes: Processes, loop: Loop, vapid: VapidKeys, push_service: PushService
) -> None:
    s = stack(processes, vapid)
    worker = processes.worker("worker-1", s.env)
    first, second, third = s.table.players
    phone = push_service.device("phone")
    subscription_save(
        user=first, endpoint=phone.endpoint, p256dh=phone.p256dh, auth=phone.auth, user_agent="t"
    )
    worker.wait_ready()
    sockets = s.sockets(loop, [first, second])

    # Accepted before the restart: two losses and a win, whose reminder is counted down in Redis.
    accepted = [s.submit(second, 1, "loss"), s.submit(third, 1, "loss"), s.submit(first, 1, "win")]
    win = Offer.objects.get(registration=s.table.registration(first), kind=OfferKind.WIN)
    due = win.reminder_due_at
    assert due is not None
    version = s.version()
    for socket in sockets:
        socket.wait_version(socket.event_stream, version, "the updates")
    countdown = "push.tasks.send_reminder"
    wait_until(lambda: worker.tasks(countdown, "received") >= 1, "the worker to take it")
    unacked = s.redis.client().hlen("unacked")  # the countdown, held by the worker until due

    logged = len(worker.log_text())
    restarted_at = time.monotonic()
    down_for = s.redis.restart_empty()
    assert due > timezone.now()  # the restart came before the reminder was due

    # daphne closes every socket (1011) when its channel layer fails; live.js reconnects.
    settled_after = wait_settled(sockets, restarted_at)
    # The worker reconnects, or exits (test_a_worker_holding_a_countdown_survives_a_redis_restart);
    # docker-compose.yml's restart policy then starts it again, and so does this test.
    fate = worker_fate(worker, logged)
    if fate != "reconnected":
        worker.kill()
        worker = processes.worker("worker-2", s.env)
        worker.wait_ready()

    # Changes after the restart are accepted (the state is in PostgreSQL); the sockets get there.
    accepted.append(s.submit(second, 2, "loss"))
    x = s.version()
    for k in sockets:
        k.wait_version(k.event_stream, x, "the first change after the restart")
    accepted.append(s.submit(third, 2, "loss"))
    after = Event.objects.get(pk=s.table.event.pk)
    for k in sockets:
        k.wait_version(k.event_stream, after.version, "the latest version")
        latest = [f for f in k.frames if f.message["stream"] == k.event_stream][-1]
        assert latest.message["version"] == after.version
        if k.event_stream == "board":
            # An update carries what moved since its base: the page's data, patched.
            assert k.data_at("board", after.version) == as_sent(to_json(board_view(after).data))

    # Nothing accepted was lost.
    for answer in accepted:
        assert GameResult.objects.filter(
            registration_id=answer["registration_id"], game=answer["game"]
        ).exists()

    # The win's countdown was in Redis: once it is due, and for a while after (a countdown still
    # held by the worker would fire then), nothing has been sent ...
    wait_until(lambda: timezone.now() >= due, "the reminder to be due")

    def nothing_sent() -> bool:
        win.refresh_from_db()
        return (len(push_service.received), win.reminded_at) == (0, None)

    holds_throughout(nothing_sent, "nothing sent by the lost countdown", seconds=1.5)
    sent_by_countdown = len(push_service.received)

    # ... until the beat sweep runs: it sends the reminder once; a second sweep sends nothing.
    publish(s.redis.url, "push.tasks.sweep_reminders")
    push_service.wait_for(1)
    publish(s.redis.url, "push.tasks.sweep_reminders")
    sweep = "push.tasks.sweep_reminders"
    wait_until(lambda: worker.tasks(sweep, "succeeded") >= 2, "both sweeps")
    # One sweep queued the reminder, the other nothing: no later delivery can come.
    assert sorted(sweeps_sent(worker)) == [0, 1]
    wait_until(
        lambda: PushDelivery.objects.get(offer=win).status != DeliveryStatus.PENDING, "the delivery"
    )
    assert [r.payload["tag"] for r in push_service.received] == [f"offer-{win.pk}"]
    delivery = PushDelivery.objects.get(offer=win)
    assert (delivery.status, delivery.attempts) == (DeliveryStatus.SENT, 1)

    report(
        "redis_restarted",
        redis_down_ms=round(down_for * 1000),
        close_codes=sorted({c.code or 0 for k in sockets for c in k.closes}),
        settled_after_restart_s=round(settled_after, 2),
        connections=[k.connection for k in sockets],
        worker_after_restart=fate,
        countdowns_unacked_at_restart=unacked,
        results_accepted=len(accepted),
        results_in_db=GameResult.objects.filter(registration__event=s.table.event).count(),
        reminders_sent_by_countdown=sent_by_countdown,
        reminders_sent_by_sweeps=len(push_service.received),
        final_version=after.version,
    )
    for k in sockets:
        k.close()


@TRANSACTIONAL
def test_the_first_change_after_a_redis_restart_reaches_open_sockets(
    processes: Processes, loop: Loop, vapid: VapidKeys
) -> None:
    s = stack(processes, vapid)
    first, second, _ = s.table.players
    sockets = s.sockets(loop, [first])
    s.submit(first, 1, "loss")  # the daphne process's live-updates worker now holds a connection
    version = s.version()
    for k in sockets:
        k.wait_version(k.event_stream, version, "the update")

    restarted_at = time.monotonic()
    s.redis.restart_empty()
    wait_settled(sockets, restarted_at)
    s.submit(second, 1, "loss")
    version = s.version()
    for k in sockets:
        k.wait_version(k.event_stream, version, "the first change")


@pytest.mark.xfail(
    strict=True,
    reason="defect (celery 5.7.0 / kombu 5.7.0): a worker that holds an unacknowledged message, "
    "such as a reminder countdown, exits on a Redis restart with 'Unrecoverable error: "
    "AttributeError: NoneType object has no attribute hostname'",
)
def test_a_worker_holding_a_countdown_survives_a_redis_restart(processes: Processes) -> None:
    redis_server = processes.redis()
    worker = processes.worker("worker", app_env(redis_server.url), pool="prefork")
    worker.wait_ready()
    publish(redis_server.url, "push.tasks.send_reminder", 0, countdown=60)
    countdown = "push.tasks.send_reminder"
    wait_until(lambda: worker.tasks(countdown, "received") >= 1, "the worker to take it")

    logged = len(worker.log_text())
    redis_server.restart_empty()
    assert worker_fate(worker, logged) == "reconnected", worker.log_text()[logged:][-2000:]


@TRANSACTIONAL
def test_a_claimed_reminder_whose_delivery_message_was_lost_is_still_sent(
    processes: Processes, vapid: VapidKeys, push_service: PushService
) -> None:
    redis_server = processes.redis()
    env = app_env(
        redis_server.url,
        VAPID_PUBLIC_KEY=vapid.public_key,
        VAPID_PRIVATE_KEY=vapid.private_key,
        # What the sweep treats as stranded: at once here, instead of five minutes.
        PUSH_STRANDED_AFTER="0",
    )
    worker = processes.worker("worker-1", env)
    _, offer = due_offer(push_service)
    push_service.answer("phone", 503)  # busy once: `deliver_reminder` retries in 2 s
    worker.wait_ready()

    publish(redis_server.url, "push.tasks.send_reminder", offer.pk)
    wait_until(lambda: "Retry in" in worker.log_text(), "the retry to be queued")
    redis_server.restart_empty()
    worker.kill()  # it exits anyway (see the test above); docker-compose.yml restarts it
    replacement = processes.worker("worker-2", env)
    replacement.wait_ready()
    sweep = "push.tasks.sweep_reminders"
    for _ in range(2):
        publish(redis_server.url, sweep)
    push_service.wait_for(1)
    # Both sweeps have run: the reminder was sent once, and its delivery row says so.
    wait_until(lambda: replacement.tasks(sweep, "succeeded") >= 2, "both sweeps")
    # Each sweep may find the delivery still stranded and queue it again; every one queued has
    # ended before the count below (a repeat finds it sent and sends nothing).
    queued = sum(sweeps_sent(replacement))
    deliver = "push.tasks.deliver_reminder"
    wait_until(lambda: replacement.tasks(deliver, "succeeded") >= queued, "the queued deliveries")
    delivery = PushDelivery.objects.get(offer=offer)
    assert delivery.status == DeliveryStatus.SENT, (delivery.status, delivery.last_error)
    assert len(push_service.received) == 1
