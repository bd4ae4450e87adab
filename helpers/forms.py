"""What every page's forms use, whichever app serves them: the key a rendered form carries, how a
page answers a refused action (the service's message in plain words, nothing changed), a form's
fields checked by the API's request body, and the time zones a form offers first."""

from __future__ import annotations

import uuid
from collections.abc import Mapping
from typing import Any

from django.contrib import messages
from django.http import HttpRequest
from django.utils.functional import Promise
from django.utils.translation import gettext as _
from django.utils.translation import gettext_lazy
from rest_framework.exceptions import ValidationError
from rest_framework.serializers import Serializer
from rest_framework.settings import api_settings

from helpers import refusals
from helpers.errors import DomainError, IdempotencyKeyRequired, Invalid, NotAllowed, NotFound


def fresh_key() -> str:
    """An idempotency key for one rendered form: a double submit sends the same key."""
    return uuid.uuid4().hex


OUT_OF_DATE = gettext_lazy("This form is out of date: reload the page and try again.")


def form_key(request: HttpRequest) -> str:
    """The rendered form's key: every write carries one (docs/rules.md section 11.1), or it is
    refused."""
    key = request.POST.get("idempotency_key", "").strip()
    if not key:
        raise IdempotencyKeyRequired(OUT_OF_DATE)
    return key


def log_refused(request: HttpRequest, error: DomainError) -> None:
    """A refusal that may be someone probing (not allowed, not found) goes to the security log."""
    if isinstance(error, NotAllowed | NotFound):
        refusals.log_refusal(request, code=error.code, status=error.status)


def refuse(request: HttpRequest, error: DomainError) -> None:
    log_refused(request, error)
    messages.error(request, error.message)


def checked(
    serializer: type[Serializer[Any]],
    data: Mapping[str, Any],
    plain: Mapping[str, str | Promise] | None = None,
) -> dict[str, Any]:
    """A form's fields checked by the request body the API takes for the same action
    (`events.request_bodies`: the limits are written once); the first problem refuses it, in the
    page's `plain` words for a field that has them (a choice the page offered, tampered with),
    else in the request body's."""
    form = serializer(data=dict(data))
    try:
        form.is_valid(raise_exception=True)
    except ValidationError as problem:
        detail = problem.detail
        if plain and isinstance(detail, Mapping):
            for name in detail:
                if name in plain:
                    raise Invalid(plain[name]) from None
        raise Invalid(_first_problem(detail, form.fields)) from None
    return dict(form.validated_data)


def _first_problem(detail: Any, fields: Mapping[str, Any], field: str = "") -> str:
    if isinstance(detail, Mapping):
        name, inner = next(iter(detail.items()))
        named = "" if name in ("non_field_errors", api_settings.NON_FIELD_ERRORS_KEY) else name
        return _first_problem(inner, fields, field if isinstance(name, int) else named)
    if isinstance(detail, list) and detail:
        return _first_problem(detail[0], fields, field)
    if not field:
        return str(detail)
    # The field's label (a request body's field may give one in the reader's language), else
    # its name in words.
    known = fields.get(field)
    label = str(known.label) if known is not None and known.label else field.replace("_", " ")
    return _("%(field)s: %(problem)s") % {"field": label[:1].upper() + label[1:], "problem": detail}


# The time zones a form offers first (any IANA name is taken).
COMMON_ZONES = (
    "UTC",
    "America/New_York",
    "America/Chicago",
    "America/Denver",
    "America/Phoenix",
    "America/Los_Angeles",
    "America/Anchorage",
    "Pacific/Honolulu",
    "America/Toronto",
    "America/Vancouver",
    "Europe/London",
    "Europe/Berlin",
    "Australia/Sydney",
)
