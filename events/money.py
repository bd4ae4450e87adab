"""How dollars are written, on every page, message, toast and CSV total: one formatter, so a
negative amount always reads "\u2212$30" (a true minus sign before the dollar sign), never "$-30".
Dollars are whole numbers (docs/rules.md section 7.1).

In the active language (docs/decisions.md, "Languages"): the number as Django localizes it and
the dollar sign where its readers put it ("$30" in English and Spanish, "30 $" in French)."""

from __future__ import annotations

from typing import TYPE_CHECKING

from django.utils.formats import number_format
from django.utils.translation import gettext as _
from django.utils.translation import pgettext

if TYPE_CHECKING:
    from events.models import Event

MINUS = "\u2212"


def _written(value: int) -> str:
    """A whole, non-negative number of dollars with its sign, in the active language."""
    # Translators: a whole number of dollars; where the dollar sign goes ("30 $" in French).
    return pgettext("dollars", "$%(amount)s") % {"amount": number_format(value)}


def dollars(amount: int) -> str:
    """$30, $0, \u2212$30."""
    value = int(amount)
    return f"{MINUS}{_written(-value)}" if value < 0 else _written(value)


def signed_dollars(amount: int) -> str:
    """+$5, \u2212$10, $0: a change, with its direction."""
    value = int(amount)
    return f"+{_written(value)}" if value > 0 else dollars(value)


def withdrawal_terms(event: Event) -> str:
    """What a withdrawal does to the contribution, as the event's refund policy says
    (docs/decisions.md, "The ledger"): the leave page and House's withdrawal say the same."""
    if event.sponsored or not event.contribution:
        return _("This event takes no contribution, so there is nothing to refund.")
    if event.refund_policy == "withdrawals":
        return _(
            "This event refunds withdrawals: House gives the contribution (up to "
            "%(amount)s) back on request, and the pool is adjusted."
        ) % {"amount": dollars(event.contribution)}
    return _("This event does not refund withdrawals: the contribution stays in the pool.")
