"""Announcements: House sends a short message to every player of an event.

It reaches open player pages at once (over their socket, `live.announcements`) and the phones of
players with Poker push on (`push.announcements`), both after the commit.
"""

from __future__ import annotations

from accounts.models import User
from events import answers
from events.actions import Change, action
from events.errors import Invalid, WrongPhase
from events.limits import ANNOUNCEMENT_LENGTH, check_text
from events.models import Announcement, Event, Phase, RegistrationStatus

# Who hears an announcement by Poker push: the players still taking part.
LISTENING = (RegistrationStatus.REGISTERED, RegistrationStatus.CHECKED_IN)
# How many an event's player page shows, newest first.
SHOWN = 5


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
    message = check_text(text, label="The announcement", max_length=ANNOUNCEMENT_LENGTH)
    if not message:
        raise Invalid("Write the announcement first.")
    event = change.event
    if event.phase == Phase.DRAFT:
        raise WrongPhase("Open registration first: a draft has no players to tell.")
    recipients = event.registrations.filter(status__in=LISTENING).count()
    announcement = Announcement.objects.create(
        event=event, text=message, sent_by=change.actor, sent_at=change.now
    )
    change.audit(
        "announcement_sent",
        details={"announcement": announcement.pk, "text": message, "recipients": recipients},
    )
    announcement_id = announcement.pk
    change.after_commit(lambda: _deliver(announcement_id))
    return answers.AnnouncementSent(
        announcement_id=announcement.pk, event_id=event.pk, recipients=recipients
    )


def _deliver(announcement_id: int) -> None:
    # Imported here: the engine does not depend on the live pages or push at import time.
    from live.announcements import broadcast
    from push.tasks import queue_announcement

    broadcast(announcement_id)
    queue_announcement(announcement_id)
