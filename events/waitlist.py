"""Capacity and the waitlist (docs/decisions.md, "Capacity and the waitlist").

A place is held by a registration that is registered, checked in or offered a place. Past the
event's capacity a registration is waitlisted, in the order players joined the line
(`waitlist_seq`). While registration is open and the event has not started, every place that frees
is offered, in the same change, to the first waitlisted players: each holds it until `hold_until`
and claims it in one tap (`place_claim`); an unclaimed offer passes to the next (`offers_lapse`).
Where the entry is paid ahead (`pays_ahead`), a place not yet paid is held the same way and lapses
unpaid. Once the event starts no place is offered any more: House checks players in, as always.

The layers above (push, payments) hear of offers and of places given up through the two signals
below, sent after the commit; the engine imports none of them.
"""

from __future__ import annotations

import datetime
import logging
import zoneinfo
from dataclasses import dataclass
from typing import Annotated

from celery import current_app
from django.conf import settings
from django.db.models import Count, Max, Q
from django.dispatch import Signal
from django.utils.translation import gettext as _

from accounts.models import User
from events import answers
from events.access import registration_for
from events.answers import Described
from events.errors import (
    NoPlaceOffered,
    NotAllowed,
    OfferLapsed,
    ReasonRequired,
    RegistrationIsClosed,
    WrongPhase,
)
from events.models import Event, Phase, Registration, RegistrationStatus
from events.runner import Change, Trimmed, action

log = logging.getLogger(__name__)

# Sent after the commit of a change that offered a place: kwargs `event_id`, `registration_id`,
# `hold_until` (push/ tells the player by push and email).
place_offered = Signal()
# Sent after the commit of a change in which a registration that held a place no longer does:
# kwargs `event_id`, `registration_id`, `why` ("cancelled", "removed", "lapsed", "withdrawn"):
# payments/ refunds an online payment as the event's refund policy allows.
place_given_up = Signal()

# The statuses that hold one of the event's places.
HOLDING = (
    RegistrationStatus.REGISTERED,
    RegistrationStatus.CHECKED_IN,
    RegistrationStatus.OFFERED,
)
# The statuses still in line for a place (an offered player is first in it until they claim).
IN_LINE = (RegistrationStatus.WAITLISTED, RegistrationStatus.OFFERED)

# Hold times House may set, in minutes (a day at most).
HOLD_MINUTES = (1, 24 * 60)


def online_payments() -> bool:
    """Whether the deployment takes entries online (payments/): both Stripe secrets are set.
    Without them, entries are paid at the door."""
    return bool(
        getattr(settings, "STRIPE_SECRET_KEY", "")
        and getattr(settings, "STRIPE_WEBHOOK_SECRET", "")
    )


def pays_ahead(event: Event) -> bool:
    """Whether players pay the entry online when they take a place: the event asks for it, has an
    entry to pay, and the deployment has Stripe configured (payments/)."""
    return event.pay_ahead and event.contribution > 0 and not event.sponsored and online_payments()


def hold_for(event: Event, now: datetime.datetime) -> datetime.timedelta:
    """How long an offered (or unpaid) place is held from `now`: shorter from the event's day on,
    in its venue's time zone."""
    try:
        zone = zoneinfo.ZoneInfo(event.time_zone)
    except (zoneinfo.ZoneInfoNotFoundError, ValueError):
        zone = zoneinfo.ZoneInfo("UTC")
    on_the_day = now.astimezone(zone).date() >= event.date
    return datetime.timedelta(minutes=event.day_hold_minutes if on_the_day else event.hold_minutes)


def places_held(event: Event) -> int:
    """The registrations that hold one of the event's places."""
    return event.registrations.filter(status__in=HOLDING).count()


def window_refusal(event: Event, now: datetime.datetime) -> RegistrationIsClosed | None:
    """Why a player may not register now, the window's side of it (House's switch aside): not
    open yet, or closed, saying when in the venue's time."""
    if event.registration_opens_at is not None and now < event.registration_opens_at:
        return RegistrationIsClosed(
            _("Registration opens %(when)s.")
            % {"when": _venue_time(event, event.registration_opens_at)}
        )
    if event.registration_closes_at is not None and now >= event.registration_closes_at:
        return RegistrationIsClosed(
            _("Registration closed %(when)s.")
            % {"when": _venue_time(event, event.registration_closes_at)}
        )
    return None


