"""The language a person reads the pages in (docs/decisions.md, "Languages").

Django's LocaleMiddleware picks one from the browser (its Accept-Language), English when none of
LANGUAGES fits; this middleware, after the account is known, puts a signed-in account's own
choice (`User.language`, blank until chosen on the settings page) in its place. Outside a request
(an email, a push), `language_of` says whose words to write in.
"""

from __future__ import annotations

from collections.abc import Callable, Mapping

from django.conf import settings
from django.http import HttpRequest
from django.http.response import HttpResponseBase
from django.utils import translation
from django.utils.translation import gettext as _

from accounts.models import User
from helpers.errors import Invalid

CHOICES: tuple[tuple[str, str], ...] = tuple(settings.LANGUAGES)
CODES = frozenset(code for code, _ in CHOICES)


def account_language(user: object) -> str | None:
    """A signed-in account's chosen language, or None (not chosen, or not one of LANGUAGES)."""
    if not getattr(user, "is_authenticated", False):
        return None
    chosen = getattr(user, "language", "")
    return chosen if chosen in CODES else None


def known_language(code: object) -> str | None:
    """`code` when it is one of LANGUAGES, else None."""
    return code if isinstance(code, str) and code in CODES else None


def language_of(user: object, event: object | None = None) -> str:
    """The language to write to a person in from a task (an email, a push): the account's
    choice, else the language its browser last asked for, else the event's, else the site's."""
    return (
        account_language(user)
        or known_language(getattr(user, "browser_language", ""))
        or known_language(getattr(event, "language", ""))
        or settings.LANGUAGE_CODE
    )


def browser_asked(request: HttpRequest) -> str:
    """The language this request's browser asked for (LocaleMiddleware's pick), or blank."""
    return known_language(getattr(request, "LANGUAGE_CODE", "")) or ""


def remember_browser_language(user: User, request: HttpRequest) -> None:
    """Keep on the account the language its browser asks for (at each sign-in), for what is
    sent to it later. Writes only when it changed."""
    asked = browser_asked(request)
    if asked and user.pk is not None and user.browser_language != asked:
        User.objects.filter(pk=user.pk).update(browser_language=asked)
        user.browser_language = asked


def page_language(user: object, *, cookies: Mapping[str, str], accept_language: str) -> str:
    """The language a page is read in by this browser, from what its request carries (a
    socket's handshake): the account's choice, else as LocaleMiddleware picks (the language
    cookie, then Accept-Language, else the site's)."""
    asked = HttpRequest()
    asked.COOKIES = dict(cookies)
    asked.META["HTTP_ACCEPT_LANGUAGE"] = accept_language
    return account_language(user) or translation.get_language_from_request(asked)


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
