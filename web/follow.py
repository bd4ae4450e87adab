"""The board's way in for phones: the event's address, short enough to type, and its QR code."""

from __future__ import annotations

from typing import TypedDict

import segno
from django.http import HttpRequest
from django.urls import reverse
from django.utils.safestring import SafeString, mark_safe

from events.check_in import board_check_in
from events.models import Event


class Follow(TypedDict):
    url: str
    address: str
    svg: SafeString
    check_in_code: str


def follow(request: HttpRequest, event: Event) -> Follow:
    """Where a phone follows the event, as a URL and an inline SVG QR: while House lets players
    check themselves in, the self check-in page with the event's code filled in (it leads on to the
    event's page); otherwise the event's page, where a player registers."""
    check_in = board_check_in(event)
    if check_in:
        url = request.build_absolute_uri(check_in["url_with_code"])
        shown = request.build_absolute_uri(check_in["url"])
    else:
        url = shown = request.build_absolute_uri(reverse("web:event", args=[event.pk]))
    address = shown.split("://", 1)[-1].removesuffix("/")
    code = check_in["code"] if check_in else ""
    return {"url": url, "address": address, "svg": qr_svg(url), "check_in_code": code}


def qr_svg(url: str) -> SafeString:
    """The QR code of `url` as inline SVG: dark modules on a light quiet zone, scalable."""
    code = segno.make(url, error="m", micro=False)
    # segno writes only its own path data and fixed attributes; the URL itself is not in the SVG.
    return mark_safe(code.svg_inline(scale=1, border=4, dark="#000", light="#fff", omitsize=True))
