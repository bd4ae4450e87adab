"""A place offered from the waitlist is told to its player by Poker push and by email, after the
commit that freed it, with the claim link and the hold's end in the event's time zone."""

from __future__ import annotations

from datetime import datetime, timedelta
from typing import Any

import pytest
from django.core import mail
from django.utils import timezone

from accounts.models import User
from events import services, waitlist
from events.models import Event, Registration, RegistrationStatus
from push import place_offers
from push.models import PushSubscription
from push.subscriptions import subscription_save
from push.tasks import send_place_offer
from syndicate.celery import app
from tests.factories import Table, make_table, make_user
from tests.push.standin import Device, PushService
from tests.waiting import wait_until

SITE = "https://poker.example"


def subscribe(user: User, device: Device) -> None:
    subscription_save(
        user=user, endpoint=device.endpoint, p256dh=device.p256dh, auth=device.auth, user_agent="t"
    )


def capped_table(capacity: int = 1) -> Table:
    """An open League event in Chicago whose `capacity` places are taken, and Bob first in line."""
    table = make_table("league")
    services.event_update(
        event_id=table.event.pk,
        by=table.house,
        changes={"capacity": capacity, "time_zone": "America/Chicago"},
    )
    for n in range(capacity):
        table.register(make_user(f"Player {n}"))
    return table


def offered(table: Table, player: User) -> Registration:
    registration = Registration.objects.get(event=table.event, player=player)
    assert registration.status == RegistrationStatus.OFFERED
    assert registration.hold_until is not None
    return registration


def leave(table: Table) -> None:
    """The one registered player cancels, freeing their place."""
    registration = Registration.objects.select_related("player").get(
        event=table.event, status=RegistrationStatus.REGISTERED
    )
    assert registration.player is not None
    services.registration_cancel(registration_id=registration.pk, by=registration.player)


@pytest.fixture
def site(settings: Any) -> str:
    settings.SITE_URL = SITE
    return SITE


@pytest.mark.django_db
def test_it_pushes_and_emails_the_next_player_once_the_freeing_change_commits(
    push_service: PushService, site: str, django_capture_on_commit_callbacks: Any
) -> None:
    table = capped_table()
    bob = make_user("Bob")
    table.register(bob)
    subscribe(bob, push_service.device("bob-phone"))
    subscribe(bob, push_service.device("bob-tablet"))

    with django_capture_on_commit_callbacks(execute=False) as callbacks:
        leave(table)
    assert push_service.received == [] and mail.outbox == []  # nothing before the commit
    for callback in callbacks:
        callback()

    registration = offered(table, bob)
    received = push_service.wait_for(2)
    assert sorted(r.device for r in received) == ["/push/bob-phone", "/push/bob-tablet"]
    until = place_offers.local_time(registration.event, registration.hold_until)  # type: ignore[arg-type]
    assert "(America/Chicago)" in until
    for r in received:
        assert r.payload["title"] == "Thursday League: a place is yours"
        assert r.payload["body"] == (
            f"A place opened up. Claim it by {until}, or it passes to the next player."
        )
        assert r.payload["url"] == f"/events/{table.event.pk}/"
        assert r.payload["tag"] == f"place-offer-{registration.pk}"
    assert push_service.refused == []
    (message,) = mail.outbox
    assert message.to == [bob.email]
    assert message.subject == "A place opened for you at Thursday League"
    assert f"{site}/events/{table.event.pk}/" in str(message.body)
    assert until in str(message.body)


@pytest.mark.django_db
def test_the_hold_is_written_in_the_venues_time(push_service: PushService) -> None:
    table = capped_table()
    event = Event.objects.get(pk=table.event.pk)
    moment = datetime.fromisoformat("2026-12-05T01:30:00+00:00")

    assert place_offers.local_time(event, moment) == ("Fri 4 Dec 2026, 19:30 (America/Chicago)")


@pytest.mark.django_db
def test_where_the_entry_is_paid_ahead_the_offer_says_so(
    push_service: PushService, settings: Any, django_capture_on_commit_callbacks: Any
) -> None:
    settings.STRIPE_SECRET_KEY = "sk_test_offer"
    settings.STRIPE_WEBHOOK_SECRET = "whsec_test_offer"
    table = capped_table()
    services.event_update(event_id=table.event.pk, by=table.house, changes={"pay_ahead": True})
    bob = make_user("Bob")
    table.register(bob)
    subscribe(bob, push_service.device("bob-phone"))

    with django_capture_on_commit_callbacks(execute=True):
        leave(table)

    offered(table, bob)
    (received,) = push_service.wait_for(1)
    assert "and pay the $10 entry online, or it passes" in received.payload["body"]
    assert "pay the $10 entry online" in str(mail.outbox[0].body)