def _venue_time(event: Event, moment: datetime.datetime) -> str:
    try:
        zone = zoneinfo.ZoneInfo(event.time_zone)
    except (zoneinfo.ZoneInfoNotFoundError, ValueError):
        zone = zoneinfo.ZoneInfo("UTC")
    local = moment.astimezone(zone)
    return f"on {local:%Y-%m-%d} at {local:%H:%M} ({event.time_zone})"


# --- reads ---------------------------------------------------------------------------------------


@dataclass(frozen=True, slots=True)
class Standing:
    """Where a registration stands: its status, its place in line while waitlisted (from 1), and
    until when an offered place is held."""

    status: RegistrationStatus
    position: int | None
    offered_until: datetime.datetime | None


def standing(registration: Registration) -> Standing:
    """Where `registration` stands now (one query while waitlisted, none otherwise)."""
    status = RegistrationStatus(registration.status)
    position = None
    if status == RegistrationStatus.WAITLISTED and registration.waitlist_seq is not None:
        position = (
            1
            + Registration.objects.filter(
                event_id=registration.event_id,
                status=RegistrationStatus.WAITLISTED,
                waitlist_seq__lt=registration.waitlist_seq,
            ).count()
        )
    offered_until = registration.hold_until if status == RegistrationStatus.OFFERED else None
    return Standing(status=status, position=position, offered_until=offered_until)


def positions(event: Event) -> dict[int, int]:
    """Every waitlisted registration's place in line (from 1), by registration id: one query."""
    waiting = (
        event.registrations.filter(status=RegistrationStatus.WAITLISTED)
        .order_by("waitlist_seq")
        .values_list("pk", flat=True)
    )
    return {pk: place for place, pk in enumerate(waiting, start=1)}


def waitlist_of(event: Event) -> list[Registration]:
    """The players in line, in its order: those offered a place first, then the waitlisted."""
    return sorted(
        event.registrations.filter(status__in=IN_LINE),
        key=lambda r: (r.status != RegistrationStatus.OFFERED, r.waitlist_seq or 0, r.pk),
    )


# --- the engine's steps, within a change ---------------------------------------------------------


def take_place(change: Change, registration: Registration) -> dict[str, object]:
    """A registration joining the event (registering, or registering again): a place when one is
    free and nobody is in line before it, else the waitlist's next place. Sets the fields and
    returns what the `player_registered` entry adds (the hold where the entry is paid ahead)."""
    event = change.event
    counts = event.registrations.exclude(pk=registration.pk).aggregate(
        held=Count("pk", filter=Q(status__in=HOLDING)),
        waiting=Count("pk", filter=Q(status__in=IN_LINE)),
    )
    full = event.capacity is not None and counts["held"] >= event.capacity
    if full or counts["waiting"]:
        registration.status = RegistrationStatus.WAITLISTED
        registration.waitlist_seq = _next_seq(event)
        registration.hold_until = None
        return {}
    registration.status = RegistrationStatus.REGISTERED
    registration.hold_until = _pay_deadline(change, registration)
    if registration.hold_until is not None:
        return {"hold_until": registration.hold_until.isoformat()}
    return {}


def after_joining(change: Change, registration: Registration) -> None:
    """What a registration just saved by `take_place` adds to the change: its place in line in
    the audit, or the end of its unpaid hold scheduled."""
    if registration.status == RegistrationStatus.WAITLISTED:
        change.audit(
            "player_waitlisted",
            player=registration.label,
            details={
                "seq": registration.waitlist_seq,
                "position": positions(change.event).get(registration.pk),
            },
        )
    elif registration.hold_until is not None:
        _schedule_lapse(change, registration.hold_until)


def _next_seq(event: Event) -> int:
    last = event.registrations.aggregate(last=Max("waitlist_seq"))["last"]
    return (last or 0) + 1


