"""Django admin for House convenience: read-mostly; state changes go through the services."""

from __future__ import annotations

from django.contrib import admin

from events.models import Event, GameResult, PoolAdjustment, Registration, Review
from helpers.admin import ReadOnlyAdmin


@admin.register(Event)
class EventAdmin(ReadOnlyAdmin):
    list_display = ("name", "date", "format", "phase", "registration_open", "pool_confirmed")
    list_filter = ("phase", "format")
    search_fields = ("name", "venue")
    readonly_fields = ("house_members",)

    @admin.display(description="House")
    def house_members(self, event: Event) -> str:
        return ", ".join(row.user.display_name for row in event.staff.select_related("user"))


@admin.register(Registration)
class RegistrationAdmin(ReadOnlyAdmin):
    list_display = ("label", "event", "status", "paused", "wild_rank", "high_place", "award")
    list_filter = ("status", "paused", "event")
    search_fields = ("label",)
    exclude = ("player",)


@admin.register(GameResult)
class GameResultAdmin(ReadOnlyAdmin):
    list_display = ("registration", "game", "outcome", "original_outcome", "assisted")
    list_filter = ("outcome",)


@admin.register(Review)
class ReviewAdmin(ReadOnlyAdmin):
    list_display = ("registration", "opened_at", "resolved_at")


@admin.register(PoolAdjustment)
class PoolAdjustmentAdmin(ReadOnlyAdmin):
    list_display = ("event", "amount", "explanation", "created_by")
