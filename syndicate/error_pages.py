"""The pages a refused or failed request answers (docs/decisions.md, "Error pages at the venue").

`make run` is the venue's server and `DEBUG` is off unless asked for, so Django answers 400, 403,
404 and 500 with these views (`handler400` ... in syndicate/urls.py): the site's own page, or the
API's one error shape under /api/. The 500 page needs nothing from the database or the request.
A path with a NUL or another control character names nothing we route; `ControlCharactersMiddleware`
answers it 404 before any view passes it to PostgreSQL, which refuses NUL in text.
"""

from __future__ import annotations

import logging
from collections.abc import Callable
from typing import TYPE_CHECKING

from django.http import HttpRequest, HttpResponse, HttpResponseBase, JsonResponse
from django.template.loader import render_to_string
from django.utils import translation
from django.utils.translation import gettext_lazy as _

if TYPE_CHECKING:
    from django_stubs_ext import StrOrPromise

logger = logging.getLogger(__name__)

API_PREFIX = "/api/"

# status: (code, page title, plain message); the page reads in the request's language, the API's
# message stays English like its other errors (docs/decisions.md, "Languages").
_ERRORS: dict[int, tuple[str, StrOrPromise, StrOrPromise]] = {
    400: ("invalid", _("Bad request"), _("The address or the form sent could not be read.")),
    403: ("not_allowed", _("Not allowed"), _("You are not allowed to see this page.")),
    404: ("not_found", _("Page not found"), _("There is no page at this address.")),
    500: (
        "server_error",
        _("Something went wrong"),
        _("The server could not complete this request. Try again in a moment."),
    ),
}


def error_response(request: HttpRequest | None, status: int) -> HttpResponse:
    """The answer for an error status: JSON under /api/, else the site's own page."""
    code, title, message = _ERRORS[status]
    if request is not None and request.path.startswith(API_PREFIX):
        with translation.override("en"):
            english = str(message)
        return JsonResponse({"error": {"code": code, "message": english}}, status=status)
    with translation.override(_reader_language(request)):
        # No request context: the page must render when the database or the session is what
        # failed.
        context = {"status": status, "title": title, "message": message}
        try:
            html: str = render_to_string("error.html", context)
        except Exception:
            # Not even the page (a static file missing from the manifest): its words, unstyled.
            logger.exception("The %s page could not be rendered.", status)
            html = f"<!doctype html><title>{title}</title><h1>{title}</h1><p>{message}</p>"
    return HttpResponse(html, status=status)


def _reader_language(request: HttpRequest | None) -> str | None:
    """The request's language as the middleware chose it; a request refused before the
    middleware ran (a control character in its path) reads its browser's language."""
    if request is None:
        return translation.get_language()
    chosen = getattr(request, "LANGUAGE_CODE", None)
    return chosen if chosen else translation.get_language_from_request(request)


def bad_request(request: HttpRequest, exception: Exception | None = None) -> HttpResponse:
    return error_response(request, 400)


def permission_denied(request: HttpRequest, exception: Exception | None = None) -> HttpResponse:
    return error_response(request, 403)


def page_not_found(request: HttpRequest, exception: Exception | None = None) -> HttpResponse:
    return error_response(request, 404)


def server_error(request: HttpRequest) -> HttpResponse:
    return error_response(request, 500)


def has_control_characters(text: str) -> bool:
    return any(ord(character) < 0x20 or ord(character) == 0x7F for character in text)


class ControlCharactersMiddleware:
    """A path with a control character (`/players/%00/`) is answered 404 on every route."""

    def __init__(self, get_response: Callable[[HttpRequest], HttpResponseBase]) -> None:
        self.get_response = get_response

    def __call__(self, request: HttpRequest) -> HttpResponseBase:
        if has_control_characters(request.path):
            return error_response(request, 404)
        return self.get_response(request)
