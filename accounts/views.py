"""allauth's pages where ours differ: sign-up, which a refusal leaves without an account, and the
email addresses page, with "make primary" refused for another account's email.

An address may predate the check in accounts.forms.AddEmailForm, or two accounts may race for
one: making it primary would then break the unique email of accounts. Refused with a message,
never a server error.
"""

from __future__ import annotations

from typing import Any

from allauth.account.internal.flows.email_verification_by_code import (
    EMAIL_VERIFICATION_CODE_SESSION_KEY,
)
from allauth.account.internal.stagekit import clear_login
from allauth.account.views import EmailView as AllauthEmailView
from allauth.account.views import SignupView as AllauthSignupView
from django.contrib import messages
from django.db import IntegrityError, transaction
from django.forms import Form
from django.http import HttpRequest, HttpResponse, HttpResponseRedirect
from django.utils.translation import gettext_lazy

from accounts.emails import email_belongs_to_another


class SignupView(AllauthSignupView):
    """allauth saves the new account before it sends the account's code, and answers 429 when a
    code went to that address moments before: the account would stay behind a refusal. Here the
    sign-up is one transaction, and a refusal rolls it back (docs/decisions.md, Accounts)."""

    def form_valid(self, form: Form) -> HttpResponse:
        with transaction.atomic():
            response: HttpResponse = super().form_valid(form)
            if response.status_code >= 400:
                transaction.set_rollback(True)
        if response.status_code >= 400:
            # Nothing half-begun stays in the session either: no pending sign-in, no code.
            clear_login(self.request)
            self.request.session.pop(EMAIL_VERIFICATION_CODE_SESSION_KEY, None)
        return response


signup = SignupView.as_view()

TAKEN = gettext_lazy("That email belongs to another account, so it cannot be your primary email.")


class EmailView(AllauthEmailView):
    def _action_primary(self, request: HttpRequest, *args: Any, **kwargs: Any) -> Any:
        address = self._get_email_address(request)
        if address is not None and email_belongs_to_another(address.email, request.user):
            messages.error(request, TAKEN)
            return HttpResponseRedirect(self.get_success_url())
        try:
            with transaction.atomic():
                return super()._action_primary(request, *args, **kwargs)
        except IntegrityError:
            messages.error(request, TAKEN)
            return HttpResponseRedirect(self.get_success_url())


# Signed-in accounts only, under allauth's `manage_email` rate limit: both come with allauth's view.
email = EmailView.as_view()
