"""The words static/js/*.js say (the `djangojs` catalogs), one script per language.

Its address names the language and the catalog's version, so a browser keeps it for good and a
live page never fetches it again; a new catalog (a deploy) is a new address. The server renders
each language once per process, as Django reads its translations once.
"""

from __future__ import annotations

import functools
import hashlib
from pathlib import Path

import django
from django.conf import settings
from django.http import Http404, HttpRequest, HttpResponse
from django.urls import reverse
from django.utils import translation
from django.views.decorators.cache import cache_control
from django.views.decorators.http import require_GET
from django.views.i18n import JavaScriptCatalog

YEAR = 365 * 24 * 3600


class _ProjectCatalog(JavaScriptCatalog):
    """The project's own catalogs only (LOCALE_PATHS): the admin's JavaScript words stay out."""

    domain = "djangojs"

    def get_paths(self, packages: list[str]) -> list[str]:
        return [str(folder) for folder in settings.LOCALE_PATHS]


_catalog = _ProjectCatalog.as_view(packages=["project"])  # any name: get_paths names the folders
_rendered: dict[str, bytes] = {}


@functools.cache
def catalog_version(language: str) -> str:
    """A short hash of the compiled catalog (and of Django, which writes the script around it)."""
    digest = hashlib.sha256(django.get_version().encode())
    for folder in settings.LOCALE_PATHS:
        compiled = Path(folder) / language / "LC_MESSAGES" / "djangojs.mo"
        if compiled.exists():
            digest.update(compiled.read_bytes())
    return digest.hexdigest()[:12]


def catalog_url(language: str) -> str:
    """Where the active page's scripts find their words: `/jsi18n/es.js?v=…`."""
    code = language if _offered(language) else settings.LANGUAGE_CODE
    return f"{reverse('web:js_catalog', args=[code])}?v={catalog_version(code)}"


def _offered(language: str) -> bool:
    return any(code == language for code, _ in settings.LANGUAGES)


@require_GET
@cache_control(public=True, max_age=YEAR, immutable=True)
def js_catalog(request: HttpRequest, language: str) -> HttpResponse:
    """Django's JavaScriptCatalog (gettext, ngettext, interpolate, ...) in the language named."""
    if not _offered(language):
        raise Http404
    if language not in _rendered:
        with translation.override(language):
            rendered = _catalog(request)
        assert isinstance(rendered, HttpResponse)
        _rendered[language] = rendered.content
    return HttpResponse(_rendered[language], content_type="text/javascript; charset=utf-8")
