"""Shared test setup. The suite runs against PostgreSQL and Redis: those named by DATABASE_URL and
REDIS_URL (`make test` finds or starts them), else the embedded servers under var/ (settings)."""

from __future__ import annotations

import os
from collections.abc import Iterator

import pytest


@pytest.fixture(autouse=True)
def _celery_tasks_run_inline(request: pytest.FixtureRequest) -> object:
    """Tasks queued by the code under test run inline, unless a test starts a real worker."""
    if request.node.get_closest_marker("real_celery") or not os.environ.get(
        "DJANGO_SETTINGS_MODULE"
    ):
        yield None
        return
    from syndicate.celery import app

    before = app.conf.task_always_eager
    app.conf.task_always_eager = True
    yield None
    app.conf.task_always_eager = before


@pytest.fixture(autouse=True)
def _live_updates_off() -> Iterator[None]:
    """No publisher thread racing a test's teardown; the live tests turn publishing back on."""
    if not os.environ.get("DJANGO_SETTINGS_MODULE"):
        yield
        return
    from django.test import override_settings

    with override_settings(LIVE_UPDATES="off"):
        yield
