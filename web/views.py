"""Player pages and the public board: parse the request, call one service, render."""

from __future__ import annotations

from typing import Any

from django.contrib import messages
from django.contrib.auth.decorators import login_required
from django.db import connection
from django.http import Http404, HttpRequest, HttpResponse, JsonResponse, QueryDict
from django.shortcuts import get_object_or_404, redirect, render
from django.utils import timezone, translation
from django.utils.translation import gettext as _
from django.utils.translation import gettext_lazy
from django.views.decorators.http import require_POST, require_safe
from django_htmx.http import HttpResponseClientRedirect

from accounts.language import CHOICES, chosen_language
from accounts.models import User
from events import money, services, waitlist
from events import request_bodies as body
from events.check_in import self_check_in_open
from events.errors import DomainError, Invalid, NothingPending, OutOfOrder
from events.event_language import in_event_language, render_in_event_language
from events.event_lists import event_list_public, events_of
from events.models import Event, Phase, Registration, RegistrationStatus
from events.query import query_flag, query_int
from events.reads.board import board_view
from events.reads.common import event_summary, to_json
from events.reads.final import final_results
from events.reads.player import player_state
from events.runner import is_house
from events.venue import display_grant, venue_check_in
from helpers.forms import OUT_OF_DATE, checked, form_key, fresh_key, log_refused, refuse
from payments import checkout
from web.follow import follow

PAGE_SECONDS = 8  # how long the board shows each page of a long standings list


def health(request: HttpRequest) -> JsonResponse:
    """Liveness and database reachability, for load balancers and compose health checks."""
    with connection.cursor() as cursor:
        cursor.execute("SELECT 1")
    return JsonResponse({"status": "ok"})


def home(request: HttpRequest) -> HttpResponse:
    mine = events_of(request.user) if request.user.is_authenticated else []
    mine_ids = {event.pk for event in mine}
    open_events = [e for e in event_list_public() if e.registration_open and e.pk not in mine_ids]
    return render(request, "web/home.html", {"mine": mine, "open_events": open_events})


@require_safe
def rules(request: HttpRequest) -> HttpResponse:
    """The rules as players read them (written from docs/rules.md), for everyone."""
    return render(request, "web/rules.html")


def _event(event_id: int) -> Event:
    event = get_object_or_404(Event, pk=event_id)
    if event.phase == Phase.DRAFT:
        raise Http404("No such event.")
    return event


def _registration(request: HttpRequest, event: Event) -> Registration | None:
    assert isinstance(request.user, User)
    return Registration.objects.filter(event=event, player=request.user).first()


def _own(request: HttpRequest, event_id: int) -> tuple[Event, Registration | None]:
    """The event and the signed-in player's registration in it, in one query when they have
    one (a player's every tap starts here)."""
    assert isinstance(request.user, User)
    registration = (
        Registration.objects.select_related("event")
        .exclude(event__phase=Phase.DRAFT)
        .filter(event_id=event_id, player=request.user)
        .first()
    )
    if registration is None:
        return _event(event_id), None
    return registration.event, registration


@login_required
def event_page(request: HttpRequest, event_id: int) -> HttpResponse:
    event, registration = _own(request, event_id)
    if registration is None or registration.status == "cancelled":
        return render(
            request,
            "web/register.html",
            {
                "event": event,
                "summary": event_summary(event),
                "key": fresh_key(),
                "self_check_in": self_check_in_open(event),
                **_registration_ahead(event),
            },
        )
    context = _player_context(event, registration)
    # Back from Stripe: said until the signed webhook confirms it, never counted from here.
    context["paid_return"] = request.GET.get("paid") == "1" and not registration.paid
    return render(request, "web/event.html", context)


def _registration_ahead(event: Event) -> dict[str, Any]:
    """What the register page says of registering ahead: when the window opens or closed, and
    the places left (past the capacity, registering joins the waitlist)."""
    outside = waitlist.window_refusal(event, timezone.now())
    held = waitlist.places_held(event) if event.capacity is not None else 0
    return {
        "window_words": None if outside is None else outside.message,
        "capacity": event.capacity,
        "places_left": None if event.capacity is None else max(event.capacity - held, 0),
        "pays_ahead": checkout.pays_ahead(event),
    }


@login_required
def event_partial(request: HttpRequest, event_id: int) -> HttpResponse:
    event, registration = _own(request, event_id)
    if registration is None:
        raise Http404("Not registered.")
    return render(request, "web/_player.html", _player_context(event, registration))


def _player_context(
    event: Event, registration: Registration, refusal: str | None = None
) -> dict[str, Any]:
    registration.event = event
    return {
        "event": event,
        "summary": event_summary(event),
        "registration": registration,
        "me": player_state(registration),
        "key": fresh_key(),
        "refusal": refusal,
    }


# A refusal that means "this was already done elsewhere" (another tab, or House) says so.
ELSEWHERE = {
    NothingPending.code: gettext_lazy(
        "Not saved: that choice was already made, in another tab or by House. "
        "What was kept is shown below."
    ),
}


