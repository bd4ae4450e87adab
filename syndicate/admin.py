"""What every app's admin shares."""

from django.contrib import admin


class ReadOnlyAdmin(admin.ModelAdmin):
    """Rows that only the services may change: visible, never edited here."""

    def has_add_permission(self, request, obj=None):  # type: ignore[no-untyped-def]
        return False

    def has_change_permission(self, request, obj=None):  # type: ignore[no-untyped-def]
        return False

    def has_delete_permission(self, request, obj=None):  # type: ignore[no-untyped-def]
        return False
