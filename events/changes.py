"""What a committed change touched, and House's announcements, handed to whoever listens: live
pages (`live/`) and Poker push (`push/`).

The engine imports nothing from the code that shows its state or sends its messages: `live` and
`push` subscribe here when their apps are ready, and `events.runner` calls `tell` after each
commit.
"""

from __future__ import annotations

import logging
from collections.abc import Callable
from dataclasses import dataclass

logger = logging.getLogger(__name__)


@dataclass(frozen=True, slots=True)
class Committed:
    """One committed change: its event, the players it touched, the event's version it made, the
    offers it made (each waits for its player's choice) and the audit actions it wrote
    ("event_started", "event_finalized", ...: docs/audit.md)."""

    event_id: int
    registration_ids: tuple[int, ...]
    version: int | None = None
    offer_ids: tuple[int, ...] = ()
    actions: tuple[str, ...] = ()


Listener = Callable[[Committed], None]
_listeners: list[Listener] = []


def subscribe(listener: Listener) -> None:
    if listener not in _listeners:
        _listeners.append(listener)


def tell(change: Committed) -> None:
    """Tell every listener; call only after the commit. A failing listener never fails the
    change, which is already committed."""
    for listener in list(_listeners):
        try:
            listener(change)
        except Exception:
            logger.exception("A listener of event %s's changes failed.", change.event_id)


@dataclass(frozen=True, slots=True)
class Announced:
    """House's announcement, committed: for the open pages of its event."""

    event_id: int
    announcement_id: int


AnnouncementListener = Callable[[Announced], None]
_announcement_listeners: list[AnnouncementListener] = []


def subscribe_announcements(listener: AnnouncementListener) -> None:
    if listener not in _announcement_listeners:
        _announcement_listeners.append(listener)


def announced(announcement: Announced) -> None:
    """Tell every listener of announcements; call only after the commit. A failing listener never
    fails the announcement, which is already saved (pages show it on their next load)."""
    for listener in list(_announcement_listeners):
        try:
            listener(announcement)
        except Exception:
            logger.exception(
                "A listener of event %s's announcements failed.", announcement.event_id
            )
