"""Websocket tests: the real ASGI application, the Redis channel layer and real transactions."""

from __future__ import annotations

import copy
import uuid
from collections.abc import Iterator
from typing import Any

import pytest
import redis

from live import delivery
from tests.waiting import PATIENCE


@pytest.fixture(autouse=True)
def live_settings(settings: Any) -> Iterator[None]:
    settings.LIVE_UPDATES = "inline"
    # The project's own layer settings, with a prefix of our own: other suites share the Redis
    # server, and event ids repeat across test databases.
    layers = copy.deepcopy(settings.CHANNEL_LAYERS)
    prefix = f"live-test-{uuid.uuid4().hex[:12]}"
    layers["default"].setdefault("CONFIG", {})["prefix"] = prefix
    settings.CHANNEL_LAYERS = layers
    yield
    assert delivery.wait_until_idle(timeout=PATIENCE)
    # Drop this test's keys. (The layer's own flush() would also close the connections the
    # live-updates worker holds on its own event loop, from this loop.)
    if settings.REDIS_URL:
        client = redis.Redis.from_url(settings.REDIS_URL)
        keys = list(client.scan_iter(f"{prefix}*"))
        if keys:
            client.delete(*keys)
        client.close()
