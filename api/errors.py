"""Every API refusal in one shape: `{"error": {"code": ..., "message": ...}}`
(docs/rules.md section 11.2).

Domain errors carry their own code, status and message; Django REST framework's own refusals
(validation, sign-in, permissions, unknown routes, bad JSON, wrong method) are mapped here, once.
Nothing reaches the client as a stack trace or an HTML page.
"""

from __future__ import annotations

import logging
import math
from collections.abc import Mapping, Sequence
from typing import Any, cast

from django.conf import settings
from django.core.exceptions import PermissionDenied as DjangoPermissionDenied
from django.core.exceptions import RequestDataTooBig
from django.http import Http404, HttpRequest, JsonResponse
from django.utils.translation import gettext as _
from django.utils.translation import ngettext
from rest_framework import exceptions
from rest_framework.response import Response
from rest_framework.views import set_rollback

from events.errors import DomainError, Invalid, NotAllowed, NotFound
from helpers import busy

logger = logging.getLogger(__name__)

# API-level codes that are not domain refusals: the route exists but not for this method,
# and the server failed. Listed in the schema next to the domain codes.
METHOD_NOT_ALLOWED = "method_not_allowed"
SERVER_ERROR = "server_error"
TOO_LARGE = "too_large"  # a body over DATA_UPLOAD_MAX_MEMORY_SIZE (api/endpoints.py JsonBody)
THROTTLED = "throttled"  # too many requests from one account or address (api/throttles.py)


def error_body(code: str, message: str) -> dict[str, Any]:
    return {"error": {"code": code, "message": message}}


def throttled_message(wait: int | None) -> str:
    if wait is None:
        return _("Too many requests: try again later.")
    return ngettext(
        "Too many requests: try again in %(wait)s second.",
        "Too many requests: try again in %(wait)s seconds.",
        wait,
    ) % {"wait": wait}


def exception_handler(exc: Exception, context: Mapping[str, Any]) -> Response:
    """REST_FRAMEWORK["EXCEPTION_HANDLER"]: answer any exception in the one error shape."""
    set_rollback()
    error = as_domain_error(exc)
    if error is not None:
        return Response(error.as_json(), status=error.status)
    if isinstance(exc, RequestDataTooBig):
        limit = settings.DATA_UPLOAD_MAX_MEMORY_SIZE
        return Response(
            error_body(
                TOO_LARGE,
                _("The request body is larger than %(limit)s bytes.") % {"limit": f"{limit:,}"},
            ),
            status=413,
        )
    if isinstance(exc, exceptions.MethodNotAllowed):
        method = context["request"].method if context.get("request") is not None else "This"
        return Response(
            error_body(
                METHOD_NOT_ALLOWED, _("%(method)s is not allowed here.") % {"method": method}
            ),
            status=405,
        )
    if isinstance(exc, exceptions.Throttled):
        seconds: float | None = getattr(exc, "wait", None)
        wait = math.ceil(seconds) if seconds is not None else None
        response = Response(error_body(THROTTLED, throttled_message(wait)), status=429)
        if wait is not None:
            response["Retry-After"] = str(wait)
        return response
    if isinstance(exc, exceptions.APIException):
        # Anything else DRF may raise (throttling, content negotiation): keep its status.
        return Response(
            error_body(str(exc.default_code), _plain(exc.detail)), status=exc.status_code
        )
    if busy.pool_exhausted(exc):
        response = Response(error_body(busy.UNAVAILABLE, busy.MESSAGE), status=503)
        request = context.get("request")
        if request is not None:
            return cast(Response, busy.answered(request, response))
        return response
    logger.exception("API request failed", exc_info=exc)
    return Response(
        error_body(SERVER_ERROR, _("The server could not complete this request.")), status=500
    )


def as_domain_error(exc: Exception) -> DomainError | None:
    """The domain refusal that a framework exception stands for (None when there is none)."""
    if isinstance(exc, DomainError):
        return exc
    if isinstance(exc, exceptions.ValidationError):
        return Invalid(_plain(exc.detail))
    if isinstance(exc, exceptions.ParseError):
        return Invalid(
            _("The request body is not valid JSON (%(problem)s).") % {"problem": _plain(exc.detail)}
        )
    if isinstance(exc, exceptions.UnsupportedMediaType):
        return Invalid(_("Send the request body as JSON (Content-Type: application/json)."))
    if isinstance(exc, exceptions.NotAuthenticated | exceptions.AuthenticationFailed):
        return NotAllowed(_("Sign in first."))
    if isinstance(exc, exceptions.PermissionDenied | DjangoPermissionDenied):
        detail = getattr(exc, "detail", None)
        return NotAllowed(_plain(detail) if detail else None)
    if isinstance(exc, exceptions.NotFound | Http404):
        return NotFound()
    return None


def _plain(detail: Any, path: str = "") -> str:
    """DRF's error detail as one plain sentence that names each field concerned."""
    if isinstance(detail, Mapping):
        parts = []
        for field, inner in detail.items():
            if field in ("non_field_errors", "detail"):
                inner_path = path
            elif isinstance(field, int) or str(field).isdigit():
                inner_path = f"{path}[{field}]"
            else:
                inner_path = f"{path}.{field}" if path else str(field)
            parts.append(_plain(inner, inner_path))
        return " ".join(parts)
    if isinstance(detail, Sequence) and not isinstance(detail, str):
        items = list(detail)
        if items and all(isinstance(item, Mapping | list) for item in items):
            # A list of nested objects: name each item by its position.
            return " ".join(
                _plain(item, f"{path}[{index}]") for index, item in enumerate(items) if item
            )
        return " ".join(_plain(item, path) for item in items)
    text = str(detail)
    return f"{path}: {text}" if path else text


def not_found(request: HttpRequest, *args: Any, **kwargs: Any) -> JsonResponse:
    """Any path under /api/ that names no endpoint."""
    error = NotFound(_("No such API endpoint. API paths end with a slash, like /api/events/."))
    return JsonResponse(error.as_json(), status=error.status)
