"""`{% announcements event %}`: House's latest announcements on the player page."""

from __future__ import annotations

from typing import Any

from django import template

from events.announcements import recent
from events.models import Event, Phase

register = template.Library()


@register.inclusion_tag("web/_announcements.html", takes_context=True)
def announcements(context: template.Context, event: Event) -> dict[str, Any]:
    """House's announcements while the event is not final: after it they are old news, and the
    final results take their place (docs/decisions.md, "The player's phone")."""
    return {
        "event": event,
        "announcements": [] if event.phase == Phase.FINALIZED else recent(event),
        "csp_nonce": context.get("csp_nonce", ""),
    }
