"""Announcements on open player pages: one frame to the event's player sockets, after commit.

Every player socket of the event listens on `places.<event id>` (`live.consumers`), so one group
message reaches them all; the frame is rendered once:

    {"type": "announcement", "data": {"id", "text", "sent_by", "sent_at"}, "html": <the item>}

It carries no version: an announcement is not part of a stream's state, and a page that missed
one (offline at the time) shows it from the list it renders on its next load.
"""

from __future__ import annotations

import json
import logging

from django.template.loader import render_to_string

from events.changes import Announced
from events.models import Announcement
from live.delivery import OFF, mode
from live.protocol import places_group, send_to_group

log = logging.getLogger(__name__)

# The consumer's handler for these messages: `live_announcement`.
MESSAGE_TYPE = "live.announcement"


def frame(announcement: Announcement) -> str:
    """What each player socket receives, encoded once."""
    return json.dumps(
        {
            "type": "announcement",
            "data": {
                "id": announcement.pk,
                "text": announcement.text,
                "sent_by": announcement.sent_by,
                "sent_at": announcement.sent_at.isoformat(),
            },
            "html": render_to_string(
                "web/_announcement.html",
                {"announcement": announcement, "event": announcement.event, "fresh": True},
            ),
        },
        ensure_ascii=False,
    )


def broadcast(announcement_id: int) -> None:
    """Send an announcement to every open player page of its event."""
    if mode() == OFF:
        return
    announcement = Announcement.objects.select_related("event").filter(pk=announcement_id).first()
    if announcement is None:
        return
    try:
        send_to_group(
            places_group(announcement.event_id),
            {"type": MESSAGE_TYPE, "frame": frame(announcement)},
        )
    except Exception:  # the pages show it on their next load; push still goes out
        log.exception("Announcement %s did not reach the open pages", announcement_id)


def on_announced(announced: Announced) -> None:
    """The engine's hand-over after an announcement commits (subscribed in `live.apps`)."""
    broadcast(announced.announcement_id)
