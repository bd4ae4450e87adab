"""Celery tasks of the standby copy: thin wrappers over `standby.snapshots`, and the engine's
hand-over that queues them after each commit (subscribed in `standby.apps`)."""

from __future__ import annotations

import logging

from celery import shared_task
from django.conf import settings

from events.changes import Committed
from standby import snapshots

logger = logging.getLogger(__name__)


def on_change(change: Committed) -> None:
    """A change committed: a start or a finalization gets its snapshot, by the worker."""
    if not settings.STANDBY_DIR:
        return
    for action, step in snapshots.STEPS.items():
        if action in change.actions:
            try:
                take_snapshot.delay(change.event_id, step)
            except Exception:
                logger.exception(
                    "Could not queue the snapshot of event %s (%s).", change.event_id, step
                )


@shared_task(ignore_result=True)
def take_snapshot(event_id: int, step: snapshots.Step) -> str:
    """Dump the database into the standby folder after a start or a finalization; the file's
    path, or "" when there is none (the log says why)."""
    taken = snapshots.take(event_id=event_id, step=step)
    return str(taken.path) if taken.path is not None else ""
