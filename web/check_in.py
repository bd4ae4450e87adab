"""Self check-in: a player at the venue checks in with the code on the board.

`/events/<id>/check-in` is the address the board shows (its QR adds `?code=...`): it asks for the
code, or offers it already filled in, and posts it to the service. A player not yet registered
registers and checks in in the same step while registration is open, confirming the event's age
on the same form when it asks one. Someone signed out is sent
to sign up (or on to sign in) with this address, code included, as `next`, and comes back here
with the code still filled in. A wrong code is refused in plain words and changes nothing.
"""

from __future__ import annotations

from urllib.parse import urlencode, urlsplit

from django.contrib import messages
from django.contrib.auth.views import redirect_to_login
from django.http import Http404, HttpRequest, HttpResponse
from django.shortcuts import get_object_or_404, redirect, render
from django.urls import Resolver404, resolve, reverse
from django.utils.http import url_has_allowed_host_and_scheme
from django.utils.translation import gettext as _

from accounts.models import User
from events import request_bodies as body
from events import services
from events.check_in import normalised_code
from events.errors import DomainError
from events.limits import CHECK_IN_CODE_LENGTH
from events.models import Event, Phase, Registration, RegistrationStatus
from events.player_words import status_words
from events.query import query_text
from events.reads.common import event_summary
from helpers.forms import checked, form_key, fresh_key, refuse


def self_check_in(request: HttpRequest, event_id: int) -> HttpResponse:
    event = get_object_or_404(Event, pk=event_id)
    if event.phase == Phase.DRAFT:
        raise Http404("No such event.")
    user = request.user
    if not user.is_authenticated:
        # Most players scanning the board's QR have no account yet: sign-up first, which links
        # on to sign-in, both keeping this address with its code.
        return redirect_to_login(request.get_full_path(), login_url=reverse("account_signup"))
    assert isinstance(user, User)
    here = reverse("web:self_check_in", kwargs={"event_id": event.pk})
    if request.method == "POST":
        typed = str(request.POST.get("code", ""))
        try:
            key = form_key(request)
            code = checked(body.SelfCheckIn, {"code": typed})["code"]
            services.self_check_in(
                event_id=event.pk,
                by=user,
                code=code,
                register=True,
                age_confirmed=request.POST.get("age_confirmed") == "1",
                idempotency_key=key,
            )
        except DomainError as error:
            refuse(request, error)
            kept = _shown_code(typed)
            return redirect(f"{here}?{urlencode({'code': kept})}" if kept else here)
        messages.success(request, _("You are checked in. Good luck!"))
        return redirect("web:event", event_id=event.pk)
    registration = Registration.objects.filter(event=event, player=user).first()
    status = registration.status if registration else None
    not_registered = status in (None, RegistrationStatus.CANCELLED)
    return render(
        request,
        "web/self_check_in.html",
        {
            "event": event,
            "summary": event_summary(event),
            "open": event.self_check_in and event.phase != Phase.FINALIZED,
            "started": event.phase == Phase.STARTED,
            "registered": status == RegistrationStatus.REGISTERED,
            "checked_in": status == RegistrationStatus.CHECKED_IN,
            "not_registered": not_registered,
            "can_register": not_registered and event.registration_open,
            "status_label": status_words(registration.status) if registration else "",
            "code": _shown_code(query_text(request, "code", CHECK_IN_CODE_LENGTH * 2)),
            "key": fresh_key(),
        },
    )


def _shown_code(typed: str) -> str:
    """A code as the form shows it again: normalised, or nothing when it cannot be one."""
    code = normalised_code(typed)[: CHECK_IN_CODE_LENGTH * 2]
    return code if code.isalnum() and code.isascii() else ""


def event_to_check_in(request: HttpRequest, next_url: str | None) -> Event | None:
    """The event whose self check-in page `next_url` (a sign-in's `next`) leads to, if any."""
    if not next_url or not url_has_allowed_host_and_scheme(
        next_url, allowed_hosts={request.get_host()}, require_https=request.is_secure()
    ):
        return None
    try:
        match = resolve(urlsplit(next_url).path)
    except Resolver404:
        return None
    if match.view_name != "web:self_check_in":
        return None
    return Event.objects.exclude(phase=Phase.DRAFT).filter(pk=match.kwargs["event_id"]).first()
