"""The venue: the address phones at the venue reach this server at, and the venue's display of the
check-in code.

The check-in code proves that someone saw the venue's display while self check-in was on, that is,
was at the venue (docs/decisions.md, "Events and House"). So it goes only where the venue sees it:
the board opened by a House member's session, and a display link on a projector's laptop that is
not signed in (events/display.py). The older link signed here names the code it was made for: a
new code (self check-in switched off and on) ends it. The dashboard no longer hands it out (it
hands out display links); links copied before keep working until their code changes.
"""

from __future__ import annotations

import ipaddress
from dataclasses import dataclass
from typing import Any
from urllib.parse import urlsplit

from django.conf import settings
from django.core import signing
from django.http import HttpRequest
from django.utils.crypto import constant_time_compare, salted_hmac

from events.addresses import addresses
from events.models import Event, Phase

DISPLAY_SALT = "events.venue.display"
_GRANT_SALT = "events.venue.code"


# --- the address phones reach ---------------------------------------------------------------------


def reachable(origin: str) -> bool:
    """Whether a phone could open `origin` ("scheme://host[:port]"): http(s), and not a loopback
    or unspecified address (127.0.0.1, ::1, localhost, 0.0.0.0)."""
    parts = urlsplit(origin)
    host = parts.hostname
    if parts.scheme not in ("http", "https") or not host:
        return False
    if host == "localhost" or host.endswith(".localhost"):
        return False
    try:
        address = ipaddress.ip_address(host)
    except ValueError:
        return True  # a name: the venue's DNS or a public site
    return not (address.is_loopback or address.is_unspecified)


def _origin(url: str) -> str:
    parts = urlsplit(url)
    return f"{parts.scheme}://{parts.netloc}"


def phone_url(
    path: str, request: HttpRequest | None = None, *, origin: str | None = None
) -> str | None:
    """The address a phone at the venue opens for `path` (an absolute path): the site address
    House configures (`SITE_URL`), else the address the page was opened at (`request`, or a
    socket's `origin`); never a loopback one. None when only a loopback address is known."""
    candidates = [_origin(str(settings.SITE_URL or ""))]
    if request is not None:
        candidates.append(f"{request.scheme}://{request.get_host()}")
    if origin:
        candidates.append(_origin(origin))
    for candidate in candidates:
        if reachable(candidate):
            return candidate + path
    return None


def unreachable_host(request: HttpRequest | None = None, *, origin: str | None = None) -> str:
    """The loopback host the page was opened at, for the warning that replaces the QR."""
    seen = f"{request.scheme}://{request.get_host()}" if request is not None else origin or ""
    return urlsplit(seen).hostname or "127.0.0.1"


# --- the venue's display --------------------------------------------------------------------------


def _grant(code: str) -> str:
    """What a display link holds of the code it was made for (not the code itself)."""
    return salted_hmac(_GRANT_SALT, code, algorithm="sha256").hexdigest()[:20] if code else ""


def current_grant(event: Event) -> str:
    """The grant of the event's current code ("" while self check-in is off)."""
    return _grant(event.check_in_code if event.self_check_in else "")


def display_path(event: Event) -> str | None:
    """The display link for a projector's laptop (`/board/<id>/venue/<token>/`), while self
    check-in is on; it shows the code until the code changes."""
    grant = current_grant(event)
    if not grant:
        return None
    # No timestamp: the same code gives the same link, however often the dashboard is drawn.
    token = signing.Signer(salt=DISPLAY_SALT).sign_object([event.pk, grant])
    return addresses().board_venue(event.pk, token)


def display_grant(event_id: int, token: str) -> str | None:
    """The grant a display link holds, when it is one House was given for this event."""
    try:
        value = signing.Signer(salt=DISPLAY_SALT).unsign_object(token)
    except (signing.BadSignature, ValueError):  # ValueError: signed, but not one of these links
        return None
    if not (isinstance(value, list) and len(value) == 2 and value[0] == event_id):
        return None
    grant = value[1]
    return grant if isinstance(grant, str) and grant else None


def grant_holds(grant: str | None, current: str) -> bool:
    """Whether a display holding `grant` may show the code of `current` (None: a House member's
    session, which always may)."""
    return grant is None or (bool(current) and constant_time_compare(grant, current))


@dataclass(frozen=True, slots=True)
class VenueCheckIn:
    """What the venue's display shows for check-in.

    `code` while players may check themselves in (self check-in on, before the start); `late`
    while self check-in is on after the start, when a late entrant checks in with House.
    """

    code: str
    late: bool
    grant: str

    def data(self) -> dict[str, Any]:
        return {"code": self.code, "late": self.late, "grant": self.grant}

    @classmethod
    def from_data(cls, data: dict[str, Any]) -> VenueCheckIn:
        return cls(str(data["code"]), bool(data["late"]), str(data["grant"]))


def venue_check_in(event: Event) -> VenueCheckIn:
    on = bool(event.self_check_in and event.check_in_code)
    return VenueCheckIn(
        code=event.check_in_code if on and event.phase == Phase.OPEN else "",
        late=on and event.phase == Phase.STARTED,
        grant=current_grant(event),
    )
