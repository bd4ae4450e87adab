from django.contrib import admin

from audit.models import AuditEntry
from helpers.admin import ReadOnlyAdmin


@admin.register(AuditEntry)
class AuditEntryAdmin(ReadOnlyAdmin):
    list_display = ("event", "seq", "at", "actor", "action", "player")
    list_filter = ("action",)
    search_fields = ("player", "actor")
