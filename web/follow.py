"""The board's way in for phones: an address short enough to type, and its QR code.

Everyone who opens the board sees the event's page (where a player registers and follows the
event). The venue's display (`events.venue`: the board opened by House, or House's display link)
shows the self check-in page with the code instead, while players may check themselves in; that
part is pushed to the display alone (`live.consumers.BoardConsumer`), never to the public board.
"""

from __future__ import annotations

import functools
from typing import TypedDict

import segno
from django.http import HttpRequest
from django.urls import reverse
from django.utils.safestring import SafeString, mark_safe

from events.check_in import self_check_in_url
from events.models import Event
from events.venue import VenueCheckIn, grant_holds, phone_url, unreachable_host


class Follow(TypedDict):
    url: str | None  # what the QR opens; None when phones could not reach any address known
    address: str  # shown in words beside the QR, without the scheme
    svg: SafeString | None
    unreachable: str  # the loopback host named instead of a QR ("" when there is a QR)
    check_in_code: str  # the venue's display only, while players may check themselves in
    late: bool  # the venue's display after the start: late arrivals see House
    stale: bool  # a display link made for an earlier code


def follow(
    event: Event,
    *,
    request: HttpRequest | None = None,
    origin: str | None = None,
    venue: VenueCheckIn | None = None,
    grant: str | None = None,
) -> Follow:
    """Where a phone goes from the board, for a page opened at `request` (or a socket's `origin`).

    `venue` is the check-in part of the venue's display, for a display holding `grant` (None: a
    House member's session); without it, the event's page for anyone.
    """
    shown = venue if venue is not None and grant_holds(grant, venue.grant) else None
    code = shown.code if shown else ""
    path = self_check_in_url(event, code) if code else reverse("web:event", args=[event.pk])
    words = self_check_in_url(event) if code else path
    url = phone_url(path, request, origin=origin)
    address = phone_url(words, request, origin=origin)
    return {
        "url": url,
        "address": (address or "").split("://", 1)[-1].removesuffix("/"),
        "svg": qr_svg(url) if url else None,
        "unreachable": "" if url else unreachable_host(request, origin=origin),
        "check_in_code": code,
        "late": bool(shown and shown.late),
        "stale": venue is not None and shown is None and bool(venue.grant),
    }


@functools.lru_cache(maxsize=64)
def qr_svg(url: str) -> SafeString:
    """The QR code of `url` as inline SVG: dark modules on a light quiet zone, scalable."""
    code = segno.make(url, error="m", micro=False)
    # segno writes only its own path data and fixed attributes; the URL itself is not in the SVG.
    return mark_safe(code.svg_inline(scale=1, border=4, dark="#000", light="#fff", omitsize=True))
