"""House pages: check that the user is House, parse the form, call one service, render.

Every House page answers 404 to anyone who is not House for the event (nothing leaks). Every
action is a POST carrying the rendered form's idempotency key; a refusal shows the service's message
and changes nothing. An htmx request gets the dashboard's live part back, anything else a redirect.
"""

from __future__ import annotations

from collections.abc import Callable
from dataclasses import dataclass
from functools import wraps
from typing import Any, Concatenate

from django import forms
from django.contrib import messages
from django.contrib.auth.decorators import login_required
from django.http import Http404, HttpRequest, HttpResponse, JsonResponse
from django.shortcuts import get_object_or_404, redirect, render
from django.urls import reverse
from django.utils import timezone
from django.utils.translation import gettext as _
from django.utils.translation import ngettext
from django.views.decorators.http import require_GET, require_POST

from accounts.models import User
from audit.export import audit_csv, audit_document
from events import limits, money, scoreholio, services, store
from events import request_bodies as body
from events.check_in import has_paid_entries
from events.errors import DomainError, Invalid
from events.event_language import in_event_language, render_in_event_language
from events.models import Event, Registration, Review
from events.money import dollars
from events.player_words import win_offer_words
from events.remainder_policy import lacks_remainder_policy
from events.runner import is_house, refuse_if_suspended, roles_of
from helpers.forms import COMMON_ZONES, checked, form_key, fresh_key, refuse
from house import selectors, sheets, staff_pages
from house.copies import sees_standby, standby_panel
from house.forms import EmailForm, EventForm, parse_adjustments
from house.organizations import organization_to_make_in
from house.read_model import house_page, sight
from organizations.models import Organization
from payments import checkout
from staff import roles as staff

SCOREHOLIO_SESSION = "house:scoreholio:{event_id}"
SCOREHOLIO_MAX_BYTES = 2 * 1024 * 1024


@dataclass(frozen=True, slots=True)
class Done:
    """What a House action says on success, and where on the page the House lands."""

    message: str
    anchor: str = ""


def _user(request: HttpRequest) -> User:
    user = request.user
    if not isinstance(user, User):
        raise Http404("No such page.")
    return user


def _house_event(request: HttpRequest, event_id: int) -> Event:
    """The event, if this user is House for it; 404 otherwise (never say it exists)."""
    event = Event.objects.filter(pk=event_id).first()
    if event is None or not is_house(_user(request), event):
        if event is not None:
            refuse_if_suspended(_user(request), Event, event.pk)
        raise Http404("No such event.")
    return event


def _registration(event: Event, registration_id: int) -> Registration:
    return get_object_or_404(Registration, pk=registration_id, event=event)


def _id(text: str, message: str) -> int:
    """An id typed or chosen in a form: ASCII digits within the database's range."""
    if not (text.isascii() and text.isdigit() and len(text) <= 19) or not (
        0 < int(text) <= limits.ID_MAX
    ):
        raise Invalid(message)
    return int(text)


def _reason(request: HttpRequest) -> str:
    """The reason typed, checked as the API checks it (plain text, 500 characters at most)."""
    return str(checked(body.Withdrawal, _fields(request, "reason"))["reason"])


def _fields(request: HttpRequest, *names: str) -> dict[str, str]:
    """The named fields the form sent (one left out stays out: the serializer says so)."""
    return {name: str(request.POST.get(name)) for name in names if name in request.POST}


def _is_htmx(request: HttpRequest) -> bool:
    return bool(getattr(request, "htmx", False))


def house_action[**P](
    view: Callable[Concatenate[HttpRequest, Event, User, str | None, P], Done],
) -> Callable[Concatenate[HttpRequest, int, P], HttpResponse]:
    """Wrap an action: House only, POST only, one service call, its refusal shown in plain words."""

    @wraps(view)
    def wrapped(
        request: HttpRequest, event_id: int, *args: P.args, **kwargs: P.kwargs
    ) -> HttpResponse:
        event = _house_event(request, event_id)
        anchor = request.POST.get("anchor", "")
        try:
            done = view(request, event, _user(request), form_key(request), *args, **kwargs)
        except DomainError as error:
            refuse(request, error)
        else:
            messages.success(request, done.message)
            anchor = anchor or done.anchor
        return _after(request, event, anchor)

    return login_required(require_POST(wrapped))


