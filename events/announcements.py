"""Announcements: House sends a short message to every player of an event.

It is handed to `events.changes` after the commit; from there it reaches open player pages
(`live.announcement_frames`) and the phones of players with Poker push on
(`push.announcement_pushes`). An event takes at most `PER_WINDOW` announcements in any `WINDOW`:
each push fans out to every subscribed device (docs/decisions.md, "Announcements").
"""

from __future__ import annotations

import math
from datetime import timedelta

from django.utils.translation import gettext as _
from django.utils.translation import ngettext

from accounts.models import User
from events import answers, changes
from events.errors import AnnouncementRateLimited, Invalid, WrongPhase
from events.limits import ANNOUNCEMENT_LENGTH, check_text
from events.models import Announcement, Event, Phase, RegistrationStatus
from events.runner import Change, action

# Who hears an announcement by Poker push: the players still taking part.
LISTENING = (RegistrationStatus.REGISTERED, RegistrationStatus.CHECKED_IN)
# How many an event's player page shows, newest first.
SHOWN = 5
# At most this many announcements per event in any window of this length.
PER_WINDOW = 5
WINDOW = timedelta(seconds=60)


def recent(event: Event, limit: int = SHOWN) -> list[Announcement]:
    return list(event.announcements.order_by("-sent_at", "-id")[:limit])


@action("announcement_send")
def announcement_send(
    change: Change,
    *,
    event_id: int,
    by: User,
    text: str,
    idempotency_key: str | None = None,
) -> answers.AnnouncementSent:
    """House sends one short line to every player of the event."""
    change.require_house()
    change.refuse_if_finalized()
    message = check_text(text, label=_("The announcement"), max_length=ANNOUNCEMENT_LENGTH)
    if not message:
        raise Invalid(_("Write the announcement first."))
    event = change.event
    if event.phase == Phase.DRAFT:
        raise WrongPhase(_("Open registration first: a draft has no players to tell."))
    _refuse_if_too_many(change)
    recipients = event.registrations.filter(status__in=LISTENING).count()
    announcement = Announcement.objects.create(
        event=event, text=message, sent_by=change.actor, sent_at=change.now
    )
    change.audit(
        "announcement_sent",
        details={"announcement": announcement.pk, "text": message, "recipients": recipients},
    )
    announced = changes.Announced(event_id=event.pk, announcement_id=announcement.pk)
    change.after_commit(lambda: changes.announced(announced))
    return answers.AnnouncementSent(
        announcement_id=announcement.pk, event_id=event.pk, recipients=recipients
    )


def _refuse_if_too_many(change: Change) -> None:
    """Count the event's announcements of the last window from its rows. The change holds the
    event's row lock, so two House members sending at once, in any process, are counted in turn."""
    since = change.now - WINDOW
    window = list(
        change.event.announcements.filter(sent_at__gt=since)
        .order_by("-sent_at")
        .values_list("sent_at", flat=True)[:PER_WINDOW]
    )
    if len(window) < PER_WINDOW:
        return
    # The oldest of the last PER_WINDOW leaves the window first.
    wait = max(1, math.ceil((window[-1] + WINDOW - change.now).total_seconds()))
    raise AnnouncementRateLimited(
        ngettext(
            "This event has had %(per_window)s announcements in the last minute, the most it "
            "takes: try again in %(wait)s second.",
            "This event has had %(per_window)s announcements in the last minute, the most it "
            "takes: try again in %(wait)s seconds.",
            wait,
        )
        % {"per_window": PER_WINDOW, "wait": wait}
    )
