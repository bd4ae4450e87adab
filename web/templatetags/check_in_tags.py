"""The event a sign-in or sign-up leads on to check in at, for the page to name it."""

from __future__ import annotations

from typing import Any

from django import template

from events.models import Event
from web.check_in import event_to_check_in

register = template.Library()


@register.simple_tag(takes_context=True)
def check_in_event(context: dict[str, Any], next_url: str | None) -> Event | None:
    """The event whose self check-in page `next_url` opens, or None."""
    request = context.get("request")
    return event_to_check_in(request, next_url) if request is not None else None