def _after(request: HttpRequest, event: Event, anchor: str) -> HttpResponse:
    if _is_htmx(request):
        return _live_part(request, event, inline=True)
    url = reverse("house:dashboard", kwargs={"event_id": event.pk})
    safe = "".join(ch for ch in anchor if ch.isalnum() or ch in "-_")
    return redirect(f"{url}#{safe}" if safe else url)


def _live_part(request: HttpRequest, event: Event, *, inline: bool = False) -> HttpResponse:
    """The dashboard's live part at the event's version now, read and rendered from one
    database snapshot: the version it is marked with is the one every part of it shows, even
    while other actions commit (House's quick taps answer side by side)."""
    with store.consistent_read():
        return render(
            request, "house/_live.html", _dashboard_context(request, event, inline=inline)
        )


def _dashboard_context(request: HttpRequest, event: Event, *, inline: bool = False) -> dict:
    # The live part's context is House's page (house.read_model) as the viewer's roles see it,
    # as the fragments pushed to their socket render it (docs/decisions.md, "What a role may
    # see"): only the actions they may do, the night's money only if they may see it. Read from
    # one database snapshot, the event's version with it.
    with store.consistent_read():
        event.refresh_from_db()
        seen = house_page(event).seen_by(sight(roles_of(_user(request), event.pk)))
    context: dict[str, Any] = {**seen.context(), "inline_messages": inline}
    log = request.session.get(SCOREHOLIO_SESSION.format(event_id=event.pk))
    if isinstance(log, dict) and isinstance(log.get("text"), str):
        context["scoreholio"] = {
            "name": log.get("name", ""),
            **selectors.scoreholio_check(event, log["text"]),
        }
    return context


# --- pages --------------------------------------------------------------------------------------


@login_required
@require_GET
def events(request: HttpRequest) -> HttpResponse:
    """The events this user runs as House; site staff may create one."""
    user = _user(request)
    return render(
        request,
        "house/events.html",
        {
            "events": selectors.house_events(user),
            "organizations": Organization.objects.filter(staff__user=user).distinct(),
            "staff": user.is_staff,
        },
    )


@login_required
def event_new(request: HttpRequest) -> HttpResponse:
    """Site staff create an event (in draft); in an organization (`?organization=`), its owner
    and directors, at one of its venues."""
    user = _user(request)
    organization = organization_to_make_in(request, user, "event_create")
    if organization is None and not user.is_staff:
        raise Http404("No such page.")
    form = EventForm(request.POST or None, stripe=checkout.configured())
    venues = {} if organization is None else {v.name: v.pk for v in organization.venues.all()}
    if organization is not None:
        form.fields["venue"] = forms.ChoiceField(
            choices=[(name, name) for name in venues], label=form.fields["venue"].label
        )
    if request.method == "POST" and form.is_valid():
        given = dict(form.cleaned_data)
        placed: dict[str, Any] = {}
        if organization is not None:
            placed = {
                "organization_id": organization.pk,
                "venue_id": venues[given.pop("venue")],
            }
        try:
            created = services.event_create(
                by=user, idempotency_key=form_key(request), **given, **placed
            )
        except DomainError as error:
            form.add_error(None, error.message)
        else:
            messages.success(request, _created_message(form.cleaned_data))
            return redirect("house:dashboard", event_id=created.event_id)
    return _event_form(request, form, event=None)


def _created_message(settings: dict[str, Any]) -> str:
    """What a new event needs before registration opens (events.remainder_policy)."""
    if lacks_remainder_policy(settings["contribution"], settings["remainder_policy"]):
        return _(
            "Event created as a draft. It is a paid event: set its remainder policy in Settings "
            "before opening registration."
        )
    return _("Event created as a draft. Open registration when ready.")


@login_required
def event_edit(request: HttpRequest, event_id: int) -> HttpResponse:
    """House edits the draft settings until the start, the board's language until the event is
    finalized; staff appoint House members here."""
    event = _house_event(request, event_id)
    locked = event.phase not in ("draft", "open")
    paid_entries = has_paid_entries(event)
    if request.method == "POST":
        form = EventForm(
            request.POST,
            locked=locked,
            language_locked=event.phase == "finalized",
            paid_entries=paid_entries,
            initial=EventForm.initial_from(event),
            stripe=checkout.configured(),
        )
        if form.is_valid():
            try:
                answer = services.event_update(
                    event_id=event.pk,
                    by=_user(request),
                    changes=form.cleaned_data,
                    idempotency_key=form_key(request),
                )
            except DomainError as error:
                form.add_error(None, error.message)
            else:
                changed = answer.changed
                messages.success(
                    request,
                    _("Settings saved.") if changed else _("Nothing changed: settings as before."),
                )
                return redirect("house:dashboard", event_id=event.pk)
    else:
        form = EventForm(
            initial=EventForm.initial_from(event),
            locked=locked,
            language_locked=event.phase == "finalized",
            paid_entries=paid_entries,
            stripe=checkout.configured(),
        )
    return _event_form(request, form, event=event, locked=locked, paid_entries=paid_entries)


