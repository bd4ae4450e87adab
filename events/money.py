"""How dollars are written, on every page, message, toast and CSV total: one formatter, so a
negative amount always reads "\u2212$30" (a true minus sign before the dollar sign), never "$-30".
Dollars are whole numbers (docs/rules.md section 7.1)."""

from __future__ import annotations

MINUS = "\u2212"


def dollars(amount: int) -> str:
    """$30, $0, \u2212$30."""
    value = int(amount)
    return f"{MINUS}${-value}" if value < 0 else f"${value}"


def signed_dollars(amount: int) -> str:
    """+$5, \u2212$10, $0: a change, with its direction."""
    value = int(amount)
    return f"+${value}" if value > 0 else dollars(value)
