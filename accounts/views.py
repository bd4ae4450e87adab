"""The email addresses page (allauth's), with "make primary" refused for another account's email.

An address may predate the check in accounts.forms.AddEmailForm, or two accounts may race for
one: making it primary would then break the unique email of accounts. Refused with a message,
never a server error.
"""

from __future__ import annotations

from typing import Any

from allauth.account.views import EmailView as AllauthEmailView
from django.contrib import messages
from django.db import IntegrityError, transaction
from django.http import HttpRequest, HttpResponseRedirect

from accounts.emails import email_belongs_to_another

TAKEN = "That email belongs to another account, so it cannot be your primary email."


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