def _event_form(
    request: HttpRequest,
    form: EventForm,
    *,
    event: Event | None,
    locked: bool = False,
    paid_entries: bool = False,
) -> HttpResponse:
    return render(
        request,
        "house/event_form.html",
        {
            "form": form,
            "event": event,
            "locked": locked,
            "paid_entries": paid_entries,
            "key": fresh_key(),
            "zones": COMMON_ZONES,
            "staff_section": staff_pages.staff_section(request, event) if event else None,
        },
    )


@login_required
@require_GET
def dashboard(request: HttpRequest, event_id: int) -> HttpResponse:
    event = _house_event(request, event_id)
    context = {
        **_dashboard_context(request, event),
        "standby": standby_panel(dashboard=True) if sees_standby(_user(request)) else None,
        "my_roles": staff.labels(roles_of(_user(request), event.pk)),
        **staff_pages.displays(request, event),
        # The withdrawal dialog states the event's refund policy (events/money.py).
        "withdrawal_terms": money.withdrawal_terms(event),
    }
    return render(request, "house/dashboard.html", context)


@login_required
@require_GET
def dashboard_partial(request: HttpRequest, event_id: int) -> HttpResponse:
    """The live part of the dashboard, reloaded by htmx when the event changes."""
    event = _house_event(request, event_id)
    return _live_part(request, event)


@login_required
@require_GET
def audit_json(request: HttpRequest, event_id: int) -> HttpResponse:
    event = _house_event(request, event_id)
    response = JsonResponse(audit_document(event), json_dumps_params={"ensure_ascii": False})
    response["Content-Disposition"] = f'attachment; filename="event-{event.pk}-audit.json"'
    return response


@login_required
@require_GET
def audit_csv_download(request: HttpRequest, event_id: int) -> HttpResponse:
    event = _house_event(request, event_id)
    response = HttpResponse(audit_csv(event), content_type="text/csv; charset=utf-8")
    response["Content-Disposition"] = f'attachment; filename="event-{event.pk}-audit.csv"'
    return response


# --- Pages to read and print --------------------------------------------------------------------


@login_required
@require_GET
def results_sheet(request: HttpRequest, event_id: int) -> HttpResponse:
    """The results and payout sheet, laid out for print (File > Print, or save as PDF), in the
    event's language: it is pinned up for the players."""
    event = _house_event(request, event_id)
    seen = sight(roles_of(_user(request), event.pk))
    with in_event_language(event):
        sheet = sheets.results(event, money=seen.may_see("money"))
    return render_in_event_language(request, event, "house/sheet.html", sheet)


@login_required
@require_GET
def tonight(request: HttpRequest) -> HttpResponse:
    """Every event this House runs today, one line each, linking to its dashboard."""
    now = timezone.now()
    rows = sheets.tonight(_user(request), now)
    standby = standby_panel(dashboard=False) if sees_standby(_user(request)) else None
    return render(request, "house/tonight.html", {"rows": rows, "now": now, "standby": standby})


# --- the event ----------------------------------------------------------------------------------


@house_action
def registration_open(request: HttpRequest, event: Event, user: User, key: str | None) -> Done:
    services.registration_open(event_id=event.pk, by=user, idempotency_key=key)
    return Done(_("Registration is open."), "registration")


@house_action
def registration_close(request: HttpRequest, event: Event, user: User, key: str | None) -> Done:
    services.registration_close(event_id=event.pk, by=user, idempotency_key=key)
    return Done(_("Registration is closed."), "registration")


@house_action
def event_start(request: HttpRequest, event: Event, user: User, key: str | None) -> Done:
    answer = services.event_start(event_id=event.pk, by=user, idempotency_key=key)
    decks = ngettext("%(count)s deck", "%(count)s decks", answer.decks) % {"count": answer.decks}
    places = ngettext(
        "%(count)s supported place", "%(count)s supported places", answer.supported_places
    ) % {"count": answer.supported_places}
    return Done(
        _("The event has started: %(decks)s in the stock, %(places)s.")
        % {"decks": decks, "places": places},
        "players",
    )


