"""Query parameters, read one way by every page and the API: bounded, and never an error 500.

A page falls back to the parameter's default on a bad value (a board typed on a projector still
shows; a number out of range is brought within it); the API refuses it with 400 `invalid`
(`strict=True`), like any other bad input (docs/decisions.md, "Bad input"). Only ASCII digits
make a number, at most as many as the bound has: `isdigit()` also takes "²" and "٣", and `int()`
of thousands of digits is slow and then refused.
"""

from __future__ import annotations

import re
from collections.abc import Collection

from django.http import HttpRequest, QueryDict
from django.utils.translation import gettext as _
from rest_framework.request import Request

from events.errors import Invalid
from events.limits import text_problem

_DIGITS = re.compile(r"[0-9]+", re.ASCII)


def _params(request: HttpRequest | Request) -> QueryDict:
    return request.query_params if isinstance(request, Request) else request.GET


def _raw(request: HttpRequest | Request, name: str) -> str | None:
    """The parameter's last value, as sent; None when it is not sent."""
    params = _params(request)
    return params.get(name) if name in params else None


def _bad(strict: bool, message: str) -> None:
    if strict:
        raise Invalid(message)


def query_int(
    request: HttpRequest | Request,
    name: str,
    default: int,
    minimum: int,
    maximum: int,
    *,
    strict: bool = False,
) -> int:
    """A whole number from minimum to maximum (both >= 0). A page brings one out of range within
    the bounds and takes the default for anything else."""
    raw = _raw(request, name)
    if raw is None:
        return default
    words = _("%(name)s: a whole number from %(minimum)s to %(maximum)s.") % {
        "name": name,
        "minimum": minimum,
        "maximum": maximum,
    }
    if not _DIGITS.fullmatch(raw):
        _bad(strict, words)
        return default
    digits = raw.lstrip("0") or "0"
    # More digits than the bound has: past it, without reading the number.
    value = maximum + 1 if len(digits) > len(str(maximum)) else int(digits)
    if not minimum <= value <= maximum:
        _bad(strict, words)
        return min(max(value, minimum), maximum)
    return value


def query_flag(request: HttpRequest | Request, name: str, *, strict: bool = False) -> bool:
    """A switch written `1` (on) or `0` (off); anything else is off on a page."""
    raw = _raw(request, name)
    if raw is None or raw == "0":
        return False
    if raw != "1":
        _bad(strict, _("%(name)s: 1 or 0.") % {"name": name})
        return False
    return True


def query_choice(
    request: HttpRequest | Request,
    name: str,
    choices: Collection[str],
    default: str,
    *,
    strict: bool = False,
) -> str:
    """One of `choices`, as written."""
    raw = _raw(request, name)
    if raw is None:
        return default
    if raw not in choices:
        _bad(
            strict,
            _("%(name)s: one of %(choices)s.") % {"name": name, "choices": ", ".join(choices)},
        )
        return default
    return raw


def query_text(
    request: HttpRequest | Request,
    name: str,
    max_length: int,
    default: str = "",
    *,
    strict: bool = False,
) -> str:
    """One line of text of at most `max_length` characters, without control characters."""
    raw = _raw(request, name)
    if raw is None:
        return default
    problem = text_problem(raw)
    if problem is None and len(raw) > max_length:
        problem = _("at most %(length)s characters") % {"length": max_length}
    if problem is not None:
        _bad(strict, _("%(name)s: %(problem)s.") % {"name": name, "problem": problem})
        return default
    return raw


def refuse_unknown(request: HttpRequest | Request, *names: str) -> None:
    """The API: a parameter it does not read is refused (a misspelt one is not ignored)."""
    unknown = sorted(set(_params(request)) - set(names))
    if unknown:
        raise Invalid(
            _("%(name)s: not a parameter here (only %(choices)s).")
            % {"name": unknown[0][:40], "choices": ", ".join(names)}
        )
