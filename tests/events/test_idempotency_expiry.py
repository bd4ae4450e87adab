"""Stored answers to keyed writes expire after 24 hours (hourly beat task)."""

from __future__ import annotations

import datetime
import uuid
from typing import Any

import pytest
from django.conf import settings
from django.utils import timezone

from events.models import IdempotencyRecord
from events.tasks import expire_idempotency_records
from syndicate.celery import app
from tests.api.support import Api
from tests.factories import make_table, make_user

pytestmark = pytest.mark.django_db


def register(api: Api, event_id: int, key: str) -> Any:
    return api.post(f"/api/events/{event_id}/register/", key=key)


def test_records_older_than_a_day_are_deleted_and_newer_ones_kept() -> None:
    old_table, new_table = make_table(), make_table()
    player = make_user()
    api = Api(player)
    old_key, new_key = uuid.uuid4().hex, uuid.uuid4().hex
    assert register(api, old_table.event.pk, old_key).status_code in (200, 201)
    assert register(api, new_table.event.pk, new_key).status_code in (200, 201)
    now = timezone.now()
    IdempotencyRecord.objects.filter(key=old_key).update(
        created_at=now - datetime.timedelta(hours=24, seconds=1)
    )
    IdempotencyRecord.objects.filter(key=new_key).update(
        created_at=now - datetime.timedelta(hours=23, minutes=59)
    )

    assert expire_idempotency_records.delay().get() == 1

    assert list(IdempotencyRecord.objects.values_list("key", flat=True)) == [new_key]
    # The expired key is free again; the kept one still replays its first answer.
    again = register(api, new_table.event.pk, new_key)
    assert again.status_code in (200, 201)
    assert IdempotencyRecord.objects.filter(user=player).count() == 1


def test_beat_runs_the_expiry_every_hour() -> None:
    entry = settings.CELERY_BEAT_SCHEDULE["expire-idempotency-records"]
    assert entry == {"task": "events.tasks.expire_idempotency_records", "schedule": 3600.0}
    app.loader.import_default_modules()
    assert entry["task"] in app.tasks


def test_the_expiry_finds_old_records_by_index() -> None:
    indexed = {tuple(index.fields) for index in IdempotencyRecord._meta.indexes}
    assert ("created_at",) in indexed
