"""Display links: the venue's projector, with no account (docs/decisions.md, "Display links").

House makes a link for an event, or for a series (seasons/services.py), with a label it types
("Projector by the bar"). The link opens `/display/<token>/`: the event's board in kiosk mode, with
the check-in code and its QR while self check-in is on, live over the board socket; a series'
link shows its current event (`shown_event`) and follows it to the next one. A display writes
nothing: it has no session, so every write refuses it.

Only the sha256 of the token is kept, so the link is shown once, in the answer that made it.
House revokes a link (`display_link_revoke`): the page then answers 410 with no board and no
code, and its open sockets are told to check their access again (`tell_revoked`), so they close
at once; the page reloads on that close and shows the revoked message.
"""

from __future__ import annotations

import datetime
import hashlib
import logging
import secrets
import zoneinfo
from collections.abc import Callable
from dataclasses import dataclass
from typing import Any

from django.db import transaction
from django.db.models import Q
from django.urls import reverse
from django.utils import timezone

from accounts import revocation
from accounts.models import User
from events import answers
from events.errors import Invalid, NotFound
from events.limits import check_text
from events.models import DisplayLink, Event, Phase
from events.runner import Change, action

logger = logging.getLogger(__name__)

LABEL_LENGTH = 80
# A token is 32 random bytes, URL-safe: 43 characters. Anything much longer names no link.
_TOKEN_LENGTH = 64
# "Last seen" moves at most this often: a display checks in every `display.js` poll.
SEEN_EVERY = datetime.timedelta(seconds=60)


def token_hash(token: str) -> str:
    return hashlib.sha256(token.encode()).hexdigest()


def display_path(token: str) -> str:
    return reverse("web:display", kwargs={"token": token})


def clean_label(label: object) -> str:
    text = check_text(label, label="The display's label", max_length=LABEL_LENGTH)
    if not text:
        raise Invalid("Name the display, e.g. “Projector by the bar”.")
    return text


def new_link(
    *, by: User, label: str, event: Event | None = None, series_id: int | None = None
) -> tuple[DisplayLink, str]:
    """A new link of an event or a series, and its token (which is not kept)."""
    token = secrets.token_urlsafe(32)
    link = DisplayLink.objects.create(
        event=event,
        series_id=series_id,
        label=clean_label(label),
        token_hash=token_hash(token),
        created_by=by,
    )
    return link, token


def find(token: str) -> DisplayLink | None:
    """The link a token opens, revoked or not; None when it names none."""
    if not token or len(token) > _TOKEN_LENGTH or not token.isascii():
        return None
    return DisplayLink.objects.filter(token_hash=token_hash(token)).first()


def revoke(link: DisplayLink, *, by: User, now: datetime.datetime) -> bool:
    """Mark the link revoked (in the caller's transaction); False when it already was."""
    revoked = DisplayLink.objects.filter(pk=link.pk, revoked_at__isnull=True).update(
        revoked_at=now, revoked_by=by
    )
    return revoked == 1


def group(link_id: int) -> str:
    """The sockets a display link opened (live.consumers.BoardConsumer)."""
    return f"display.{link_id}"


# How a message reaches a group's sockets: `live.protocol.send_to_group`, handed over by the live
# app (`live.apps`); the engine imports nothing of the layers on top of it.
_send_to_group: Callable[[str, dict[str, Any]], None] | None = None


def send_with(send_to_group: Callable[[str, dict[str, Any]], None]) -> None:
    global _send_to_group
    _send_to_group = send_to_group


def tell_revoked(link_id: int) -> None:
    """Have the link's open sockets check their access again: they close. After the commit."""
    if _send_to_group is None:
        return
    try:
        _send_to_group(group(link_id), {"type": revocation.MESSAGE_TYPE, "event_id": None})
    except Exception:
        # Revoked either way: the page refuses it at its next check (display.js) or reload.
        logger.exception("Could not tell display link %s's sockets that it was revoked.", link_id)


def seen(link: DisplayLink, now: datetime.datetime | None = None) -> None:
    """The display opened or checked in: "last seen", at most once a minute (no lock taken)."""
    now = now or timezone.now()
    DisplayLink.objects.filter(pk=link.pk, revoked_at__isnull=True).filter(
        Q(last_seen_at__isnull=True) | Q(last_seen_at__lt=now - SEEN_EVERY)
    ).update(last_seen_at=now)


