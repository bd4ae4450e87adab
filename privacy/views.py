"""The settings page's data section: download everything kept about you, delete your account."""

from __future__ import annotations

import json

from django.contrib import messages
from django.contrib.auth import logout
from django.contrib.auth.decorators import login_required
from django.http import Http404, HttpRequest, HttpResponse
from django.shortcuts import redirect
from django.utils.translation import gettext as _
from django.views.decorators.http import require_GET, require_POST

from accounts.models import User
from events.errors import DomainError, Invalid
from helpers.forms import refuse
from privacy.services import delete_account, personal_data

# What the player types to confirm, in every language: a deletion cannot be undone.
CONFIRMATION = "delete"


def _user(request: HttpRequest) -> User:
    if not isinstance(request.user, User):
        raise Http404("No such page.")
    return request.user


@login_required
@require_GET
def data_download(request: HttpRequest) -> HttpResponse:
    user = _user(request)
    response = HttpResponse(
        json.dumps(personal_data(user), indent=2, ensure_ascii=False),
        content_type="application/json; charset=utf-8",
    )
    response["Content-Disposition"] = 'attachment; filename="my-syndicate-data.json"'
    response["Cache-Control"] = "no-store"
    return response


@login_required
@require_POST
def account_delete(request: HttpRequest) -> HttpResponse:
    user = _user(request)
    try:
        if request.POST.get("confirm", "").strip().lower() != CONFIRMATION:
            raise Invalid(
                _("Type %(word)s to confirm: a deleted account cannot come back.")
                % {"word": CONFIRMATION}
            )
        delete_account(user=user)
    except DomainError as error:
        refuse(request, error)
        return redirect("web:settings")
    logout(request)
    messages.success(request, _("Your account is deleted."))
    return redirect("/")
