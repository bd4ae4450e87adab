"""`{% js_catalog %}`: the script that gives static/js/*.js their words, before those scripts."""

from __future__ import annotations

from django import template
from django.utils import translation
from django.utils.html import format_html
from django.utils.safestring import SafeString

from web.js_catalog import catalog_url

register = template.Library()


@register.simple_tag(takes_context=True)
def js_catalog(context: template.Context) -> SafeString:
    """A deferred script in the active language: deferred scripts run in document order, so this
    one, placed first, defines `gettext` before any of the page's own."""
    return format_html(
        '<script src="{}" nonce="{}" defer></script>',
        catalog_url(translation.get_language() or ""),
        context.get("csp_nonce", ""),
    )
