"""The language a person reads the pages in (docs/decisions.md, "Languages").

Django's LocaleMiddleware picks one from the browser (its Accept-Language), English when none of
LANGUAGES fits; this middleware, after the account is known, puts a signed-in account's own
choice (`User.language`, blank until chosen on the settings page) in its place.
"""

from __future__ import annotations

from collections.abc import Callable

from django.conf import settings
from django.http import HttpRequest
from django.http.response import HttpResponseBase
from django.utils import translation
from django.utils.translation import gettext as _

from helpers.errors import Invalid

CHOICES: tuple[tuple[str, str], ...] = tuple(settings.LANGUAGES)
CODES = frozenset(code for code, _ in CHOICES)


def account_language(user: object) -> str | None:
    """A signed-in account's chosen language, or None (not chosen, or not one of LANGUAGES)."""
    if not getattr(user, "is_authenticated", False):
        return None
    chosen = getattr(user, "language", "")
    return chosen if chosen in CODES else None


def reading_language(user: object) -> str:
    """The language to write to an account in outside a request (a pushed panel): its choice,
    else the site's (English)."""
    return account_language(user) or settings.LANGUAGE_CODE


def chosen_language(value: str) -> str:
    """A language chosen on the settings page: one of LANGUAGES, or blank for the browser's."""
    code = value.strip()
    if code and code not in CODES:
        raise Invalid(_("Choose one of the languages offered: nothing was changed."))
    return code


class AccountLanguageMiddleware:
    """Activate the signed-in account's language for the request, where it chose one."""

    def __init__(self, get_response: Callable[[HttpRequest], HttpResponseBase]) -> None:
        self.get_response = get_response

    def __call__(self, request: HttpRequest) -> HttpResponseBase:
        chosen = account_language(getattr(request, "user", None))
        if chosen is not None:
            translation.activate(chosen)
            request.LANGUAGE_CODE = chosen
        return self.get_response(request)
