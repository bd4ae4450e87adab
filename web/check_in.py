"""Self check-in: a registered player at the venue checks in with the code on the board.

`/events/<id>/check-in` is the address the board shows (its QR adds `?code=...`): it asks for the
code, or offers it already filled in, and posts it to the service. A wrong code is refused in
plain words and changes nothing.
"""

from __future__ import annotations

from django.contrib import messages
from django.contrib.auth.decorators import login_required
from django.http import Http404, HttpRequest, HttpResponse
from django.shortcuts import get_object_or_404, redirect, render
from django.urls import reverse

from accounts.models import User
from api import serializers as body
from events import services
from events.check_in import normalised_code
from events.errors import DomainError
from events.limits import CHECK_IN_CODE_LENGTH
from events.models import Event, Phase, Registration, RegistrationStatus
from syndicate.query import query_text
from web.errors import checked, form_key, fresh_key, refuse


@login_required
def self_check_in(request: HttpRequest, event_id: int) -> HttpResponse:
    event = get_object_or_404(Event, pk=event_id)
    if event.phase == Phase.DRAFT:
        raise Http404("No such event.")
    user = request.user
    assert isinstance(user, User)
    here = reverse("web:self_check_in", kwargs={"event_id": event.pk})
    if request.method == "POST":
        try:
            key = form_key(request)
            code = checked(body.SelfCheckIn, {"code": str(request.POST.get("code", ""))})["code"]
            services.self_check_in(event_id=event.pk, by=user, code=code, idempotency_key=key)
        except DomainError as error:
            refuse(request, error)
            return redirect(here)
        messages.success(request, "You are checked in. Good luck!")
        return redirect("web:event", event_id=event.pk)
    registration = Registration.objects.filter(event=event, player=user).first()
    status = registration.status if registration else None
    typed = normalised_code(query_text(request, "code", CHECK_IN_CODE_LENGTH))
    return render(
        request,
        "web/self_check_in.html",
        {
            "event": event,
            "open": event.self_check_in and event.phase != Phase.FINALIZED,
            "registered": status == RegistrationStatus.REGISTERED,
            "checked_in": status == RegistrationStatus.CHECKED_IN,
            "not_registered": status in (None, RegistrationStatus.CANCELLED),
            "status_label": registration.get_status_display() if registration else "",
            "code": typed if typed.isascii() and typed.isalnum() else "",
            "key": fresh_key(),
        },
    )
