"""A request the server gives up on still finishes, so its thread gives its database connection
back.

Django's `ASGIHandler` runs a request's sync middleware and view on a thread of the request's
own. The thread's database connection goes back to the pool (or is closed) by `request_finished`,
which Django sends on that same thread once the view is done. When the client goes away, the
handler cancels the view; asgiref cannot stop a thread, so it waits for the thread to get back to
async code (a view waiting for a pooled connection waits up to `DATABASE_POOL_TIMEOUT`, 30 s),
and the handler then sends `request_finished` there as usual.

But the server may give up first: daphne cancels an application `application_close_timeout`
(10 s) after its client left. The handler then stops waiting and `request_finished` never runs on
the thread, which runs on: it takes a connection, finishes the view and ends with the connection
still checked out. The pool is one connection short for good, and after a few such requests every
request is answered 503 (helpers.busy).

So the server's cancellation stops the application at once as far as the server is concerned
(daphne still logs that it killed it), and Django's handler finishes the request in the
background as if the server had waited: `request_finished` runs on the request's thread after its
view. Nothing is sent to the client that is gone; an exception is logged.
"""

from __future__ import annotations

import asyncio
import logging
from typing import Any

import django
from django.core.handlers.asgi import ASGIHandler

# Requests the server gave up on that are still finishing (the event loop keeps only weak
# references to its tasks).
finishing: set[asyncio.Task[None]] = set()

logger = logging.getLogger(__name__)


def _finished(task: asyncio.Task[None]) -> None:
    finishing.discard(task)
    if not task.cancelled() and (error := task.exception()) is not None:
        logger.error("A request whose client left failed.", exc_info=error)


class FinishingASGIHandler(ASGIHandler):
    """Django's ASGI handler, which finishes a request even if the server cancels it."""

    async def __call__(self, scope: Any, receive: Any, send: Any) -> None:
        handling = asyncio.create_task(super().__call__(scope, receive, send))
        try:
            await asyncio.shield(handling)
        except asyncio.CancelledError:
            if not handling.done():
                finishing.add(handling)
                handling.add_done_callback(_finished)
            raise


def get_asgi_application() -> FinishingASGIHandler:
    """`django.core.asgi.get_asgi_application`, with the handler above."""
    django.setup(set_prefix=False)
    return FinishingASGIHandler()
