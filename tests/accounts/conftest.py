"""Account test setup."""

from __future__ import annotations

import pytest
from pytest_django.fixtures import Settings


@pytest.fixture(autouse=True)
def no_sign_up_rate_limit(settings: Settings) -> None:
    """These tests sign up many times from one address; the rate limit has its own tests."""
    settings.ACCOUNT_RATE_LIMITS = False
