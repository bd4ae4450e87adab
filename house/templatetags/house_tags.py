"""Small template helpers for the House pages."""

from __future__ import annotations

from django import template

from web.errors import fresh_key as new_key

register = template.Library()


@register.simple_tag
def fresh_key() -> str:
    """An idempotency key for one rendered form or dialog opener."""
    return new_key()


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
    """+$5, \u2212$10 (a true minus sign), $0."""
    if amount is None:
        return ""
    value = int(amount)
    if value > 0:
        return f"+${value}"
    if value < 0:
        return f"\u2212${-value}"
    return "$0"
