"""Sign-up asks for a public display name besides the email and password."""

from __future__ import annotations

from django import forms
from django.http import HttpRequest
from django.utils.translation import gettext_lazy as _

from accounts.models import User
from accounts.names import normalize_display_name


class SignupForm(forms.Form):
    display_name = forms.CharField(
        max_length=40,
        label=_("Display name"),
        help_text=_("Shown to everyone at the event and on the board. Your email never is."),
        widget=forms.TextInput(attrs={"autocomplete": "nickname"}),
    )

    def clean_display_name(self) -> str:
        return normalize_display_name(self.cleaned_data["display_name"])

    def signup(self, request: HttpRequest, user: User) -> None:
        user.display_name = self.cleaned_data["display_name"]
        user.save(update_fields=["display_name"])
