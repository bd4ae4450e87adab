"""Another email on an account must be no other account's (allauth's email page).

allauth lets such an address through while it prevents enumeration (it would be verified later),
but emails here are unique and not verified: making it primary would then fail. Only a signed-in
account sees this answer, under allauth's `manage_email` rate limit.
"""

from __future__ import annotations

from typing import Any

from allauth.account import forms as allauth_forms
from allauth.account.models import EmailAddress
from django import forms
from django.utils.translation import gettext as _

from accounts.models import User


def email_belongs_to_another(email: str, user: Any) -> bool:
    """Whether another account has this email, as its sign-in email or an added one."""
    return (
        User.objects.exclude(pk=user.pk).filter(email__iexact=email).exists()
        or EmailAddress.objects.filter(email__iexact=email).exclude(user_id=user.pk).exists()
    )


class AddEmailForm(allauth_forms.AddEmailForm):
    def clean_email(self) -> str:
        value = str(super().clean_email())
        if email_belongs_to_another(value, self.user):
            raise forms.ValidationError(_("That email belongs to another account."))
        return value