@house_action
def pool_confirm(request: HttpRequest, event: Event, user: User, key: str | None) -> Done:
    adjustments = parse_adjustments(request.POST)
    answer = services.pool_confirm(
        event_id=event.pk, by=user, adjustments=adjustments, idempotency_key=key
    )
    return Done(_("Pool confirmed: %(pool)s.") % {"pool": dollars(answer.pool)}, "pool")


@house_action
def event_finalize(request: HttpRequest, event: Event, user: User, key: str | None) -> Done:
    services.event_finalize(event_id=event.pk, by=user, idempotency_key=key)
    return Done(_("The event is finalized: places and awards are locked."), "finalize")


@house_action
def self_check_in_switch(request: HttpRequest, event: Event, user: User, key: str | None) -> Done:
    enabled = request.POST.get("enabled") == "1"
    answer = services.self_check_in_switch(
        event_id=event.pk, by=user, enabled=enabled, idempotency_key=key
    )
    if answer.self_check_in:
        return Done(
            _("Self check-in is on: the code is %(code)s.") % {"code": answer.code}, "house-tools"
        )
    return Done(_("Self check-in is off."), "house-tools")


@house_action
def check_in_all(request: HttpRequest, event: Event, user: User, key: str | None) -> Done:
    answer = services.check_in_all(event_id=event.pk, by=user, idempotency_key=key)
    count = len(answer.checked_in)
    return Done(
        ngettext("%(count)s player checked in.", "%(count)s players checked in.", count)
        % {"count": count},
        "checkin",
    )


@house_action
def announcement_send(request: HttpRequest, event: Event, user: User, key: str | None) -> Done:
    text = checked(body.AnnouncementText, _fields(request, "text"))["text"]
    answer = services.announcement_send(event_id=event.pk, by=user, text=text, idempotency_key=key)
    count = answer.recipients
    return Done(
        ngettext(
            "Announcement sent to %(count)s player.",
            "Announcement sent to %(count)s players.",
            count,
        )
        % {"count": count},
        "house-tools",
    )


@house_action
def participant_add(request: HttpRequest, event: Event, user: User, key: str | None) -> Done:
    """Add a participant by email (or a no-show back by their registration): a late entry."""
    registration_id = request.POST.get("registration", "").strip()
    if registration_id:
        registration = _registration(event, _id(registration_id, _("Choose the player to add.")))
        player = registration.player
        if player is None:
            raise Invalid(_("This player's account no longer exists."))
    else:
        form = EmailForm(request.POST)
        if not form.is_valid():
            raise Invalid(_("Enter the participant's email address."))
        found = form.account()
        if found is None:
            raise Invalid(_("No Syndicate Account uses that email: the player signs up first."))
        player = found
    answer = services.participant_add(
        event_id=event.pk, by=user, player=player, idempotency_key=key
    )
    return Done(_("%(player)s is added and checked in.") % {"player": answer.label}, "checkin")


# --- one player ---------------------------------------------------------------------------------


@house_action
def check_in(
    request: HttpRequest, event: Event, user: User, key: str | None, registration_id: int
) -> Done:
    registration = _registration(event, registration_id)
    services.player_check_in(registration_id=registration.pk, by=user, idempotency_key=key)
    words = {"player": registration.label}
    if event.phase == "started":
        return Done(_("%(player)s is checked in (late entry).") % words, "checkin")
    return Done(_("%(player)s is checked in.") % words, "checkin")


@house_action
def registration_cancel(
    request: HttpRequest, event: Event, user: User, key: str | None, registration_id: int
) -> Done:
    registration = _registration(event, registration_id)
    services.registration_cancel(registration_id=registration.pk, by=user, idempotency_key=key)
    return Done(
        _("%(player)s's registration is cancelled.") % {"player": registration.label}, "checkin"
    )


@house_action
def waitlist_promote(
    request: HttpRequest, event: Event, user: User, key: str | None, registration_id: int
) -> Done:
    registration = _registration(event, registration_id)
    services.waitlist_promote(
        registration_id=registration.pk, by=user, reason=_reason(request), idempotency_key=key
    )
    return Done(_("%(player)s has a place.") % {"player": registration.label}, "waitlist")


