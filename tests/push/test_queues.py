"""Reminders come before announcements: announcement pushes have a queue of their own, at the
lowest priority, and every worker consumes both.

The routing is asserted through Celery's own router; a real worker with one process (as `make run`
starts it) sends a reminder while a backlog of announcement deliveries is still queued.
"""

from __future__ import annotations

import datetime
import uuid
from collections.abc import Iterator
from pathlib import Path
from typing import Any, cast

import pytest
import yaml
from celery.contrib.testing.worker import start_worker
from django.conf import settings
from django.utils import timezone

from cards.models import Offer
from events import services
from events.announcements import PER_WINDOW
from push.subscriptions import subscription_save
from push.tasks import send_reminder
from syndicate import launcher
from syndicate.celery import app
from tests.factories import make_table
from tests.push.standin import PushService
from tests.waiting import wait_until

ROOT = Path(__file__).resolve().parents[2]
REMINDER_TASKS = ("send_reminder", "deliver_reminder", "sweep_reminders")
ANNOUNCEMENT_TASKS = ("send_announcement", "deliver_announcement")
# Each announcement delivery to a device that never answers holds the one worker process this long.
READ_TIMEOUT = 1.0


def route(task: str) -> dict[str, Any]:
    return app.amqp.router.route({}, f"push.tasks.{task}")


def test_announcement_pushes_queue_apart_at_the_lowest_priority() -> None:
    for task in ANNOUNCEMENT_TASKS:
        options = route(task)
        assert options["queue"].name == "announcements", task
        assert options["priority"] == 9, task  # Redis: 0 first, 9 last
    for task in REMINDER_TASKS:
        options = route(task)
        assert options["queue"].name == "celery", task
        assert options.get("priority") in (None, 0), task
    assert app.conf.task_default_queue == "celery"


def test_every_worker_consumes_both_queues_reminders_first() -> None:
    queues = ",".join(settings.WORKER_QUEUES)
    assert queues == "celery,announcements"
    assert f"--queues={queues}" in launcher.worker_argv(Path("var"))
    compose = yaml.safe_load((ROOT / "docker-compose.yml").read_text())
    workers = [
        service["command"]
        for service in compose["services"].values()
        if isinstance(service.get("command"), list) and "worker" in service["command"]
    ]
    assert workers
    for command in workers:
        assert f"--queues={queues}" in command


@pytest.fixture
def push_service(push_service: PushService, settings: object) -> PushService:
    settings.PUSH_READ_TIMEOUT = READ_TIMEOUT  # type: ignore[attr-defined]
    return push_service


@pytest.fixture
def worker() -> Iterator[None]:
    """One worker process (the solo pool), consuming this test's own two queues, routed as the
    settings route them."""
    suffix = uuid.uuid4().hex
    default, announcements = f"test-{suffix}", f"test-announcements-{suffix}"
    before = (app.conf.task_default_queue, app.conf.task_routes, app.conf.task_always_eager)
    app.conf.task_default_queue = default
    app.conf.task_routes = {
        task: {**options, "queue": announcements} for task, options in before[1].items()
    }
    reroute()
    app.conf.task_always_eager = False
    try:
        with start_worker(
            app, pool="solo", perform_ping_check=False, queues=[default, announcements]
        ):
            yield None
    finally:
        with app.connection_for_write() as connection:
            channel = cast(Any, connection.default_channel)  # kombu's stubs omit queue_purge
            for queue in (default, announcements):
                channel.queue_purge(queue)
        app.conf.task_default_queue, app.conf.task_routes, app.conf.task_always_eager = before
        reroute()


def reroute() -> None:
    """Celery reads the routes once, into a router it keeps: build both again."""
    app.amqp.flush_routes()
    app.amqp.__dict__.pop("router", None)


@pytest.mark.real_celery
@pytest.mark.django_db(transaction=True)
def test_a_reminder_is_sent_while_announcement_deliveries_are_still_queued(
    push_service: PushService, worker: None
) -> None:
    table = make_table("league", players=3, start=True)
    *listening, waiting = table.players
    devices = 0
    for player in listening:
        for n in range(settings.PUSH_SUBSCRIPTIONS_PER_ACCOUNT):
            name = f"dead-{player.pk}-{n}"
            device = push_service.device(name)
            push_service.never_answer(name)
            subscription_save(
                user=player,
                endpoint=device.endpoint,
                p256dh=device.p256dh,
                auth=device.auth,
                user_agent="t",
            )
            devices += 1
    phone = push_service.device("phone")
    subscription_save(
        user=waiting, endpoint=phone.endpoint, p256dh=phone.p256dh, auth=phone.auth, user_agent="t"
    )
    for n in range(PER_WINDOW):
        services.announcement_send(event_id=table.event.pk, by=table.house, text=f"Note {n}")
    backlog = PER_WINDOW * devices  # each one holds the worker READ_TIMEOUT seconds
    wait_until(lambda: push_service.unanswered >= 1, "an announcement to be sent")

    past = timezone.now() - datetime.timedelta(seconds=181)
    offer = Offer.objects.get(registration=table.registration(waiting))
    Offer.objects.filter(pk=offer.pk).update(offered_at=past, reminder_due_at=past)
    send_reminder.delay(offer.pk)

    def reminders() -> list[str]:
        return [r.payload["body"] for r in push_service.received if r.payload["tag"] == tag]

    tag = f"offer-{offer.pk}"
    # However long the wait, the reminder went after at most the deliveries already under way, not
    # after the backlog.
    wait_until(lambda: bool(reminders()), "the reminder")
    attempted = push_service.unanswered
    assert len(reminders()) == 1 and "starting cards" in reminders()[0]
    assert attempted <= 4, f"{attempted} of {backlog} announcement deliveries went first"
