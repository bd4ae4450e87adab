"""The board's way in for phones: the event's address, short enough to type, and its QR code."""

from __future__ import annotations

from typing import TypedDict

import segno
from django.http import HttpRequest
from django.urls import reverse
from django.utils.safestring import SafeString, mark_safe

from events.models import Event


class Follow(TypedDict):
    url: str
    address: str
    svg: SafeString


def follow(request: HttpRequest, event: Event) -> Follow:
    """Where a phone follows the event (and registers): its page, as a URL and an inline SVG QR."""
    url = request.build_absolute_uri(reverse("web:event", args=[event.pk]))
    address = url.split("://", 1)[-1].removesuffix("/")
    return {"url": url, "address": address, "svg": qr_svg(url)}


def qr_svg(url: str) -> SafeString:
    """The QR code of `url` as inline SVG: dark modules on a light quiet zone, scalable."""
    code = segno.make(url, error="m", micro=False)
    # segno writes only its own path data and fixed attributes; the URL itself is not in the SVG.
    return mark_safe(code.svg_inline(scale=1, border=4, dark="#000", light="#fff", omitsize=True))
