"""Filters of the player's pages (places and phases in words, how long the Not kept cards still
show) and of the public pages' hands (the board, the final page)."""

from __future__ import annotations

import datetime
from typing import Any

from django import template
from django.conf import settings
from django.utils import timezone, translation

from cards import names
from events import player_words
from events.formats import Format, format_for

register = template.Library()

NOT_KEPT_MS = 3000  # "shown about three seconds, then hidden" (docs/rules.md section 4.3)


@register.filter
def offer_words(rules: Format) -> str:
    """'two face-up cards': what a Win offers, in the active language."""
    return player_words.win_offer_words(rules)


@register.filter
def phase_words(phase: str) -> str:
    """An event's phase in the active language."""
    return player_words.phase_words(phase)


@register.filter
def format_words(name: str) -> str:
    """A format's name ("league") as the active language names it ("Liga"): said when the
    page is rendered, whatever language its read model was read in."""
    return format_for(name).label_words


@register.filter
def status_words(status: str) -> str:
    """A registration's status in the active language, as a sentence ends with it."""
    return player_words.status_words(status)


@register.filter
def ordinal(place: int | None) -> str:
    """3 -> '3rd', 11 -> '11th', 22 -> '22nd' (Spanish '3.º', French '1er', '3e')."""
    if place is None:
        return "—"
    language = translation.get_language()
    if language == "es":
        return f"{place}.º"
    if language == "fr":
        return f"{place}er" if place == 1 else f"{place}e"
    teens = 10 <= place % 100 <= 20
    suffix = "th" if teens else {1: "st", 2: "nd", 3: "rd"}.get(place % 10, "th")
    return f"{place}{suffix}"


@register.filter
def not_kept_left_ms(revealed_at: datetime.datetime | None) -> int:
    """Milliseconds the Not kept cards still show, counted from the confirmation itself, so a
    refresh or a reload never starts the three seconds again."""
    if revealed_at is None:
        return 0
    shown = timezone.now() - revealed_at
    return max(0, NOT_KEPT_MS - int(shown.total_seconds() * 1000))


@register.filter
def hand_name(hand: Any, side: str = "high") -> str:
    """A board row's or a winner's hand (`cards`, `wild_rank`, `description`) named in the active
    language: scoring's stored name in English, as players say it in the others."""
    language = translation.get_language() or settings.LANGUAGE_CODE
    if language.startswith("en"):
        return str(hand.description)
    low = side == "low"
    codes = [card.code for card in hand.cards]
    return player_words.shown_hand_words(codes, None if low else hand.wild_rank, low=low)


@register.filter
def card_words(code: str) -> str:
    """A face-up card's words for screen readers, in the active language ('Queen of hearts')."""
    return names.card_words(code)
