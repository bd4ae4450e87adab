"""A bound on the HTTP requests one server process runs at once."""

from __future__ import annotations

import asyncio
from collections.abc import Awaitable, Callable
from typing import Any

type App = Callable[[Any, Any, Any], Awaitable[None]]

EXEMPT_PATHS = frozenset({"/healthz"})  # health checks answer even while the process is busy


class ConcurrencyLimit:
    """At most `limit` HTTP requests of this process run at once; the others wait their turn.

    Django runs each request's view in a thread of its own, with its own database connection.
    Unbounded, a burst of requests becomes hundreds of threads taking turns on one interpreter
    lock while one of them holds an event's row lock that the others are queued on: every change
    then takes as long as the whole queue. Waiting here costs nothing and keeps the few running
    requests quick. Websockets are not limited.
    """

    def __init__(self, app: App, limit: int) -> None:
        self.app = app
        self.limit = limit
        self._slots: asyncio.Semaphore | None = None

    async def __call__(self, scope: Any, receive: Any, send: Any) -> None:
        if scope["type"] != "http" or self.limit <= 0 or scope.get("path") in EXEMPT_PATHS:
            await self.app(scope, receive, send)
            return
        if self._slots is None:
            self._slots = asyncio.Semaphore(self.limit)
        async with self._slots:
            await self.app(scope, receive, send)
