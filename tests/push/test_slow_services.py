"""A dead push service delays nobody else's reminder.

A player subscribes the most devices an account may have, on endpoints that never answer. Their
deliveries hang; another player's reminder, queued after them on the same real worker (the
production pool: threads), still arrives while they hang, and the hanging ones give up after the
short timeout instead of holding a worker for minutes.
"""

from __future__ import annotations

import datetime
from collections.abc import Iterator

import pytest
from django.utils import timezone

from cards.models import Offer
from push.models import DeliveryStatus, PushDelivery
from push.subscriptions import subscription_save
from push.tasks import send_reminder
from tests.factories import make_table
from tests.push.standin import PushService
from tests.push.workers import worker_on_own_queue
from tests.waiting import wait_until

READ_TIMEOUT = 8.0  # the phone's reminder arrives well within it, even on a busy machine


@pytest.fixture
def push_service(push_service: PushService, settings: object) -> PushService:
    settings.PUSH_READ_TIMEOUT = READ_TIMEOUT  # type: ignore[attr-defined]
    return push_service


@pytest.fixture
def worker() -> Iterator[None]:
    """A worker with the production pool (threads), on a queue of this test's own."""
    with worker_on_own_queue(pool="threads", concurrency=8):
        yield None


@pytest.mark.real_celery
@pytest.mark.django_db(transaction=True)
def test_endpoints_that_never_answer_do_not_hold_up_another_players_reminder(
    push_service: PushService, worker: None, settings: object
) -> None:
    table = make_table("league", players=2, start=True)
    hanging, waiting = table.players
    for n in range(settings.PUSH_SUBSCRIPTIONS_PER_ACCOUNT):  # type: ignore[attr-defined]
        device = push_service.device(f"dead{n}")
        push_service.never_answer(f"dead{n}")
        subscription_save(
            user=hanging,
            endpoint=device.endpoint,
            p256dh=device.p256dh,
            auth=device.auth,
            user_agent="t",
        )
    phone = push_service.device("phone")
    subscription_save(
        user=waiting,
        endpoint=phone.endpoint,
        p256dh=phone.p256dh,
        auth=phone.auth,
        user_agent="t",
    )
    past = timezone.now() - datetime.timedelta(seconds=181)
    Offer.objects.update(offered_at=past, reminder_due_at=past)
    first = Offer.objects.get(registration=table.registration(hanging))
    second = Offer.objects.get(registration=table.registration(waiting))

    send_reminder.delay(first.pk)
    dead = settings.PUSH_SUBSCRIPTIONS_PER_ACCOUNT  # type: ignore[attr-defined]
    wait_until(lambda: push_service.unanswered == dead, "the dead endpoints to be sent to")
    send_reminder.delay(second.pk)

    received = push_service.wait_for(1)
    assert [r.device for r in received] == ["/push/phone"]
    # Received while every delivery to the dead endpoints was still hanging.
    statuses = set(PushDelivery.objects.filter(offer=first).values_list("status", flat=True))
    assert statuses == {DeliveryStatus.PENDING}

    # And those give up after the short timeout, not minutes later.
    wait_until(
        lambda: (
            set(PushDelivery.objects.filter(offer=first).values_list("status", flat=True))
            == {DeliveryStatus.FAILED}
        ),
        "the dead endpoints' deliveries to give up",
        timeout=READ_TIMEOUT + 30,
    )
    errors = PushDelivery.objects.filter(offer=first).values_list("last_error", flat=True)
    assert all("Timeout" in error for error in errors), list(errors)
