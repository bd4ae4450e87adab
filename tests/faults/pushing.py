"""Reminder helpers for the fault tests: a push stand-in that holds its answer, a due selection."""

from __future__ import annotations

import datetime
import re
import threading
import time

from django.utils import timezone

from cards.models import Offer
from push.models import PushDelivery
from push.subscriptions import subscription_save
from tests.factories import Table, make_table
from tests.faults.processes import Managed, publish
from tests.push.standin import PushService
from tests.waiting import wait_until

# Celery's line for a task that returned: "Task <name>[<id>] succeeded in <seconds>s: <result>".
SWEEP_ENDED = re.compile(r"Task push\.tasks\.sweep_reminders\[[^\]]+\] succeeded in \S+s: (\d+)")


class SlowPushService(PushService):
    """The stand-in, holding its answer to the first POST after accepting it, until released."""

    def __init__(self, server_public_key: str) -> None:
        super().__init__(server_public_key)
        self.to_hold = 1
        self.holding = threading.Event()
        self.release = threading.Event()
        self.accepted_at: list[float] = []
        # The sender may be gone when the held answer is written: that is the point.
        self.httpd.handle_error = lambda request, client_address: None  # type: ignore[method-assign]

    def accept(self, path: str, headers: dict[str, str], body: bytes) -> tuple[int, str]:
        answer = super().accept(path, headers, body)
        with self.lock:
            self.accepted_at.append(time.monotonic())
            hold = self.to_hold > 0
            self.to_hold -= 1
        if hold:
            self.holding.set()
            self.release.wait(timeout=30)
        return answer

    def __enter__(self) -> SlowPushService:
        super().__enter__()
        return self

    def __exit__(self, *exc: object) -> None:
        self.release.set()
        super().__exit__(*exc)


def due_offer(service: PushService) -> tuple[Table, Offer]:
    """A started event whose first player has a phone and a due, unclaimed starting selection."""
    table = make_table("league", players=2, start=True)
    phone = service.device("phone")
    subscription_save(
        user=table.players[0],
        endpoint=phone.endpoint,
        p256dh=phone.p256dh,
        auth=phone.auth,
        user_agent="pytest",
    )
    offer = Offer.objects.get(registration=table.registration(table.players[0]))
    past = timezone.now() - datetime.timedelta(seconds=181)
    Offer.objects.filter(pk=offer.pk).update(offered_at=past, reminder_due_at=past)
    return table, offer


def delivery_of(offer: Offer) -> PushDelivery:
    (delivery,) = PushDelivery.objects.filter(offer=offer)
    return delivery


def sweep_once_more(redis_url: str, worker: Managed) -> int:
    """Queue the beat sweep and wait until the worker has run it; what it queued to send."""
    sweep = "push.tasks.sweep_reminders"
    before = worker.tasks(sweep, "succeeded")
    publish(redis_url, sweep)
    wait_until(lambda: worker.tasks(sweep, "succeeded") > before, "the sweep to run")
    return sweeps_sent(worker)[-1]


def sweeps_sent(worker: Managed) -> list[int]:
    """What each sweep the worker has run queued to send, in the order they ended (a sweep's
    result is its count, which the worker logs)."""
    return [int(n) for n in SWEEP_ENDED.findall(worker.log_text())]
