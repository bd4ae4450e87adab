"""`{% announcements event %}`: House's latest announcements on the player page."""

from __future__ import annotations

from typing import Any

from django import template

from events.announcements import recent
from events.models import Event

register = template.Library()


@register.inclusion_tag("web/_announcements.html", takes_context=True)
def announcements(context: template.Context, event: Event) -> dict[str, Any]:
    return {
        "event": event,
        "announcements": recent(event),
        "csp_nonce": context.get("csp_nonce", ""),
    }
