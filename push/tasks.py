"""Celery tasks for Poker push: thin wrappers over push.reminders, push.announcement_pushes and
push.place_offers, and the engine's hand-overs that queue them after each commit (subscribed in
`push.apps`)."""

from __future__ import annotations

import logging
from datetime import datetime
from typing import Any

from celery import shared_task, signals
from django.conf import settings

from events.changes import Announced, Committed
from push import announcement_pushes, place_offers, reminders

log = logging.getLogger(__name__)


@signals.worker_init.connect
def load_the_push_library(**kwargs: Any) -> None:
    """The worker loads pywebpush before it forks its pool: imported on the first push instead,
    it cost that push about 1.4 s (aiohttp with it), where a freed place should reach its
    player within 2 s (docs/performance.md, "A freed place reaches the next player")."""
    import pywebpush  # noqa: F401


def on_change(change: Committed) -> None:
    """A change committed: each offer it made gets its reminder's countdown."""
    for offer_id in change.offer_ids:
        schedule_reminder(offer_id)


def on_announced(announced: Announced) -> None:
    """House's announcement committed: it goes to the players' devices."""
    queue_announcement(announced.announcement_id)


def schedule_reminder(offer_id: int) -> None:
    """Queue the countdown for a new pending selection (called after commit)."""
    try:
        send_reminder.apply_async((offer_id,), countdown=settings.PUSH_REMINDER_DELAY)
    except Exception:  # the sweep catches a reminder whose countdown was lost
        log.exception("Could not queue the reminder for offer %s; the sweep will send it", offer_id)


@shared_task(acks_late=True, ignore_result=True)
def send_reminder(offer_id: int) -> int:
    """Claim one pending selection's reminder and queue a delivery to each device."""
    delivery_ids = reminders.claim(offer_id)
    for delivery_id in delivery_ids:
        deliver_reminder.delay(delivery_id)
    return len(delivery_ids)


@shared_task(bind=True, acks_late=True, ignore_result=True, max_retries=5)
def deliver_reminder(self, delivery_id: int) -> str:  # type: ignore[no-untyped-def]
    try:
        return reminders.deliver(delivery_id)
    except reminders.RetryLater as busy:
        if self.request.retries >= self.max_retries:
            reminders.give_up(delivery_id, f"gave up after {self.max_retries} retries ({busy})")
            return "failed"
        raise self.retry(countdown=min(2 ** (self.request.retries + 1), 60)) from busy


@shared_task(ignore_result=True)
def sweep_reminders() -> int:
    """Every 30 s: send any due reminder whose countdown was lost, and any stranded delivery."""
    count = 0
    for offer_id in reminders.due_offers().values_list("pk", flat=True)[:500]:
        count += send_reminder(offer_id)
    for delivery_id in reminders.stranded_deliveries().values_list("pk", flat=True)[:500]:
        deliver_reminder.delay(delivery_id)
        count += 1
    return count


def queue_announcement(announcement_id: int) -> None:
    """Queue House's announcement for Poker push (called after commit)."""
    try:
        send_announcement.delay(announcement_id)
    except Exception:  # the open pages have it already; push is best effort
        log.exception("Could not queue Poker push for announcement %s", announcement_id)


@shared_task(ignore_result=True)
def send_announcement(announcement_id: int) -> int:
    """Queue one delivery per device of the event's players with Poker push on."""
    from events.models import Announcement

    announcement = Announcement.objects.filter(pk=announcement_id).first()
    if announcement is None:
        return 0
    devices = announcement_pushes.subscriptions(announcement)
    for subscription_id in devices:
        deliver_announcement.delay(announcement_id, subscription_id)
    return len(devices)


@shared_task(acks_late=True, ignore_result=True)
def deliver_announcement(announcement_id: int, subscription_id: int) -> str:
    return announcement_pushes.deliver(announcement_id, subscription_id)


def on_place_offered(
    sender: object, *, registration_id: int, hold_until: datetime, **kwargs: Any
) -> None:
    """The waitlist offered a place (after its commit): the player is told on the default queue,
    ahead of announcements, so the request that freed the place never waits on it."""
    try:
        send_place_offer.delay(registration_id, hold_until.isoformat())
    except Exception:  # the player's page shows the offer; push and email are best effort
        log.exception("Could not queue the place offer for registration %s", registration_id)


@shared_task(acks_late=True, ignore_result=True)
def send_place_offer(registration_id: int, hold_until: str) -> int:
    """Push the offer to each of the player's devices at once, then queue its email; a device
    whose push service asks us to come back gets a delivery task of its own, later."""
    until = datetime.fromisoformat(hold_until)
    registration = place_offers.standing_offer(registration_id, until)
    if registration is None:
        return 0
    devices = place_offers.subscriptions(registration)
    for subscription_id in devices:
        try:
            place_offers.deliver(registration_id, until, subscription_id)
        except place_offers.RetryLater:
            deliver_place_offer.apply_async(
                (registration_id, hold_until, subscription_id), countdown=2
            )
    email_place_offer.delay(registration_id, hold_until)
    return len(devices)


@shared_task(bind=True, acks_late=True, ignore_result=True, max_retries=3)
def deliver_place_offer(self, registration_id: int, hold_until: str, subscription_id: int) -> str:  # type: ignore[no-untyped-def]
    try:
        return place_offers.deliver(
            registration_id, datetime.fromisoformat(hold_until), subscription_id
        )
    except place_offers.RetryLater as busy:
        if self.request.retries >= self.max_retries:
            return "failed"
        raise self.retry(countdown=2 ** (self.request.retries + 2)) from busy


@shared_task(bind=True, acks_late=True, ignore_result=True, max_retries=3)
def email_place_offer(self, registration_id: int, hold_until: str) -> bool:  # type: ignore[no-untyped-def]
    try:
        return place_offers.email(registration_id, datetime.fromisoformat(hold_until))
    except OSError as error:  # the mail server is down or refused: try again shortly
        raise self.retry(countdown=30 * (self.request.retries + 1)) from error
