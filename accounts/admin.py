from allauth.account.admin import EmailAddressAdmin
from allauth.account.models import EmailAddress
from django.contrib import admin
from django.contrib.auth.admin import GroupAdmin, UserAdmin
from django.contrib.auth.forms import UserChangeForm, UserCreationForm
from django.contrib.auth.models import Group

from accounts.models import User
from accounts.names import normalize_display_name
from helpers.admin import SecretsHiddenAdmin

# The admins that Django and allauth register, under the same guard as ours (helpers/admin.py).
admin.site.unregister(Group)
admin.site.unregister(EmailAddress)


@admin.register(Group)
class GuardedGroupAdmin(SecretsHiddenAdmin, GroupAdmin):
    pass


@admin.register(EmailAddress)
class GuardedEmailAddressAdmin(SecretsHiddenAdmin, EmailAddressAdmin):
    pass


class AccountCreationForm(UserCreationForm):
    def clean_display_name(self) -> str:
        return normalize_display_name(self.cleaned_data["display_name"])


class AccountChangeForm(UserChangeForm):
    def clean_display_name(self) -> str:
        return normalize_display_name(self.cleaned_data["display_name"])


@admin.register(User)
class AccountAdmin(SecretsHiddenAdmin, UserAdmin):
    form = AccountChangeForm
    add_form = AccountCreationForm
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
