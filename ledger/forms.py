"""The ledger's forms on House's night page: checked here, then handed to one service each."""

from __future__ import annotations

from django.http import HttpRequest
from django.utils.translation import gettext as _

from events.errors import Invalid
from events.limits import ID_MAX

# Each form of the night page, by its URL's name, and the House action it performs: the page
# renders a form only for a viewer whose roles may do it (staff/roles.py).
LEDGER_FORMS: dict[str, str] = {
    "ledger:entry": "entry_paid",
    "ledger:refund": "entry_refunded",
    "ledger:payout": "payout_made",
    "ledger:sponsor": "sponsor_paid",
}


def posted_id(request: HttpRequest, name: str = "registration") -> int:
    text = str(request.POST.get(name, ""))
    if not (text.isascii() and text.isdigit() and len(text) <= 19) or not 0 < int(text) <= ID_MAX:
        raise Invalid(_("Choose a player."))
    return int(text)


def posted_dollars(request: HttpRequest, what: str) -> int:
    text = str(request.POST.get("amount", "")).strip().lstrip("$")
    if not (text.isascii() and text.isdigit() and len(text) <= 10):
        raise Invalid(_("%(what)s is a whole number of dollars.") % {"what": what})
    return int(text)


def posted_text(request: HttpRequest, name: str) -> str:
    return str(request.POST.get(name, ""))
