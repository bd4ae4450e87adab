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
from collections.abc import Callable
from dataclasses import dataclass
from typing import Any

from django.db.models import Model, Q
from django.utils import timezone
from django.utils.translation import gettext as _

from accounts import revocation
from accounts.models import User
from events.addresses import addresses
from events.errors import Invalid
from events.limits import check_text
from events.models import Event
from events.runner import event_shown_above
from staff.models import DisplayLink, scope_type

logger = logging.getLogger(__name__)

LABEL_LENGTH = 80
# A token is 32 random bytes, URL-safe: 43 characters. Anything much longer names no link.
_TOKEN_LENGTH = 64
# "Last seen" moves at most this often: a display checks in every `display.js` poll.
SEEN_EVERY = datetime.timedelta(seconds=60)


def token_hash(token: str) -> str:
    return hashlib.sha256(token.encode()).hexdigest()


def display_path(token: str) -> str:
    return addresses().display(token)


def clean_label(label: object) -> str:
    text = check_text(label, label=_("The display's label"), max_length=LABEL_LENGTH)
    if not text:
        raise Invalid(_("Name the display, e.g. “Projector by the bar”."))
    return text


def new_link(*, by: User, label: str, scope: Model) -> tuple[DisplayLink, str]:
    """A new link of a scope (an event, a series), and its token (which is not kept)."""
    token = secrets.token_urlsafe(32)
    link = DisplayLink.objects.create(
        scope=scope,
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
    """The event a link shows: its own; for the scope above events (a series'), the event that
    scope shows now (`events.runner.event_shown_above`); None when there is none."""
    if link.scope_type_id == scope_type(Event).pk:
        return Event.objects.filter(pk=link.scope_id).first()
    return event_shown_above(link.scope_id)


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


def rows(scope: Model) -> list[DisplayLinkRow]:
    """A scope's display links (an event's, a series'), newest first."""
    found = DisplayLink.objects.of(scope).select_related("created_by").order_by("-pk")
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


def event_links(event: Event) -> DisplayLinks:
    return DisplayLinks(event_id=event.pk, links=rows(event))
