"""Shared test setup: the suite runs against PostgreSQL and Redis (`make test` provides both)."""

from __future__ import annotations

import os

import pytest


def pytest_configure(config: pytest.Config) -> None:
    if not os.environ.get("DJANGO_SETTINGS_MODULE"):
        return  # pure modules (scoring, payouts) tested without Django
    from django.conf import settings

    engine = settings.DATABASES["default"]["ENGINE"]
    if "postgresql" not in engine or not settings.REDIS_URL:
        raise pytest.UsageError(
            "The tests run against PostgreSQL and Redis: run `make test`, or set DATABASE_URL and "
            "REDIS_URL."
        )
