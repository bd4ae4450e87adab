"""A request that finds every database connection taken: answered 503, not a server error.

Django's connection pool (`DATABASE_POOL_SIZE`) lends each request thread a connection; when all
stay taken for the pool's timeout, psycopg_pool raises `PoolTimeout`. The process is busy, not
broken, and nothing was changed: the API answers `unavailable` in its error shape, a page a plain
busy page, both with `Retry-After`, and the log gets one warning line instead of a traceback.
"""

from __future__ import annotations

import logging
from collections.abc import Callable

from django.http import HttpRequest, HttpResponse, JsonResponse
from django.template.loader import render_to_string
from django.utils.translation import ngettext
from psycopg_pool import PoolTimeout

logger = logging.getLogger(__name__)

UNAVAILABLE = "unavailable"
RETRY_AFTER_SECONDS = 5
# The API's message, English like its other errors; the page says it in the reader's language.
MESSAGE = f"The server is busy: try again in {RETRY_AFTER_SECONDS} seconds. Nothing was changed."


def pool_exhausted(exc: BaseException | None) -> bool:
    """Whether an exception comes from waiting in vain for a pooled database connection (Django
    raises its own OperationalError from psycopg_pool's `PoolTimeout`)."""
    seen = 0
    while exc is not None and seen < 10:
        if isinstance(exc, PoolTimeout):
            return True
        exc = exc.__cause__ or exc.__context__
        seen += 1
    return False


def answered(request: HttpRequest, response: HttpResponse) -> HttpResponse:
    """Mark the busy answer: `Retry-After`, and one warning line in place of Django's error line
    for a 5xx (`django.utils.log.log_response`)."""
    response["Retry-After"] = str(RETRY_AFTER_SECONDS)
    logger.warning(
        "No free database connection: answered 503 to %s %s.", request.method, request.path
    )
    response._has_been_logged = True  # type: ignore[attr-defined]
    return response


def busy_response(request: HttpRequest) -> HttpResponse:
    """What a request answers when no database connection is free: JSON under /api/, else a page
    that needs nothing from the database."""
    if request.path.startswith("/api/"):
        body = {"error": {"code": UNAVAILABLE, "message": MESSAGE}}
        return answered(request, JsonResponse(body, status=503))
    message = ngettext(
        "The server is busy: try again in %(seconds)s second. Nothing was changed.",
        "The server is busy: try again in %(seconds)s seconds. Nothing was changed.",
        RETRY_AFTER_SECONDS,
    ) % {"seconds": RETRY_AFTER_SECONDS}
    html = render_to_string("busy.html", {"message": message})
    return answered(request, HttpResponse(html, status=503))


class BusyMiddleware:
    """Answers a page's view that found no free database connection with the busy page."""

    def __init__(self, get_response: Callable[[HttpRequest], HttpResponse]) -> None:
        self.get_response = get_response

    def __call__(self, request: HttpRequest) -> HttpResponse:
        return self.get_response(request)

    def process_exception(self, request: HttpRequest, exception: Exception) -> HttpResponse | None:
        if pool_exhausted(exception):
            return busy_response(request)
        return None
