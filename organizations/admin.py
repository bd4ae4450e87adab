from django.contrib import admin

from helpers.admin import SecretsHiddenAdmin
from organizations.models import Organization, Venue


class VenueInline(admin.TabularInline):
    model = Venue
    extra = 0
    fields = ("name", "time_zone")


@admin.register(Organization)
class OrganizationAdmin(SecretsHiddenAdmin):
    """The operator's view: suspend an organization (set `suspended at`) or cap its events."""

    list_display = ("name", "slug", "suspended_at", "events_per_month", "created_at")
    list_filter = ("suspended_at",)
    search_fields = ("name", "slug")
    fields = ("name", "slug", "suspended_at", "events_per_month")
    inlines = [VenueInline]
