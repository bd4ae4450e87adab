"""The stand-in push service every push test sends to, with a fresh key pair and its host
allowed (a module that needs more settings wraps it in a fixture of the same name)."""

from __future__ import annotations

from collections.abc import Iterator

import pytest

from push.keys import generate
from tests.push.standin import STANDIN_HOSTS, PushService
from tests.push.workers import worker_on_own_queue


@pytest.fixture
def push_service(settings: object) -> Iterator[PushService]:
    keys = generate()
    settings.VAPID_PUBLIC_KEY = keys.public_key  # type: ignore[attr-defined]
    settings.VAPID_PRIVATE_KEY = keys.private_key  # type: ignore[attr-defined]
    settings.PUSH_SERVICE_HOSTS = [STANDIN_HOSTS]  # type: ignore[attr-defined]
    with PushService(keys.public_key) as service:
        yield service


@pytest.fixture
def worker() -> Iterator[None]:
    """A worker thread (the solo pool) on a queue of this test's own."""
    with worker_on_own_queue(pool="solo"):
        yield None
