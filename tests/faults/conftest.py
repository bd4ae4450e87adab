"""Fault tests: real daphne, Celery and Redis processes on the test database.

Each test that needs Redis starts a private one (`processes.redis()`), so a restart or a
lost message never touches the shared server that other suites use. This process keeps running
Celery tasks inline (the suite's autouse fixture) and its live updates off: anything it queued
would otherwise go to the shared Redis. Tasks for the real workers are published explicitly to
the private broker (`processes.publish`).
"""

from __future__ import annotations

from collections.abc import Iterator
from pathlib import Path

import pytest
from pytest_django.fixtures import Settings

from push.keys import VapidKeys, generate
from tests.faults.clients import Loop
from tests.faults.processes import Processes
from tests.push.standin import STANDIN_HOSTS


@pytest.fixture(autouse=True)
def fault_settings(settings: Settings) -> None:
    settings.LIVE_UPDATES = "off"


@pytest.fixture
def processes(tmp_path: Path) -> Iterator[Processes]:
    """Every process the test starts; all are stopped afterwards, pass or fail."""
    started = Processes(folder=tmp_path)
    try:
        yield started
    finally:
        started.stop_all()


@pytest.fixture
def loop() -> Iterator[Loop]:
    running = Loop()
    try:
        yield running
    finally:
        running.close()


@pytest.fixture
def vapid(settings: Settings) -> VapidKeys:
    keys = generate()
    settings.VAPID_PUBLIC_KEY = keys.public_key
    settings.VAPID_PRIVATE_KEY = keys.private_key
    settings.PUSH_SERVICE_HOSTS = [STANDIN_HOSTS]
    return keys