def shown_event(link: DisplayLink) -> Event | None:
    """The event a link shows: its own; for a series', the series' current event: the one in
    play (started, else open and dated today in the series' time zone), else the next one open
    for registration, else the latest finalized; None when the series has none of those."""
    if link.event_id is not None:
        return Event.objects.filter(pk=link.event_id).first()
    if link.series_id is None:
        return None
    events = Event.objects.filter(series_id=link.series_id)
    started = events.filter(phase=Phase.STARTED).order_by("-date", "-pk").first()
    if started is not None:
        return started
    today = timezone.now().astimezone(_zone(link)).date()
    tonight = events.filter(phase=Phase.OPEN, date=today).order_by("pk").first()
    if tonight is not None:
        return tonight
    upcoming = (
        events.filter(phase=Phase.OPEN, registration_open=True, date__gte=today)
        .order_by("date", "pk")
        .first()
    )
    if upcoming is not None:
        return upcoming
    return events.filter(phase=Phase.FINALIZED).order_by("-date", "-pk").first()


def _zone(link: DisplayLink) -> zoneinfo.ZoneInfo:
    try:
        return zoneinfo.ZoneInfo(link.series.time_zone if link.series else "UTC")
    except (zoneinfo.ZoneInfoNotFoundError, ValueError):
        return zoneinfo.ZoneInfo("UTC")


@dataclass(frozen=True, slots=True)
class DisplayLinkRow:
    """One display link as House lists it (never its token)."""

    link_id: int
    label: str
    created_at: datetime.datetime
    created_by: str
    last_seen_at: datetime.datetime | None
    revoked_at: datetime.datetime | None


@dataclass(frozen=True, slots=True)
class DisplayLinks:
    """An event's display links, newest first."""

    event_id: int
    links: list[DisplayLinkRow]


def rows(links: Q) -> list[DisplayLinkRow]:
    found = DisplayLink.objects.filter(links).select_related("created_by").order_by("-pk")
    return [
        DisplayLinkRow(
            link_id=link.pk,
            label=link.label,
            created_at=link.created_at,
            created_by=link.created_by.display_name if link.created_by else "",
            last_seen_at=link.last_seen_at,
            revoked_at=link.revoked_at,
        )
        for link in found
    ]


@dataclass(frozen=True, slots=True)
class SeriesDisplayLinks:
    """A series' display links, newest first."""

    series_id: int
    links: list[DisplayLinkRow]


def event_links(event: Event) -> DisplayLinks:
    return DisplayLinks(event_id=event.pk, links=rows(Q(event_id=event.pk)))


def series_links(series_id: int) -> SeriesDisplayLinks:
    return SeriesDisplayLinks(series_id=series_id, links=rows(Q(series_id=series_id)))


# --- the services ---------------------------------------------------------------------------------


@action("display_link_create")
def display_link_create(
    change: Change,
    *,
    event_id: int,
    by: User,
    label: str,
    idempotency_key: str | None = None,
) -> answers.DisplayLinkCreated:
    """House (owner or director) makes a display link for the event's projector; the answer holds
    its address, shown this once."""
    change.require_house()
    change.refuse_if_finalized()
    link, token = new_link(by=by, label=label, event=change.event)
    change.audit("display_link_created", details={"link": link.pk, "label": link.label})
    return answers.DisplayLinkCreated(
        event_id=change.event.pk, link_id=link.pk, label=link.label, path=display_path(token)
    )


@action("display_link_revoke")
def display_link_revoke(
    change: Change,
    *,
    event_id: int,
    by: User,
    link_id: int,
    idempotency_key: str | None = None,
) -> answers.DisplayLinkRevoked:
    """House (owner or director) revokes a display link: its page and its open sockets end. A
    link revoked already stays as it was. A finalized event changes no more: its links show the
    final board, public to anyone, and no code."""
    change.require_house()
    change.refuse_if_finalized()
    link = DisplayLink.objects.select_for_update().filter(pk=link_id, event=change.event).first()
    if link is None:
        raise NotFound("No such display link.")
    if revoke(link, by=by, now=change.now):
        change.audit("display_link_revoked", details={"link": link.pk, "label": link.label})
        # Registered now, so it runs before this change's live update: the sockets close first.
        transaction.on_commit(lambda: tell_revoked(link.pk))
    return answers.DisplayLinkRevoked(event_id=change.event.pk, link_id=link.pk)