@house_action
def registration_remove(
    request: HttpRequest, event: Event, user: User, key: str | None, registration_id: int
) -> Done:
    registration = _registration(event, registration_id)
    services.registration_remove(
        registration_id=registration.pk, by=user, reason=_reason(request), idempotency_key=key
    )
    return Done(
        _("%(player)s's registration is removed.") % {"player": registration.label}, "waitlist"
    )


@house_action
def payment_mark(
    request: HttpRequest, event: Event, user: User, key: str | None, registration_id: int
) -> Done:
    registration = _registration(event, registration_id)
    paid = request.POST.get("paid") == "1"
    answer = services.payment_mark(
        registration_id=registration.pk, by=user, paid=paid, idempotency_key=key
    )
    words = {"player": registration.label, "collected": dollars(answer.collected)}
    if answer.paid:
        said = _("%(player)s is marked paid: %(collected)s collected.") % words
    else:
        said = _("%(player)s is marked not paid: %(collected)s collected.") % words
    return Done(said, registration_anchor(registration))


@house_action
def check_in_undo(
    request: HttpRequest, event: Event, user: User, key: str | None, registration_id: int
) -> Done:
    registration = _registration(event, registration_id)
    services.check_in_undo(registration_id=registration.pk, by=user, idempotency_key=key)
    return Done(_("%(player)s's check-in is undone.") % {"player": registration.label}, "checkin")


@house_action
def result_submit(
    request: HttpRequest, event: Event, user: User, key: str | None, registration_id: int
) -> Done:
    registration = _registration(event, registration_id)
    result = checked(
        body.ResultReport,
        _fields(request, "game", "outcome", "opponent", "score", "reason"),
        {"game": _("Choose the game to report."), "outcome": _("The result is 'win' or 'loss'.")},
    )
    game, outcome = result["game"], result["outcome"]
    services.result_submit(registration_id=registration.pk, by=user, **result, idempotency_key=key)
    words = {"game": game, "player": registration.label}
    if outcome == "win":
        said = _("Game %(game)s recorded as a win for %(player)s.") % words
    else:
        said = _("Game %(game)s recorded as a loss for %(player)s.") % words
    return Done(said, registration_anchor(registration))


@house_action
def win_choice(
    request: HttpRequest, event: Event, user: User, key: str | None, registration_id: int
) -> Done:
    registration = _registration(event, registration_id)
    choice = checked(
        body.WinChoice,
        _fields(request, "slot", "reason"),
        {"slot": _("Choose one of the %(offer)s.") % {"offer": win_offer_words(event.rules)}},
    )
    answer = services.win_choice_confirm(
        registration_id=registration.pk, by=user, **choice, idempotency_key=key
    )
    return Done(
        _("%(player)s keeps the card chosen by House for game %(game)s.")
        % {"player": registration.label, "game": answer.game},
        registration_anchor(registration),
    )


@house_action
def starting_selection(
    request: HttpRequest, event: Event, user: User, key: str | None, registration_id: int
) -> Done:
    registration = _registration(event, registration_id)
    selection = checked(
        body.StartingSelection,
        {"slots": request.POST.getlist("slot"), **_fields(request, "reason")},
        {"slots": _("Choose the face-down cards by their places.")},
    )
    services.starting_selection_confirm(
        registration_id=registration.pk, by=user, **selection, idempotency_key=key
    )
    return Done(
        _("Starting selection made for %(player)s; the offered cards are revealed to them.")
        % {"player": registration.label},
        registration_anchor(registration),
    )


@house_action
def result_correct(
    request: HttpRequest, event: Event, user: User, key: str | None, registration_id: int
) -> Done:
    registration = _registration(event, registration_id)
    correction = checked(
        body.Correction,
        _fields(request, "game", "outcome", "reason"),
        {"game": _("Choose the game to correct."), "outcome": _("The result is 'win' or 'loss'.")},
    )
    game, outcome = correction["game"], correction["outcome"]
    services.result_correct(
        registration_id=registration.pk, by=user, **correction, idempotency_key=key
    )
    words = {"game": game, "player": registration.label}
    if outcome == "win":
        said = _(
            "Game %(game)s corrected to a win for %(player)s; they are paused for review. "
            "No card moved."
        )
    else:
        said = _(
            "Game %(game)s corrected to a loss for %(player)s; they are paused for review. "
            "No card moved."
        )
    return Done(said % words, "reviews")