def _pay_deadline(change: Change, registration: Registration) -> datetime.datetime | None:
    """Until when a place not yet paid is held, where the entry is paid ahead; None otherwise."""
    if registration.paid or not pays_ahead(change.event):
        return None
    return change.now + hold_for(change.event, change.now)


def left_line(change: Change, seq: int | None) -> None:
    """A registration left the line (offered, promoted, cancelled...): everyone waitlisted
    behind it moved up one, and their pages show it (their versions move on)."""
    if seq is None:
        return
    behind = change.event.registrations.filter(
        status=RegistrationStatus.WAITLISTED, waitlist_seq__gt=seq
    ).values_list("pk", "label")
    for pk, label in behind:
        change.known[label] = pk
        change.touched_labels.add(label)


def gave_up(change: Change, registration: Registration, was: str, why: str) -> None:
    """`registration`, whose status was `was`, changed: when it held a place and no longer does,
    the layers above hear of it after the commit and the freed place is offered on; when it was
    waitlisted, those behind it move up."""
    if was == RegistrationStatus.WAITLISTED:
        left_line(change, registration.waitlist_seq)
    if was in HOLDING and registration.status not in HOLDING:
        _tell_after_commit(change, place_given_up, registration_id=registration.pk, why=why)
        fill(change)


def offering(event: Event) -> bool:
    """Whether freed places are offered now: registration open, the event not started."""
    return event.phase == Phase.OPEN and event.registration_open


def fill(change: Change) -> list[int]:
    """Offer every free place to the first waitlisted players, while places are offered at all
    (`offering`); return the registrations offered one."""
    event = change.event
    if not offering(event):
        return []
    waiting = event.registrations.filter(status=RegistrationStatus.WAITLISTED).order_by(
        "waitlist_seq"
    )
    if event.capacity is not None:
        free = event.capacity - places_held(event)
        if free <= 0:
            return []
        waiting = waiting[:free]
    chosen = list(waiting)
    if not chosen:
        return []
    until = change.now + hold_for(event, change.now)
    for registration in chosen:
        registration.status = RegistrationStatus.OFFERED
        registration.hold_until = until
        registration.save(update_fields=["status", "hold_until"])
        change.know(registration)
        change.audit(
            "place_offered", player=registration.label, details={"until": until.isoformat()}
        )
        _tell_after_commit(change, place_offered, registration_id=registration.pk, hold_until=until)
    left_line(change, chosen[-1].waitlist_seq)
    _schedule_lapse(change, until)
    return [r.pk for r in chosen]


def _tell_after_commit(change: Change, signal: Signal, **kwargs: object) -> None:
    """Send `signal` about the change's event once the change has committed."""
    event_id = change.event.pk
    change.after_commit(lambda: _send(signal, event_id=event_id, **kwargs))


def _send(signal: Signal, **kwargs: object) -> None:
    """Tell the listeners of a committed change; one failing never fails the others."""
    for receiver, result in signal.send_robust(sender=Registration, **kwargs):
        if isinstance(result, Exception):
            log.error(
                "A listener of the waitlist (%r) failed: %r", receiver, result, exc_info=result
            )


# The task that ends the holds due (events/tasks.py `lapse_offers`).
LAPSE_TASK = "events.tasks.lapse_offers"


def _schedule_lapse(change: Change, at: datetime.datetime) -> None:
    """Ask for `offers_lapse` when a hold ends (after the commit); the beat's sweep every minute
    catches a schedule that was lost."""
    event_id = change.event.pk

    def schedule() -> None:
        # By name: the task (events/tasks.py) calls this module's services.
        try:
            current_app.tasks[LAPSE_TASK].apply_async(kwargs={"event_id": event_id}, eta=at)
        except Exception:
            log.exception("Could not schedule event %s's holds ending; the sweep will.", event_id)

    change.after_commit(schedule)


# --- the services --------------------------------------------------------------------------------


