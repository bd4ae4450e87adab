"""The HTML a live page swaps in: rendered once per audience, for the first page and for pushes.

A pushed fragment is rendered outside any request, so it carries no CSRF token: the page's
`hx-headers` (base.html) sends the token with every htmx request the fragment's forms make.
"""

from __future__ import annotations

from typing import Any

from django.template.loader import render_to_string

from events.models import Event
from house import selectors
from house.tools import tools
from web.errors import fresh_key


def board_html(event: Event, board: dict[str, Any]) -> str:
    """The board's rows, progress and head (`web/_board.html`)."""
    return render_to_string("web/_board.html", {"board": board, "event": event})


def player_html(event: Event, me: dict[str, Any]) -> str:
    """One player's own panel (`web/_player.html`), with fresh idempotency keys in its forms."""
    return render_to_string("web/_player.html", {"event": event, "me": me, "key": fresh_key()})


def house_html(event: Event, house: dict[str, Any]) -> str:
    """House's live part of the dashboard (`house/_live.html`), for every House page of the event.

    What one House member's session holds (a Scoreholio comparison) is not in it: the page keeps
    its own ([data-live-keep], live.js).
    """
    context = {
        "event": event,
        "live_socket": True,
        "inline_messages": False,
        **selectors.dashboard(event, house),
        **tools(event),
    }
    return render_to_string("house/_live.html", context)


def places_of(me: dict[str, Any]) -> dict[str, Any]:
    """A player's place line as the page renders it itself (see live.js, "places")."""
    return {
        "high": me.get("high_place"),
        "low": me.get("low_place"),
        "ranked": me.get("ranked"),
        "final": bool(me.get("final")),
    }
