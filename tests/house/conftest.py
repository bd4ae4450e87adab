"""Shared fixtures for the House pages."""

from __future__ import annotations

import pytest

from tests.events.test_rules_support import FAST_HASHERS


@pytest.fixture(autouse=True)
def _fast_passwords(settings):
    settings.PASSWORD_HASHERS = FAST_HASHERS