def _refusal_words(error: DomainError) -> str:
    if error.code == OutOfOrder.code:
        return _("Not saved: %(reason)s It may have been reported in another tab, or by House.") % {
            "reason": error.message
        }
    if error.code in ELSEWHERE:
        return str(ELSEWHERE[error.code])
    return _("Not saved: %(reason)s") % {"reason": error.message}


def _after(request: HttpRequest, event: Event, refused: DomainError | None = None) -> HttpResponse:
    """Answer an action: the fresh partial for htmx, a refusal written next to the action in it;
    else back to the event page, a refusal in the page's messages."""
    if getattr(request, "htmx", False):
        registration = _registration(request, event)
        if registration is not None:
            refusal = None
            if refused is not None:
                log_refused(request, refused)
                refusal = _refusal_words(refused)
            return render(
                request, "web/_player.html", _player_context(event, registration, refusal)
            )
    if refused is not None:
        refuse(request, refused)
    return redirect("web:event", event_id=event.pk)


@login_required
@require_POST
def register(request: HttpRequest, event_id: int) -> HttpResponse:
    event = _event(event_id)
    assert isinstance(request.user, User)
    try:
        # No message: the page's next step says "Check in with House", and it moves on by itself.
        services.player_register(
            event_id=event.pk,
            by=request.user,
            age_confirmed=request.POST.get("age_confirmed") == "1",
            idempotency_key=form_key(request),
        )
    except DomainError as error:
        refuse(request, error)
    return redirect("web:event", event_id=event.pk)


def _fields(post: QueryDict, *names: str) -> dict[str, str]:
    """The named fields a form sent (a field left out stays out: the serializer says so)."""
    return {name: str(post.get(name)) for name in names if name in post}


def _act(request: HttpRequest, event_id: int, action: str) -> HttpResponse:
    event, registration = _own(request, event_id)
    if registration is None:
        raise Http404("Not registered.")
    assert isinstance(request.user, User)
    post = request.POST
    try:
        key = form_key(request)
        if action == "start":
            chosen = checked(
                body.StartingSelection,
                {"slots": post.getlist("slot")},
                {"slots": _("Choose the face-down cards by their places.")},
            )
            services.starting_selection_confirm(
                registration_id=registration.pk,
                by=request.user,
                slots=chosen["slots"],
                idempotency_key=key,
            )
        elif action == "report":
            result = checked(
                body.ResultReport,
                _fields(post, "game", "outcome", "opponent", "score"),
                {
                    "game": _("Choose the game you are reporting."),
                    "outcome": _("The result is 'win' or 'loss'."),
                },
            )
            services.result_submit(
                registration_id=registration.pk,
                by=request.user,
                game=result["game"],
                outcome=result["outcome"],
                opponent=result["opponent"],
                score=result["score"],
                idempotency_key=key,
            )
        elif action == "keep":
            # The page always names the offer its cards came from (the API may leave it out).
            choice = checked(
                body.WinChoice,
                _fields(post, "slot", "offer_id"),
                {"slot": _("Tap the card you want to keep."), "offer_id": OUT_OF_DATE},
            )
            if "offer_id" not in choice:
                raise Invalid(OUT_OF_DATE)
            services.win_choice_confirm(
                registration_id=registration.pk,
                by=request.user,
                slot=choice["slot"],
                offer_id=choice["offer_id"],
                idempotency_key=key,
            )
        elif action == "leave":
            services.player_withdraw(
                registration_id=registration.pk, by=request.user, idempotency_key=key
            )
            messages.info(
                request, _("You have left the event. You are no longer eligible for a prize.")
            )
        elif action == "claim":
            services.place_claim(
                registration_id=registration.pk, by=request.user, idempotency_key=key
            )
        elif action == "cancel":
            services.registration_cancel(
                registration_id=registration.pk, by=request.user, idempotency_key=key
            )
            messages.info(request, _cancelled_words(event))
    except DomainError as error:
        return _after(request, event, error)
    return _after(request, event)


@login_required
@require_POST
def claim(request: HttpRequest, event_id: int) -> HttpResponse:
    """Claim the place offered to the player, in one tap (events/waitlist.py `place_claim`)."""
    return _act(request, event_id, "claim")


@login_required
@require_POST
def pay(request: HttpRequest, event_id: int) -> HttpResponse:
    """Send the player on to Stripe Checkout for their entry (payments/checkout.py). The page
    they come back to never counts the payment: Stripe's signed webhook alone does."""
    event, registration = _own(request, event_id)
    if registration is None:
        raise Http404("Not registered.")
    assert isinstance(request.user, User)
    try:
        started = checkout.checkout_start(
            registration_id=registration.pk, by=request.user, idempotency_key=form_key(request)
        )
    except DomainError as error:
        return _after(request, event, error)
    if getattr(request, "htmx", False):
        return HttpResponseClientRedirect(started.url)
    return redirect(started.url)


def _cancelled_words(event: Event) -> str:
    if event.registration_open:
        return _(
            "Your registration is cancelled. You can register again while registration is open."
        )
    return _("Your registration is cancelled.")


