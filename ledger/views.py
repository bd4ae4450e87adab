"""House's night page: the ledger's lines, the cash box, the forms that write a line, the print
layout and the CSV. House only: anyone else gets 404, as on every House page."""

from __future__ import annotations

from collections.abc import Callable

from django.contrib import messages
from django.contrib.auth.decorators import login_required
from django.http import Http404, HttpRequest, HttpResponse
from django.shortcuts import redirect, render
from django.template.loader import render_to_string
from django.urls import reverse
from django.utils.translation import gettext as _
from django.views.decorators.http import require_GET, require_POST

from accounts.models import User
from events.errors import DomainError, OrganizationSuspended
from events.models import Event, Registration, RegistrationStatus
from events.money import dollars
from events.runner import is_house, refuse_if_suspended, roles_of
from helpers.forms import form_key, refuse
from ledger import services
from ledger.forms import LEDGER_FORMS, posted_dollars, posted_id, posted_text
from ledger.lines import (
    ENTRY_METHODS,
    PAYOUT_METHODS,
    REFUND_METHODS,
    SPONSOR_METHODS,
    UnreadableLedgerLine,
)
from ledger.report import method_choices, night_csv, night_report
from staff import roles as staff


def _house_event(request: HttpRequest, event_id: int) -> tuple[Event, User]:
    user = request.user
    event = Event.objects.filter(pk=event_id).first()
    if not isinstance(user, User) or event is None or not is_house(user, event):
        if event is not None:
            refuse_if_suspended(user if isinstance(user, User) else None, Event, event.pk)
        raise Http404("No such event.")
    return event, user


def _money_event(request: HttpRequest, event_id: int) -> tuple[Event, User, frozenset[str]]:
    """House whose role may see the night's money (staff/roles.py `SIGHTS`); any other role
    is refused with a House action's words (raised as `NotAllowed`)."""
    event, user = _house_event(request, event_id)
    roles = roles_of(user, event.pk)
    if not staff.may_see(roles, "money"):
        raise staff.unseen(roles, "money")
    return event, user, roles


def _not_shown(error: DomainError) -> HttpResponse:
    """The money a role may not see: the site's error page with the refusal's words (the 403 is
    logged by syndicate/security.py). A suspended organization's page is the suspension's
    (house/suspension.py)."""
    if isinstance(error, OrganizationSuspended):
        raise error
    context = {"title": "Not for your role", "message": error.message, "status": error.status}
    return HttpResponse(render_to_string("error.html", context), status=error.status)


def _unreadable(error: UnreadableLedgerLine) -> HttpResponse:
    """A ledger line that cannot be read: the page says which, and adds up nothing."""
    context = {"title": "The ledger cannot be read", "message": error.message, "status": 500}
    return HttpResponse(render_to_string("error.html", context), status=error.status)


@login_required
@require_GET
def night(request: HttpRequest, event_id: int) -> HttpResponse:
    """The ledger and the night report, laid out for print too."""
    try:
        event, _, roles = _money_event(request, event_id)
    except DomainError as error:
        return _not_shown(error)
    try:
        report = night_report(event)
    except UnreadableLedgerLine as error:
        return _unreadable(error)
    players = list(
        Registration.objects.filter(event=event)
        .exclude(status=RegistrationStatus.NO_SHOW)
        .order_by("label")
        .values("pk", "label", "status", "paid", "award")
    )
    return render(
        request,
        "ledger/night.html",
        {
            "event": event,
            "report": report,
            "box": report.box,
            "players": players,
            "refundable": [p for p in players if p["status"] in ("cancelled", "withdrawn")],
            "winners": [p for p in players if p["award"]],
            "entry_methods": method_choices(ENTRY_METHODS),
            "refund_methods": method_choices(REFUND_METHODS),
            "payout_methods": method_choices(PAYOUT_METHODS),
            "sponsor_methods": method_choices(SPONSOR_METHODS),
            "sponsor_left": max(report.box.sponsored - report.box.sponsor_in, 0),
            "my_roles": staff.labels(roles),
            # The forms of the lines the viewer's roles may write (staff/roles.py).
            "does": staff.sight_of(roles, LEDGER_FORMS.values()).does,
        },
    )