@house_action
def review_open(
    request: HttpRequest, event: Event, user: User, key: str | None, registration_id: int
) -> Done:
    registration = _registration(event, registration_id)
    services.review_open(
        registration_id=registration.pk, by=user, reason=_reason(request), idempotency_key=key
    )
    return Done(
        _("%(player)s is paused for review.") % {"player": registration.label},
        registration_anchor(registration),
    )


@house_action
def review_resolve(
    request: HttpRequest, event: Event, user: User, key: str | None, review_id: int
) -> Done:
    review = get_object_or_404(
        Review.objects.select_related("registration"), pk=review_id, registration__event=event
    )
    answer = services.review_resolve(
        review_id=review.pk, by=user, reason=_reason(request), idempotency_key=key
    )
    words = {"player": review.registration.label}
    if answer.paused:
        return Done(
            _("Review of %(player)s resolved (other reviews still open).") % words, "reviews"
        )
    return Done(_("Review of %(player)s resolved.") % words, "reviews")


@house_action
def withdraw(
    request: HttpRequest, event: Event, user: User, key: str | None, registration_id: int
) -> Done:
    registration = _registration(event, registration_id)
    if registration.player_id == user.pk:
        # House acting on their own place would be a self-withdrawal without a reason.
        raise Invalid(_("Use the player page to leave an event you play in."))
    services.player_withdraw(
        registration_id=registration.pk, by=user, reason=_reason(request), idempotency_key=key
    )
    return Done(
        _("%(player)s is withdrawn.") % {"player": registration.label},
        registration_anchor(registration),
    )


@house_action
def access_reset(
    request: HttpRequest, event: Event, user: User, key: str | None, registration_id: int
) -> Done:
    registration = _registration(event, registration_id)
    services.access_reset(
        registration_id=registration.pk, by=user, reason=_reason(request), idempotency_key=key
    )
    return Done(
        _(
            "%(player)s is signed out everywhere and has a password reset email. "
            "Cards and results are untouched."
        )
        % {"player": registration.label},
        registration_anchor(registration),
    )


@house_action
def wild_reveal(
    request: HttpRequest, event: Event, user: User, key: str | None, registration_id: int
) -> Done:
    registration = _registration(event, registration_id)
    answer = services.wild_reveal(registration_id=registration.pk, by=user, idempotency_key=key)
    return Done(
        _("%(player)s's wild is revealed: %(rank)s.")
        % {"player": registration.label, "rank": answer.wild_rank},
        registration_anchor(registration),
    )


def registration_anchor(registration: Registration) -> str:
    return f"player-{registration.pk}"


# --- Scoreholio check ---------------------------------------------------------------------------


@login_required
@require_POST
def scoreholio_upload(request: HttpRequest, event_id: int) -> HttpResponse:
    """Read a Scoreholio Match Log; the dashboard compares it with the results (no writes)."""
    event = _house_event(request, event_id)
    upload = request.FILES.get("log")
    try:
        if upload is None:
            raise scoreholio.MatchLogError(
                _("Choose the Match Log CSV file exported from Scoreholio.")
            )
        if upload.size is not None and upload.size > SCOREHOLIO_MAX_BYTES:
            raise scoreholio.MatchLogError(
                _("That file is too large for a Match Log (2 MB at most).")
            )
        raw = upload.read()
        try:
            text = raw.decode("utf-8-sig")
        except UnicodeDecodeError:
            text = raw.decode("cp1252", errors="replace")
        rows = scoreholio.parse_match_log(text)
    except scoreholio.MatchLogError as problem:
        messages.error(request, problem.message)
    else:
        request.session[SCOREHOLIO_SESSION.format(event_id=event.pk)] = {
            "text": text,
            "name": upload.name or "",
        }
        messages.success(
            request,
            ngettext(
                "Scoreholio log read: %(count)s played game.",
                "Scoreholio log read: %(count)s played games.",
                len(rows),
            )
            % {"count": len(rows)},
        )
    return redirect(reverse("house:dashboard", kwargs={"event_id": event.pk}) + "#scoreholio")


@login_required
@require_POST
def scoreholio_clear(request: HttpRequest, event_id: int) -> HttpResponse:
    event = _house_event(request, event_id)
    request.session.pop(SCOREHOLIO_SESSION.format(event_id=event.pk), None)
    messages.success(request, _("Scoreholio log cleared."))
    return redirect(reverse("house:dashboard", kwargs={"event_id": event.pk}) + "#scoreholio")
