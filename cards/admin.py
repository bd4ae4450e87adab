"""Dealt cards in the admin: a face-down card shows as face down, never its identity.

The shuffle seed and the shoes' orders are not registered at all: they stay secret until the audit
reveals the seed at finalization.
"""

from django.contrib import admin

from cards.models import DealtCard, Offer
from helpers.admin import ReadOnlyAdmin


@admin.register(DealtCard)
class DealtCardAdmin(ReadOnlyAdmin):
    list_display = ("position", "shown_card", "registration", "state", "kept_index")
    list_filter = ("state",)
    fields = (
        "position",
        "shown_card",
        "registration",
        "offer",
        "result",
        "state",
        "kept_index",
        "kept_source",
        "dealt_at",
    )
    readonly_fields = fields

    @admin.display(description="card")
    def shown_card(self, card: DealtCard) -> str:
        return "face down" if card.face_down else card.card


@admin.register(Offer)
class OfferAdmin(ReadOnlyAdmin):
    list_display = ("registration", "kind", "offered_at", "resolved_at", "voided_at")
    list_filter = ("kind",)