@login_required
@require_GET
def night_csv_download(request: HttpRequest, event_id: int) -> HttpResponse:
    try:
        event, _, _ = _money_event(request, event_id)
    except DomainError as error:
        return _not_shown(error)
    try:
        report = night_report(event)
    except UnreadableLedgerLine as error:
        return _unreadable(error)
    response = HttpResponse(night_csv(report), content_type="text/csv; charset=utf-8")
    response["Content-Disposition"] = f'attachment; filename="event-{event.pk}-night.csv"'
    return response


def _line(
    write: Callable[[HttpRequest, Event, User, str], str],
) -> Callable[[HttpRequest, int], HttpResponse]:
    """A form that writes one line: House only, POST only, its refusal in plain words."""

    def view(request: HttpRequest, event_id: int) -> HttpResponse:
        event, user = _house_event(request, event_id)
        try:
            done = write(request, event, user, form_key(request))
        except DomainError as error:
            refuse(request, error)
        else:
            messages.success(request, done)
        return redirect(reverse("ledger:night", kwargs={"event_id": event.pk}))

    view.__name__ = write.__name__
    view.__doc__ = write.__doc__
    return login_required(require_POST(view))


def _entry(request: HttpRequest, event: Event, user: User, key: str) -> str:
    """An entry paid in cash, by card, online or comped."""
    answer = services.entry_payment(
        event_id=event.pk,
        registration_id=posted_id(request),
        by=user,
        method=posted_text(request, "method"),
        reference=posted_text(request, "reference"),
        reason=posted_text(request, "reason"),
        idempotency_key=key,
    )
    return f"Entry recorded ({answer.method}, {dollars(answer.amount)}): " + _in_the_box(
        answer.expected_cash
    )


def _in_the_box(expected: int) -> str:
    """What the box should now hold, with a warning when the lines take it below $0."""
    return f"{dollars(expected)} in the box.{_short(expected)}"


def _short(expected: int) -> str:
    if expected >= 0:
        return ""
    return (
        f" Warning: the box should hold {dollars(expected)}, more cash out than in: record the "
        "cash that came in, or check the lines."
    )


def _refund(request: HttpRequest, event: Event, user: User, key: str) -> str:
    """Money given back for a cancelled entry or a withdrawal."""
    answer = services.entry_refund(
        event_id=event.pk,
        registration_id=posted_id(request),
        by=user,
        amount=posted_dollars(request, _("A refund")),
        method=posted_text(request, "method"),
        reason=posted_text(request, "reason"),
        idempotency_key=key,
    )
    short = _short(answer.expected_cash)
    return f"Refund recorded: {dollars(answer.amount)} ({answer.method}).{short}"


def _payout(request: HttpRequest, event: Event, user: User, key: str) -> str:
    """An award, or part of it, handed over."""
    answer = services.payout_record(
        event_id=event.pk,
        registration_id=posted_id(request),
        by=user,
        amount=posted_dollars(request, _("A payout")),
        method=posted_text(request, "method"),
        handed_by=posted_text(request, "handed_by"),
        acknowledged=request.POST.get("acknowledged") == "1",
        idempotency_key=key,
    )
    flag = " Reportable winnings: keep the tax paperwork." if answer.reportable else ""
    return (
        f"Payout recorded: {dollars(answer.amount)}, {dollars(answer.award_left)} of the award "
        f"left.{flag}{_short(answer.expected_cash)}"
    )


def _sponsor(request: HttpRequest, event: Event, user: User, key: str) -> str:
    """A free-entry event's sponsor money, handed over or transferred."""
    answer = services.sponsor_payment(
        event_id=event.pk,
        by=user,
        amount=posted_dollars(request, _("The sponsor's money")),
        method=posted_text(request, "method"),
        reference=posted_text(request, "reference"),
        idempotency_key=key,
    )
    return (
        f"Sponsor's money recorded: {dollars(answer.amount)} ({answer.method}), "
        f"{dollars(answer.still_to_come)} of the sponsored pool still to come: "
        + _in_the_box(answer.expected_cash)
    )


entry = _line(_entry)
refund = _line(_refund)
payout = _line(_payout)
sponsor = _line(_sponsor)
