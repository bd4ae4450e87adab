"""Celery tasks of the events app: thin wrappers over the functions that do the work."""

from __future__ import annotations

from datetime import datetime, timedelta

from celery import shared_task
from django.conf import settings
from django.utils import timezone

from events.models import IdempotencyRecord


def idempotency_records_expire(*, now: datetime | None = None) -> int:
    """Delete the stored answers older than `IDEMPOTENCY_RECORD_HOURS`; return how many."""
    cutoff = (now or timezone.now()) - timedelta(hours=settings.IDEMPOTENCY_RECORD_HOURS)
    deleted, _ = IdempotencyRecord.objects.filter(created_at__lt=cutoff).delete()
    return deleted


@shared_task(ignore_result=True)
def expire_idempotency_records() -> int:
    """Hourly (CELERY_BEAT_SCHEDULE)."""
    return idempotency_records_expire()
