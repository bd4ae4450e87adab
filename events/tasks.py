"""Celery tasks of the events app: thin wrappers over the functions that do the work."""

from __future__ import annotations

import logging
from datetime import datetime, timedelta

from celery import shared_task
from django.conf import settings
from django.utils import timezone

from events import waitlist
from events.errors import DomainError
from events.models import IdempotencyRecord

log = logging.getLogger(__name__)


def idempotency_records_expire(*, now: datetime | None = None) -> int:
    """Delete the stored answers older than `IDEMPOTENCY_RECORD_HOURS`; return how many."""
    cutoff = (now or timezone.now()) - timedelta(hours=settings.IDEMPOTENCY_RECORD_HOURS)
    deleted, _ = IdempotencyRecord.objects.filter(created_at__lt=cutoff).delete()
    return deleted


@shared_task(ignore_result=True)
def expire_idempotency_records() -> int:
    """Hourly (CELERY_BEAT_SCHEDULE)."""
    return idempotency_records_expire()


@shared_task(ignore_result=True)
def lapse_offers(event_id: int) -> None:
    """When a hold ends (scheduled by events/waitlist.py at its end): its offer or unpaid place
    lapses and passes on. Safe to run twice: a hold already ended is not found again."""
    try:
        waitlist.offers_lapse(event_id=event_id, by=None)
    except DomainError as refused:  # finalized, or gone, since it was scheduled: nothing to end
        log.info("Event %s's holds were not ended: %s", event_id, refused.message)


@shared_task(ignore_result=True)
def sweep_holds() -> int:
    """Every minute (CELERY_BEAT_SCHEDULE): the holds past their end whose scheduled task was
    lost; return how many events had one."""
    due = waitlist.events_with_holds_due(timezone.now())
    for event_id in due:
        try:
            waitlist.offers_lapse(event_id=event_id, by=None)
        except Exception:
            log.exception("Could not end the holds of event %s.", event_id)
    return len(due)