@action("place_claim")
def place_claim(
    change: Change,
    *,
    registration_id: int,
    by: User,
    idempotency_key: str | None = None,
) -> answers.PlaceClaimed:
    """The player claims the place offered to them, before its hold ends."""

    change.refuse_if_finalized()
    registration = registration_for(change, registration_id, by)
    if registration.player_id != by.pk:
        raise NotAllowed(_("A player claims their own place; House promotes a player instead."))
    if registration.status != RegistrationStatus.OFFERED:
        raise NoPlaceOffered()
    if change.event.phase != Phase.OPEN:
        raise WrongPhase(_("The event has started: House checks players in from now on."))
    if registration.hold_until is not None and change.now >= registration.hold_until:
        raise OfferLapsed()
    registration.status = RegistrationStatus.REGISTERED
    registration.hold_until = _pay_deadline(change, registration)
    registration.save(update_fields=["status", "hold_until"])
    details: dict[str, object] = {}
    if registration.hold_until is not None:
        details["hold_until"] = registration.hold_until.isoformat()
        _schedule_lapse(change, registration.hold_until)
    change.audit("place_claimed", player=registration.label, details=details)
    return answers.PlaceClaimed(
        registration_id=registration.pk,
        status=RegistrationStatus(registration.status),
        hold_until=_iso(registration.hold_until),
    )


@action("waitlist_promote")
def waitlist_promote(
    change: Change,
    *,
    registration_id: int,
    by: User,
    reason: Trimmed,
    idempotency_key: str | None = None,
) -> answers.WaitlistPromoted:
    """House gives a player in line a place now, past the capacity if need be, with a reason."""

    if not reason.strip():
        raise ReasonRequired(_("House must give a reason for a promotion."))
    change.refuse_if_finalized()
    registration = registration_for(change, registration_id, by)
    change.require_house()
    if registration.status not in IN_LINE:
        raise WrongPhase(
            _("%(player)s is %(status)s.")
            % {"player": registration.label, "status": registration.get_status_display()}
        )
    was = registration.status
    registration.status = RegistrationStatus.REGISTERED
    registration.hold_until = _pay_deadline(change, registration)
    registration.save(update_fields=["status", "hold_until"])
    details: dict[str, object] = {"from": was}
    if registration.hold_until is not None:
        details["hold_until"] = registration.hold_until.isoformat()
        _schedule_lapse(change, registration.hold_until)
    change.audit(
        "waitlist_promoted", player=registration.label, details=details, reason=reason.strip()
    )
    gave_up(change, registration, was, "promoted")
    return answers.WaitlistPromoted(
        registration_id=registration.pk, status=RegistrationStatus(registration.status)
    )


# What House may remove: a registration not checked in.
REMOVABLE = (
    RegistrationStatus.REGISTERED,
    RegistrationStatus.WAITLISTED,
    RegistrationStatus.OFFERED,
)


@action("registration_remove")
def registration_remove(
    change: Change,
    *,
    registration_id: int,
    by: User,
    reason: Trimmed,
    idempotency_key: str | None = None,
) -> answers.RegistrationRemoved:
    """House removes a registration not checked in (registered, waitlisted or offered a place),
    with a reason; a place it held is offered on."""

    if not reason.strip():
        raise ReasonRequired(_("House must give a reason for removing a registration."))
    change.refuse_if_finalized()
    registration = registration_for(change, registration_id, by)
    change.require_house()
    if registration.status not in REMOVABLE:
        raise WrongPhase(
            _("%(player)s is %(status)s: only a registration not checked in is removed.")
            % {"player": registration.label, "status": registration.get_status_display()}
        )
    was = registration.status
    registration.status = RegistrationStatus.CANCELLED
    registration.hold_until = None
    registration.save(update_fields=["status", "hold_until"])
    change.audit(
        "registration_removed",
        player=registration.label,
        details={"from": was},
        reason=reason.strip(),
    )
    gave_up(change, registration, was, "removed")
    return answers.RegistrationRemoved(
        registration_id=registration.pk, status=RegistrationStatus(registration.status)
    )


