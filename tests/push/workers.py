"""A real Celery worker for the push tests: the tasks sent after a commit are consumed by it, on
the real Redis broker, from a queue of the test's own."""

from __future__ import annotations

import uuid
from collections.abc import Iterator
from contextlib import contextmanager
from typing import Any

from celery.contrib.testing.worker import start_worker

from syndicate.celery import app


@contextmanager
def worker_on_own_queue(**options: Any) -> Iterator[None]:
    """A Celery worker on the real Redis broker, consuming a queue of the test's own (tasks are
    sent to it, not run eagerly); `options` are start_worker's (the pool)."""
    queue = f"test-{uuid.uuid4().hex}"
    before = (app.conf.task_default_queue, app.conf.task_always_eager)
    app.conf.task_default_queue = queue
    app.conf.task_always_eager = False
    try:
        with start_worker(app, perform_ping_check=False, queues=[queue], **options):
            yield None
    finally:
        app.conf.task_default_queue, app.conf.task_always_eager = before
