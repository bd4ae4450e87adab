from allauth.account.admin import EmailAddressAdmin
from allauth.account.models import EmailAddress
from django.contrib import admin
from django.contrib.auth.admin import GroupAdmin, UserAdmin
from django.contrib.auth.models import Group

from accounts.models import User
from events.admin import SecretsHiddenAdmin

# The admins that Django and allauth register, under the same guard as ours (events/admin.py).
admin.site.unregister(Group)
admin.site.unregister(EmailAddress)


@admin.register(Group)
class GuardedGroupAdmin(SecretsHiddenAdmin, GroupAdmin):
    pass


@admin.register(EmailAddress)
class GuardedEmailAddressAdmin(SecretsHiddenAdmin, EmailAddressAdmin):
    pass


@admin.register(User)
class AccountAdmin(SecretsHiddenAdmin, UserAdmin):
    ordering = ("email",)
    list_display = ("email", "display_name", "is_staff", "is_active")
    search_fields = ("email", "display_name")
    fieldsets = (
        (None, {"fields": ("email", "password", "display_name")}),
        ("Permissions", {"fields": ("is_active", "is_staff", "is_superuser", "groups")}),
        ("Dates", {"fields": ("last_login", "date_joined")}),
    )
    add_fieldsets = (
        (
            None,
            {"classes": ("wide",), "fields": ("email", "display_name", "password1", "password2")},
        ),
    )