@pytest.mark.django_db
def test_an_offer_claimed_before_its_task_runs_is_not_told(
    push_service: PushService, django_capture_on_commit_callbacks: Any
) -> None:
    table = capped_table()
    bob = make_user("Bob")
    table.register(bob)
    subscribe(bob, push_service.device("bob-phone"))
    with django_capture_on_commit_callbacks(execute=True):
        leave(table)
    registration = offered(table, bob)
    push_service.wait_for(1)
    mail.outbox.clear()
    waitlist.place_claim(registration_id=registration.pk, by=bob)

    # The same offer's task, delivered again after the claim (a redelivery, a late worker).
    assert send_place_offer(registration.pk, registration.hold_until.isoformat()) == 0  # type: ignore[union-attr]

    assert len(push_service.received) == 1 and mail.outbox == []


@pytest.mark.django_db
def test_a_task_tells_only_of_its_own_offer(
    push_service: PushService, django_capture_on_commit_callbacks: Any
) -> None:
    table = capped_table()
    bob = make_user("Bob")
    table.register(bob)
    subscribe(bob, push_service.device("bob-phone"))
    with django_capture_on_commit_callbacks(execute=False):
        leave(table)  # offered, its task not run
    registration = offered(table, bob)
    assert registration.hold_until is not None

    # An earlier offer's task, running late, and one whose hold has ended tell nothing.
    earlier = registration.hold_until - timedelta(minutes=30)
    assert send_place_offer(registration.pk, earlier.isoformat()) == 0
    ended = timezone.now() - timedelta(seconds=1)
    Registration.objects.filter(pk=registration.pk).update(hold_until=ended)
    assert send_place_offer(registration.pk, ended.isoformat()) == 0

    assert push_service.received == [] and mail.outbox == []


@pytest.mark.django_db
def test_a_device_the_push_service_says_is_gone_is_forgotten(
    push_service: PushService, django_capture_on_commit_callbacks: Any
) -> None:
    table = capped_table()
    bob = make_user("Bob")
    table.register(bob)
    subscribe(bob, push_service.device("old-phone"))
    push_service.answer("old-phone", 410)

    with django_capture_on_commit_callbacks(execute=True):
        leave(table)

    offered(table, bob)
    assert not PushSubscription.objects.filter(user=bob).exists()
    assert len(mail.outbox) == 1  # the email still tells them


@pytest.mark.django_db
def test_a_busy_push_service_is_tried_again(
    push_service: PushService, django_capture_on_commit_callbacks: Any
) -> None:
    table = capped_table()
    bob = make_user("Bob")
    table.register(bob)
    subscribe(bob, push_service.device("bob-phone"))
    push_service.answer("bob-phone", 503, 429)

    with django_capture_on_commit_callbacks(execute=True):
        leave(table)

    (received,) = push_service.wait_for(1)
    assert received.payload["tag"] == f"place-offer-{offered(table, bob).pk}"
    assert PushSubscription.objects.filter(user=bob).exists()


def test_the_offer_goes_on_the_default_queue_ahead_of_announcements() -> None:
    for task in ("send_place_offer", "deliver_place_offer", "email_place_offer"):
        options = app.amqp.router.route({}, f"push.tasks.{task}")
        assert options["queue"].name == "celery", task
        assert options.get("priority") in (None, 0), task


@pytest.mark.real_celery
@pytest.mark.django_db(transaction=True)
def test_a_real_worker_tells_the_player_after_the_withdrawal_commits(
    push_service: PushService, worker: None
) -> None:
    table = capped_table()
    bob, cy = make_user("Bob"), make_user("Cy")
    table.register(bob)
    table.register(cy)
    subscribe(bob, push_service.device("bob-phone"))
    subscribe(cy, push_service.device("cy-phone"))

    leave(table)

    (received,) = push_service.wait_for(1)
    assert received.device == "/push/bob-phone"
    assert received.payload["tag"] == f"place-offer-{offered(table, bob).pk}"
    assert Registration.objects.get(event=table.event, player=cy).status == (
        RegistrationStatus.WAITLISTED
    )
    wait_until(lambda: len(mail.outbox) == 1, "the offer's email")
    assert mail.outbox[0].to == [bob.email]
