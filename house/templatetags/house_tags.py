"""Small template helpers for the House pages."""

from __future__ import annotations

from typing import Any

from django import template
from django.utils.safestring import SafeString, mark_safe
from django.utils.translation import gettext as _
from django.utils.translation import ngettext, pgettext

from events import money, player_words
from events.formats import Format
from events.scoreholio import Mismatch
from helpers.forms import fresh_key as new_key
from staff import roles as staff

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
        return _("%(seconds)s s") % {"seconds": seconds}
    minutes, rest = divmod(seconds, 60)
    if minutes < 60:
        return _("%(minutes)s min %(seconds)s s") % {"minutes": minutes, "seconds": f"{rest:02d}"}
    hours, minutes = divmod(minutes, 60)
    return _("%(hours)s h %(minutes)s min") % {"hours": hours, "minutes": f"{minutes:02d}"}


@register.simple_tag
def house_rules_words(rules: Format) -> dict[str, str]:
    """The format's words House's dialogs say, in the active language: what a Loss deals, what a
    Win offers, how many are kept, and what happens to the others."""
    left = rules.win_offered - rules.win_kept
    return {
        "loss": player_words.cards_words(rules.loss_dealt),
        "offer": player_words.win_offer_words(rules),
        "kept": player_words.cards_words(rules.win_kept),
        "discard": ngettext(
            "The other card is discarded.", "The other %(cards)s are discarded.", left
        )
        % {"cards": player_words.cards_words(left)},
    }


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


@register.filter
def house_outcome(outcome: str) -> str:
    """A game's recorded outcome ('win', 'loss') in the active language; the stored word stays."""
    words = {
        "win": pgettext("a game's outcome", "win"),
        "loss": pgettext("a game's outcome", "loss"),
    }
    return words.get(outcome, outcome)


@register.filter
def scoreholio_says(mismatch: Mismatch) -> str:
    """What the Match Log says of a game, in the active language (`Mismatch.says` in English)."""
    words = {
        None: _("no game logged"),
        "win": _("a win"),
        "loss": _("a loss"),
        "tie": _("a tie"),
    }
    return words.get(mismatch.scoreholio, mismatch.says)


@register.filter
def role_word(role: str) -> str:
    """A staff role's name as a page shows it beside a member ('cashier'), in the active
    language; the stored value stays."""
    return staff.word(role)
