"""Refusals, written down and remembered, for every layer that refuses: one line on the
`syndicate.security` logger per refusal (`syndicate.security` says what is logged; never a
password, an email address, a session key, a query string or a card), the client IP as allauth's
rate limits count it, and the API sessions a throttle refused, which the server process answers
before Django until their window passes (`syndicate.limits`)."""

from __future__ import annotations

import logging
import threading
import time
from dataclasses import dataclass
from typing import Any

from allauth.account.adapter import get_adapter
from django.contrib.auth import SESSION_KEY
from django.core.exceptions import PermissionDenied
from django.http import HttpRequest

from helpers.redaction import SECRET_URL_ARGUMENTS  # logged as their names, not values

LOGGER = "syndicate.security"
logger = logging.getLogger(LOGGER)
_MAX_FIELD = 200


def client_ip(request: HttpRequest) -> str:
    """The client IP as allauth's rate limits count it (honours ALLAUTH_TRUSTED_PROXY_COUNT)."""
    try:
        return str(get_adapter(request).get_client_ip(request))
    except PermissionDenied:
        return "unknown"


def who(request: HttpRequest) -> str:
    """The user id; `session:<id>` when a session names a user the request was refused as
    (DRF drops a user who failed the CSRF check); else `anonymous`."""
    user = getattr(request, "user", None)
    if user is not None and user.is_authenticated:
        return str(user.pk)
    session = getattr(request, "session", None)
    claimed = session.get(SESSION_KEY) if session is not None else None
    return f"session:{claimed}" if claimed else "anonymous"


def log_refusal(
    request: HttpRequest,
    *,
    code: str,
    status: int | None = None,
    reason: str = "",
    level: int = logging.WARNING,
) -> None:
    """Write one refusal. A page that refuses without an error status may call this itself."""
    match = getattr(request, "resolver_match", None)
    fields: dict[str, Any] = {"status": status} if status is not None else {}
    fields |= {
        "code": code,
        "action": match.view_name if match is not None else "",
        "method": request.method or "",
        "path": _safe_path(request),
        "user": who(request),
        "ip": client_ip(request),
    }
    if reason:
        fields["reason"] = reason
    write_refusal(fields, level)


def write_refusal(fields: dict[str, Any], level: int = logging.WARNING) -> None:
    """One refusal's line; also for a refusal answered before Django (syndicate.limits)."""
    logger.log(
        level,
        "refused %s",
        " ".join(f"{name}={_clean(value)}" for name, value in fields.items()),
        extra={"security": fields},
    )


def _safe_path(request: HttpRequest) -> str:
    """The path, with secret URL arguments (a password reset key) replaced by their names."""
    path = request.path
    match = getattr(request, "resolver_match", None)
    if match is None:
        return path
    secrets = [(str(match.kwargs[n]), n) for n in SECRET_URL_ARGUMENTS & set(match.kwargs)]
    for value, name in sorted(secrets, key=lambda secret: -len(secret[0])):
        if not value or value not in path:
            return f"/{match.route}"
        path = path.replace(value, f"<{name}>")
    return path


def _clean(value: object) -> str:
    """One short logfmt value: control characters escaped (no forged lines), quoted if spaced."""
    text = str(value)[:_MAX_FIELD]
    text = "".join(
        c if c.isprintable() or c == " " else f"\\x{ord(c):02x}"
        for c in text.replace("\\", "\\\\").replace('"', '\\"')
    )
    return f'"{text}"' if not text or " " in text or "=" in text else text


@dataclass(slots=True)
class Refusal:
    until: float  # time.time() when the session's oldest counted request leaves the window
    user_id: int
    unlogged: int = 0  # refusals answered here and not yet written to the refusal log


class Refusals:
    """API sessions refused by a throttle, until when: written by the throttles (request threads),
    read by the event loop. A session's key names one account (a sign-in makes a new one), and
    the throttle refused it only once it had the window's full count: nothing it sends before its
    oldest counted request leaves the window can pass, so answering those here changes no answer.
    """

    LIMIT = 10_000  # sessions remembered at once; expired ones are dropped first

    def __init__(self) -> None:
        self._until: dict[tuple[str, bool], Refusal] = {}
        self._lock = threading.Lock()

    def refuse(self, session_key: str, *, writes: bool, until: float, user_id: int) -> None:
        with self._lock:
            if len(self._until) >= self.LIMIT:
                now = time.time()
                self._until = {k: v for k, v in self._until.items() if v.until > now}
                if len(self._until) >= self.LIMIT:
                    return
            self._until[(session_key, writes)] = Refusal(until, user_id)

    def refused(self, session_key: str, *, writes: bool, now: float) -> Refusal | None:
        refusal = self._until.get((session_key, writes))
        if refusal is None:
            return None
        if refusal.until <= now:
            with self._lock:
                if self._until.get((session_key, writes)) is refusal:
                    del self._until[(session_key, writes)]
            return None
        return refusal

    def clear(self) -> None:
        with self._lock:
            self._until.clear()


refusals = Refusals()
