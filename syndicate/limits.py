"""Bounds on the HTTP requests one server process runs at once, and on what one client takes.

Three rules, before Django sees a request:

- At most `limit` HTTP requests of the process run at once; the others wait their turn.
- At most `per_client` of them come from one browser session (its session cookie): one account
  sending requests as fast as it can waits in a line of its own, and leaves the shared places to
  everyone else.
- A session the API's throttles refused (api/throttles.py) is answered 429 here until its oldest
  counted request leaves the window, without a thread, a database connection or a session lookup:
  a flood of refused requests costs the other players next to nothing (docs/performance.md,
  "A write flood beside a player's page").
"""

from __future__ import annotations

import asyncio
import json
import math
import time
from collections.abc import Awaitable, Callable
from typing import Any

from django.conf import settings
from django.http.cookie import parse_cookie

from helpers.refusals import Refusal, refusals

type App = Callable[[Any, Any, Any], Awaitable[None]]

EXEMPT_PATHS = frozenset({"/healthz"})  # health checks answer even while the process is busy
# Files from disk (whitenoise): quick, and a page asks for several at once.
NO_CLIENT_LINE_PREFIXES = ("/static/",)
API_PREFIX = "/api/"
SAFE_METHODS = frozenset({"GET", "HEAD", "OPTIONS"})
LOG_EVERY = 1.0  # seconds between a session's lines in the refusal log (syndicate.security)


class _Line:
    """One session's own line: at most `per_client` of its requests hold shared places."""

    __slots__ = ("semaphore", "users")

    def __init__(self, size: int) -> None:
        self.semaphore = asyncio.Semaphore(size)
        self.users = 0


class ConcurrencyLimit:
    """At most `limit` HTTP requests of this process run at once, at most `per_client` of them
    from one session; the others wait their turn. Refused API sessions are answered at once.

    Django runs each request's view in a thread of its own, with its own database connection.
    Unbounded, a burst of requests becomes hundreds of threads taking turns on one interpreter
    lock while one of them holds an event's row lock that the others are queued on: every change
    then takes as long as the whole queue. Waiting here costs nothing and keeps the few running
    requests quick. Websockets are not limited.
    """

    def __init__(self, app: App, limit: int, per_client: int = 0) -> None:
        self.app = app
        self.limit = limit
        self.per_client = per_client
        self._slots: asyncio.Semaphore | None = None
        self._lines: dict[str, _Line] = {}

    async def __call__(self, scope: Any, receive: Any, send: Any) -> None:
        if scope["type"] != "http" or scope.get("path") in EXEMPT_PATHS:
            await self.app(scope, receive, send)
            return
        path: str = scope.get("path", "")
        session = _session_key(scope)
        if session is not None and await _refused(scope, send, session):
            return
        if self.limit <= 0:
            await self.app(scope, receive, send)
            return
        if self._slots is None:
            self._slots = asyncio.Semaphore(self.limit)
        if session is None or self.per_client <= 0 or path.startswith(NO_CLIENT_LINE_PREFIXES):
            async with self._slots:
                await self.app(scope, receive, send)
            return
        line = self._lines.get(session)
        if line is None:
            line = self._lines[session] = _Line(self.per_client)
        line.users += 1
        try:
            async with line.semaphore:
                # Refused while it waited in its line: answered without taking a shared place.
                if await _refused(scope, send, session):
                    return
                async with self._slots:
                    await self.app(scope, receive, send)
        finally:
            line.users -= 1
            if line.users == 0:
                del self._lines[session]


def _write_refusals(refusal: Refusal, fields: dict[str, Any]) -> None:
    from helpers.refusals import write_refusal

    write_refusal(fields | {"repeated": refusal.unlogged})
    refusal.unlogged = 0


def _session_key(scope: Any) -> str | None:
    for name, value in scope.get("headers", ()):
        if name == b"cookie":
            key = parse_cookie(value.decode("latin-1")).get(settings.SESSION_COOKIE_NAME)
            return key or None
    return None


async def _refused(scope: Any, send: Any, session: str) -> bool:
    """Answer 429 at once if the API's throttle refused this session's kind of request."""
    path: str = scope.get("path", "")
    if not path.startswith(API_PREFIX):
        return False
    method = scope.get("method", "GET")
    now = time.time()
    refusal = refusals.refused(session, writes=method not in SAFE_METHODS, now=now)
    if refusal is None:
        return False
    from api.errors import THROTTLED, error_body, throttled_message

    wait = max(1, math.ceil(refusal.until - now))
    body = json.dumps(error_body(THROTTLED, throttled_message(wait))).encode()
    headers = [
        (b"content-type", b"application/json"),
        (b"content-length", str(len(body)).encode()),
        (b"retry-after", str(wait).encode()),
        (b"vary", b"Cookie"),
        (b"x-content-type-options", b"nosniff"),
        (b"referrer-policy", settings.SECURE_REFERRER_POLICY.encode()),
        (b"x-frame-options", settings.X_FRAME_OPTIONS.encode()),
        (b"cross-origin-opener-policy", b"same-origin"),
    ]
    await send({"type": "http.response.start", "status": 429, "headers": headers})
    await send({"type": "http.response.body", "body": body})
    if refusal.unlogged == 0:
        # One line a second per session, with the count: the refusal log keeps every refusal
        # without a flood writing a line per request.
        client = scope.get("client") or ("unknown", 0)
        fields = {"status": 429, "code": THROTTLED, "action": "", "method": method, "path": path}
        fields |= {"user": refusal.user_id, "ip": client[0]}
        asyncio.get_running_loop().call_later(LOG_EVERY, _write_refusals, refusal, fields)
    refusal.unlogged += 1
    return True
