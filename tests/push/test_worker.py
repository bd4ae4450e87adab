"""A real Celery worker on the Redis broker sends the reminder once the delay has passed."""

from __future__ import annotations

import pytest

from cards.models import Offer
from push.models import PushDelivery
from push.subscriptions import subscription_save
from tests.factories import make_table
from tests.push.standin import PushService


@pytest.fixture
def push_service(push_service: PushService, settings: object) -> PushService:
    settings.PUSH_REMINDER_DELAY = 1  # type: ignore[attr-defined]
    return push_service


@pytest.mark.real_celery
@pytest.mark.django_db(transaction=True)
def test_a_real_worker_sends_each_pending_selection_one_reminder(
    push_service: PushService, worker: None
) -> None:
    table = make_table("league", players=3)
    phone = push_service.device("phone")
    subscription_save(
        user=table.players[0],
        endpoint=phone.endpoint,
        p256dh=phone.p256dh,
        auth=phone.auth,
        user_agent="pytest",
    )
    table.start()  # three starting offers, each with a countdown after commit
    table.choose_start(table.players[1])

    received = push_service.wait_for(1)

    assert [r.device for r in received] == ["/push/phone"]
    assert "starting cards" in received[0].payload["body"]
    offer = Offer.objects.get(registration=table.registration(table.players[0]))
    assert offer.reminded_at is not None
    resolved = Offer.objects.get(registration=table.registration(table.players[1]))
    assert resolved.reminded_at is None
    assert PushDelivery.objects.count() == 1