@login_required
@require_POST
def start_confirm(request: HttpRequest, event_id: int) -> HttpResponse:
    return _act(request, event_id, "start")


@login_required
@require_POST
def report(request: HttpRequest, event_id: int) -> HttpResponse:
    return _act(request, event_id, "report")


@login_required
@require_POST
def keep(request: HttpRequest, event_id: int) -> HttpResponse:
    return _act(request, event_id, "keep")


@login_required
def leave(request: HttpRequest, event_id: int) -> HttpResponse:
    if request.method == "POST":
        return _act(request, event_id, "leave")
    event, registration = _own(request, event_id)
    if registration is None:
        raise Http404("Not registered.")
    return render(
        request,
        "web/leave.html",
        {
            "event": event,
            "registration": registration,
            "key": fresh_key(),
            # The event's own refund policy, never a blanket "it stays in the pool".
            "withdrawal_terms": money.withdrawal_terms(event),
        },
    )


# A registration the player may still cancel: a place not yet checked in, or in line for one.
CANCELLABLE = (
    RegistrationStatus.REGISTERED,
    RegistrationStatus.WAITLISTED,
    RegistrationStatus.OFFERED,
)


@login_required
def cancel(request: HttpRequest, event_id: int) -> HttpResponse:
    """Cancel one's own registration before check-in (the service the API's cancel uses)."""
    if request.method == "POST":
        return _act(request, event_id, "cancel")
    event, registration = _own(request, event_id)
    if registration is None or registration.status not in CANCELLABLE:
        return redirect("web:event", event_id=event.pk)
    return render(
        request,
        "web/cancel.html",
        {"event": event, "registration": registration, "key": fresh_key()},
    )


@login_required
def settings_page(request: HttpRequest) -> HttpResponse:
    user = request.user
    assert isinstance(user, User)
    if request.method == "POST":
        try:
            language = chosen_language(request.POST.get("language", user.language))
        except Invalid as error:
            refuse(request, error)
            return redirect("web:settings")
        user.four_colour_deck = request.POST.get("four_colour_deck") == "on"
        user.language = language
        user.save(update_fields=["four_colour_deck", "language"])
        # The confirmation reads in the language just chosen (blank: the browser's again).
        translation.activate(language or translation.get_language_from_request(request))
        messages.success(request, _("Settings saved."))
        return redirect("web:settings")
    return render(request, "web/settings.html", {"languages": CHOICES})


@require_safe
def board(request: HttpRequest, event_id: int) -> HttpResponse:
    """The projector view; `?kiosk=1` hides the chrome, `?seconds=N` (2-60) sets the paging.

    Opened by House it is the venue's display: it shows the check-in code (events.venue).
    """
    event = _event(event_id)
    user = request.user if isinstance(request.user, User) else None
    return _board_page(request, event, venue=is_house(user, event))


@require_safe
def board_venue(request: HttpRequest, event_id: int, token: str) -> HttpResponse:
    """The venue's display for a projector's laptop that is not signed in: the link House copies
    from the dashboard, which shows the check-in code until the code changes."""
    event = _event(event_id)
    grant = display_grant(event.pk, token)
    if grant is None:
        raise Http404("No such display link.")
    return _board_page(request, event, venue=True, grant=grant, display=token, kiosk=True)


def _board_page(
    request: HttpRequest,
    event: Event,
    *,
    venue: bool,
    grant: str | None = None,
    display: str = "",
    kiosk: bool = False,
    watch: str = "",
    showing: str = "",
) -> HttpResponse:
    # Read in the event's language too: a read model may name things as it reads.
    with in_event_language(event):
        view = board_view(event)
        shown = venue_check_in(event) if venue else None
        return render_in_event_language(
            request,
            event,
            "web/board.html",
            {
                "event": event,
                "board": view.data,
                "view": view,
                "follow": follow(event, request=request, venue=shown, grant=grant),
                "venue": venue,
                "display": display,
                # A display link's page (web/display.py): what it checks to follow and to end.
                "watch": watch,
                "showing": showing,
                "kiosk": kiosk or query_flag(request, "kiosk"),
                "page_seconds": query_int(request, "seconds", PAGE_SECONDS, 2, 60),
            },
        )


@require_safe
def board_partial(request: HttpRequest, event_id: int) -> HttpResponse:
    event = _event(event_id)
    with in_event_language(event):
        return render_in_event_language(
            request, event, "web/_board.html", {"event": event, "view": board_view(event)}
        )


@require_safe
def board_final(request: HttpRequest, event_id: int) -> HttpResponse:
    """Final results: winners, payouts, the pool's arithmetic, the commitment and the seed."""
    event = _event(event_id)
    with in_event_language(event):
        return render_in_event_language(
            request,
            event,
            "web/final.html",
            {
                "event": event,
                "results": final_results(event),
                "follow": follow(event, request=request),
            },
        )


@require_safe
def board_json(request: HttpRequest, event_id: int) -> JsonResponse:
    """The public snapshot, for clients that reload after a gap."""
    return JsonResponse(to_json(board_view(_event(event_id)).data))