@action("offers_lapse")
def offers_lapse(
    change: Change,
    *,
    event_id: int,
    by: User | None = None,
    idempotency_key: str | None = None,
) -> answers.OffersLapsed:
    """The system ends the holds past their time, before the start: an unclaimed offer and an
    unpaid place are cancelled and the place is offered on; a place paid meanwhile is kept.
    The system's alone (its tasks, events/tasks.py): House ends no hold by hand."""
    change.refuse_if_finalized()
    if by is not None:
        raise NotAllowed(_("A hold ends by itself when its time is up."))
    event = change.event
    if event.phase != Phase.OPEN:
        # After the start places go by House's check-in alone; outstanding offers stay as they are.
        return answers.OffersLapsed(event_id=event.pk, lapsed=[], offered=[])
    due = list(
        event.registrations.filter(
            status__in=(RegistrationStatus.OFFERED, RegistrationStatus.REGISTERED),
            hold_until__isnull=False,
            hold_until__lte=change.now,
        ).order_by("hold_until", "pk")
    )
    lapsed = []
    for registration in due:
        registration.event = event
        change.know(registration)
        if registration.paid:
            # Paid before the hold ended (the payment's confirmation came in): the place is theirs.
            was = registration.status
            registration.status = RegistrationStatus.REGISTERED
            registration.hold_until = None
            registration.save(update_fields=["status", "hold_until"])
            if was == RegistrationStatus.OFFERED:
                change.audit(
                    "place_claimed",
                    player=registration.label,
                    details={"paid": True},
                    by_system=True,
                )
            continue
        was = registration.status
        registration.status = RegistrationStatus.CANCELLED
        registration.hold_until = None
        registration.save(update_fields=["status", "hold_until"])
        lapsed.append(registration.pk)
        change.audit(
            "offer_lapsed" if was == RegistrationStatus.OFFERED else "place_lapsed",
            player=registration.label,
            by_system=True,
        )
        _tell_after_commit(change, place_given_up, registration_id=registration.pk, why="lapsed")
    offered = fill(change) if lapsed else []
    return answers.OffersLapsed(event_id=event.pk, lapsed=lapsed, offered=offered)


def _iso(moment: datetime.datetime | None) -> str | None:
    return None if moment is None else moment.isoformat()


def events_with_holds_due(now: datetime.datetime) -> list[int]:
    """The open events with a hold past its end: what the beat's sweep lapses."""
    return list(
        Registration.objects.filter(
            event__phase=Phase.OPEN,
            status__in=(RegistrationStatus.OFFERED, RegistrationStatus.REGISTERED),
            hold_until__isnull=False,
            hold_until__lte=now,
        )
        .order_by("event_id")
        .values_list("event_id", flat=True)
        .distinct()
    )


# --- House's read ------------------------------------------------------------------------------


@dataclass(frozen=True, slots=True)
class InLine:
    """A player in line for a place."""

    registration_id: int
    label: str
    status: RegistrationStatus
    position: Annotated[
        int | None, Described("While `waitlisted`: the place in line, from 1 (next to be offered).")
    ]
    offered_until: Annotated[
        datetime.datetime | None,
        Described("While `offered`: until when the place is held for the player to claim."),
    ]
    joined: Annotated[int | None, Described("The order of joining the line (1, 2, 3 ...).")]


@dataclass(frozen=True, slots=True)
class Waitlist:
    """The event's capacity, the places held and the players in line, in its order (those
    offered a place first)."""

    event_id: int
    capacity: Annotated[int | None, Described("null: no cap.")]
    places_held: Annotated[
        int, Described("Registrations registered, checked in or offered a place.")
    ]
    offering: Annotated[
        bool,
        Described("Whether freed places are offered now (registration open, before the start)."),
    ]
    players: tuple[InLine, ...]


def waitlist_view(event: Event) -> Waitlist:
    """The waitlist as House sees it."""
    line = waitlist_of(event)
    places = positions(event)
    return Waitlist(
        event_id=event.pk,
        capacity=event.capacity,
        places_held=places_held(event),
        offering=offering(event),
        players=tuple(
            InLine(
                registration_id=r.pk,
                label=r.label,
                status=RegistrationStatus(r.status),
                position=places.get(r.pk),
                offered_until=r.hold_until if r.status == RegistrationStatus.OFFERED else None,
                joined=r.waitlist_seq,
            )
            for r in line
        ),
    )
