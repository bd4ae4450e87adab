"""Small template helpers for the House pages."""

from __future__ import annotations

from typing import Any

from django import template
from django.utils.safestring import SafeString, mark_safe

from events import money
from helpers.forms import fresh_key as new_key

register = template.Library()


@register.simple_tag
def fresh_key() -> str:
    """An idempotency key for one rendered form or dialog opener."""
    return new_key()


@register.simple_tag(takes_context=True)
def needs_connection(context: dict[str, Any]) -> SafeString:
    """An action's attributes when it needs the server: with a live socket (`live_socket`), it
    renders disabled and live.js enables it once the socket is live; a draft's has no socket."""
    if context.get("live_socket"):
        return mark_safe("data-needs-connection disabled data-live-disabled")
    return mark_safe("data-needs-connection")


@register.filter
def waited(seconds: int | None) -> str:
    """Seconds as a short age: '45 s', '4 min 05 s', '1 h 02 min'."""
    if seconds is None:
        return ""
    seconds = max(int(seconds), 0)
    if seconds < 60:
        return f"{seconds} s"
    minutes, rest = divmod(seconds, 60)
    if minutes < 60:
        return f"{minutes} min {rest:02d} s"
    hours, minutes = divmod(minutes, 60)
    return f"{hours} h {minutes:02d} min"


@register.filter
def signed_dollars(amount: int | None) -> str:
    """+$5, \u2212$10 (a true minus sign), $0 (events/money.py)."""
    return "" if amount is None else money.signed_dollars(amount)


@register.filter
def dollars(amount: int | None) -> str:
    """$30, \u2212$30: the one way a page writes dollars (events/money.py)."""
    return "" if amount is None else money.dollars(amount)


@register.filter
def negated_dollars(amount: int | None) -> str:
    """Dollars that went out, written as taken away: $5 out reads \u2212$5, $0 reads $0."""
    return "" if amount is None else money.dollars(-int(amount))
