"""Players joining and leaving: registration, check-in, late entry, withdrawal, access reset."""

from __future__ import annotations

from dataclasses import dataclass
from typing import Any

from django.contrib.sessions.models import Session
from django.db import transaction
from django.db.models import Max
from django.utils.translation import gettext as _

from accounts import names, revocation
from accounts.models import User
from accounts.recovery import send_password_reset
from audit.models import AuditEntry
from cards.models import CardState, Offer, OfferKind, ShoeKind
from cards.stock import audit_card
from events import answers, waitlist
from events.access import registration_for
from events.answers import Answer
from events.dealing import deal, reminder_due
from events.errors import (
    AgeNotConfirmed,
    AlreadyRegistered,
    LateEntryClosed,
    NoSupportedPlace,
    NotCheckedIn,
    NotFound,
    PlayerIsWithdrawn,
    ReasonRequired,
    RegistrationIsClosed,
    WithdrawnCannotReturn,
    WrongPhase,
)
from events.limits import check_pool
from events.models import Event, GameResult, Phase, Registration, RegistrationStatus
from events.person import commitment, new_salt
from events.play_rules import PlayerFacts, may_cancel, may_undo_check_in
from events.progress import participants
from events.registration_switch import close_if_nobody_waits
from events.runner import Change, Trimmed, action


@action("player_register")
def player_register(
    change: Change,
    *,
    event_id: int,
    by: User,
    age_confirmed: bool = False,
    idempotency_key: str | None = None,
) -> answers.PlayerRegistered:
    """A player registers themself while registration is open; when the event asks for an age,
    after confirming they are of it."""
    change.refuse_if_finalized()
    registration = register(change, by, age_confirmed=age_confirmed)
    where = waitlist.standing(registration)
    return answers.PlayerRegistered(
        registration_id=registration.pk,
        label=registration.label,
        status=where.status,
        position=where.position,
        offered_until=None if where.offered_until is None else where.offered_until.isoformat(),
    )


def register(change: Change, player: User, *, age_confirmed: bool = False) -> Registration:
    """Register `player` themself, within a change, while registration is open and inside the
    event's registration window (a cancelled registration registers again): a place, or past
    the capacity the waitlist (events/waitlist.py)."""
    event = change.event
    if event.phase == Phase.DRAFT:
        raise NotFound(_("No such event."))
    if not event.registration_open:
        raise RegistrationIsClosed()
    if (outside := waitlist.window_refusal(event, change.now)) is not None:
        raise outside
    if event.minimum_age and age_confirmed is not True:
        raise AgeNotConfirmed(
            _(
                "This event is for players aged %(minimum_age)s or over: confirm your age to "
                "register."
            )
            % {"minimum_age": event.minimum_age}
        )
    existing = event.registrations.filter(player=player).first()
    if existing is not None:
        refuse_return(existing)
        if existing.status != RegistrationStatus.CANCELLED:
            raise AlreadyRegistered()
    _refuse_pool_overflow(event, "Another participant")
    confirmed = bool(event.minimum_age)
    if existing is not None:
        registration = existing
        registration.age_confirmed = existing.age_confirmed or confirmed
        held = waitlist.take_place(change, registration)
        registration.save(update_fields=["status", "age_confirmed", "waitlist_seq", "hold_until"])
    else:
        registration = Registration(
            event=event,
            player=player,
            label=unique_label(event, player.display_name),
            age_confirmed=confirmed,
            person_salt=new_salt(),
        )
        held = waitlist.take_place(change, registration)
        registration.save()
    details: dict[str, object] = {"person": commitment(registration.person_salt, player.pk)}
    if confirmed:
        details["age_confirmed"] = event.minimum_age
    details.update(held)
    change.audit("player_registered", player=registration.label, details=details)
    waitlist.after_joining(change, registration)
    return registration


@action("registration_cancel")
def registration_cancel(
    change: Change,
    *,
    registration_id: int,
    by: User,
    idempotency_key: str | None = None,
) -> answers.RegistrationCancelled:
    """A registration not yet checked in (a place, or one in line for a place) is cancelled by
    the player or House; a place it held is offered on (events/waitlist.py)."""
    change.refuse_if_finalized()
    registration = registration_for(change, registration_id, by)
    if not may_cancel(facts_of(change, registration)):
        raise WrongPhase(_("Only a registration not yet checked in can be cancelled."))
    was = registration.status
    registration.status = RegistrationStatus.CANCELLED
    registration.hold_until = None
    registration.save(update_fields=["status", "hold_until"])
    change.audit("registration_cancelled", player=registration.label)
    waitlist.gave_up(change, registration, was, "cancelled")
    return answers.RegistrationCancelled(
        registration_id=registration.pk, status=RegistrationStatus(registration.status)
    )


@action("player_check_in")
def player_check_in(
    change: Change,
    *,
    registration_id: int,
    by: User,
    idempotency_key: str | None = None,
) -> answers.PlayerCheckedIn:
    """House checks a registered player in; after the start that is a late entry. A player in
    line for a place (waitlisted, or offered one) is given a place by it, past the capacity if
    need be, as a promotion does (docs/decisions.md, "Capacity and the waitlist")."""
    change.refuse_if_finalized()
    registration = registration_for(change, registration_id, by)
    change.require_house()
    refuse_return(registration)
    was = registration.status
    if was != RegistrationStatus.REGISTERED and was not in waitlist.IN_LINE:
        raise WrongPhase(
            _("%(player)s is %(status)s.")
            % {"player": registration.label, "status": registration.get_status_display()}
        )
    check_in(change, registration, added_by_house=False, from_line=was in waitlist.IN_LINE)
    waitlist.gave_up(change, registration, was, "checked_in")
    return answers.PlayerCheckedIn(
        registration_id=registration.pk, status=RegistrationStatus(registration.status)
    )


@action("check_in_undo")
def check_in_undo(
    change: Change,
    *,
    registration_id: int,
    by: User,
    idempotency_key: str | None = None,
) -> answers.CheckInUndone:
    """Undo a check-in before the start (after it, a check-in has dealt cards)."""
    change.refuse_if_finalized()
    registration = registration_for(change, registration_id, by)
    change.require_house()
    if not may_undo_check_in(facts_of(change, registration)):
        if change.event.phase != Phase.OPEN:
            raise WrongPhase(_("A check-in can only be undone before the event starts."))
        raise NotCheckedIn(_("%(player)s is not checked in.") % {"player": registration.label})
    registration.status = RegistrationStatus.REGISTERED
    registration.checked_in_at = None
    registration.check_in_order = None
    registration.save(update_fields=["status", "checked_in_at", "check_in_order"])
    change.audit("check_in_undone", player=registration.label)
    return answers.CheckInUndone(
        registration_id=registration.pk, status=RegistrationStatus(registration.status)
    )


@action("participant_add")
def participant_add(
    change: Change,
    *,
    event_id: int,
    by: User,
    player: User,
    idempotency_key: str | None = None,
) -> answers.ParticipantAdded:
    """House adds and checks in a participant, also after registration closed (late entry)."""
    change.require_house()
    change.refuse_if_finalized()
    event = change.event
    if event.phase == Phase.DRAFT:
        raise WrongPhase(_("Open the event first."))
    registration = event.registrations.filter(player=player).first()
    if registration is None:
        registration = Registration(
            event=event,
            player=player,
            label=unique_label(event, player.display_name),
            person_salt=new_salt(),
        )
    else:
        refuse_return(registration)
        if registration.status == RegistrationStatus.CHECKED_IN:
            raise AlreadyRegistered(
                _("%(player)s is already checked in.") % {"player": registration.label}
            )
    if registration.pk is None or registration.status != RegistrationStatus.REGISTERED:
        _refuse_pool_overflow(event, "Another participant")
    was = registration.status
    registration.added_by_house = True
    registration.status = RegistrationStatus.REGISTERED
    registration.hold_until = None
    registration.save()
    waitlist.gave_up(change, registration, was, "checked_in")
    change.audit(
        "player_registered",
        player=registration.label,
        details={"person": commitment(registration.person_salt, player.pk)},
    )
    check_in(change, registration, added_by_house=True)
    return answers.ParticipantAdded(registration_id=registration.pk, label=registration.label)


def _refuse_pool_overflow(event: Event, what: str) -> None:
    """One more participant must leave the pool within what its column holds."""
    if event.contribution:
        check_pool(event.contribution * (participants(event) + 1), what=what)


def refuse_return(registration: Registration) -> None:
    """A withdrawal is final: a withdrawn player is never checked in or added again."""
    if registration.status == RegistrationStatus.WITHDRAWN:
        raise WithdrawnCannotReturn(
            _(
                "%(player)s has withdrawn, and a withdrawal is final: withdrawn players cannot "
                "return."
            )
            % {"player": registration.label}
        )


def check_in(
    change: Change,
    registration: Registration,
    *,
    added_by_house: bool,
    self_check_in: bool = False,
    from_line: bool = False,
) -> None:
    """Check in; after the start this is a late entry under the section 3 conditions. A player
    `from_line` (waitlisted or offered a place) is given a place by it."""
    refuse_return(registration)
    event = change.event
    late = event.phase == Phase.STARTED
    if late:
        if GameResult.objects.filter(registration__event=event, game=2).exists():
            raise LateEntryClosed(
                _("Late entry is closed: a Round 2 result has already been accepted.")
            )
        placed = event.registrations.filter(
            status__in=[RegistrationStatus.CHECKED_IN, RegistrationStatus.WITHDRAWN]
        ).count()
        if event.supported_places is None or placed >= event.supported_places:
            raise NoSupportedPlace()
    order = event.registrations.aggregate(last=Max("check_in_order"))["last"] or 0
    registration.status = RegistrationStatus.CHECKED_IN
    registration.checked_in_at = change.now
    registration.check_in_order = order + 1
    registration.late = late
    registration.hold_until = None
    registration.save(
        update_fields=[
            "status",
            "checked_in_at",
            "check_in_order",
            "late",
            "added_by_house",
            "hold_until",
        ]
    )
    pool_reopened = False
    if event.pool_confirmed:
        event.pool_confirmed = False
        event.confirmed_pool = None
        event.save(update_fields=["pool_confirmed", "confirmed_pool"])
        pool_reopened = True
    details = {"late": late, "added_by_house": added_by_house, "pool_unconfirmed": pool_reopened}
    if self_check_in:
        details["self_check_in"] = True
    if from_line:
        details["from_waitlist"] = True
    change.audit("player_checked_in", player=registration.label, details=details)
    if late:
        deal_starting_offer(change, registration)


def deal_starting_offer(change: Change, registration: Registration) -> None:
    """Deal the face-down starting offer (League, Switch); dealt once, never re-dealt."""
    rules = change.event.rules
    if rules.offered == 0:
        return
    offer = Offer(
        registration=registration,
        kind=OfferKind.STARTING,
        keep=rules.starting,
        face_down=True,
        offered_at=change.now,
        reminder_due_at=reminder_due(change.now),
    )
    cards = deal(
        event=change.event,
        kind=ShoeKind.STOCK,
        count=rules.offered,
        registration=registration,
        state=CardState.OFFERED,
        moment=change.now,
        offer=offer,  # saved with its cards
        face_down=True,
    ).cards
    change.offered(offer.pk)
    change.audit(
        "starting_offer_dealt",
        player=registration.label,
        details={"cards": [audit_card(card, kind=ShoeKind.STOCK) for card in cards]},
    )


@action("player_withdraw")
def player_withdraw(
    change: Change,
    *,
    registration_id: int,
    by: User,
    reason: Trimmed = "",
    idempotency_key: str | None = None,
) -> answers.PlayerWithdrawn:
    """House withdraws a player (with a reason), or a player leaves early. Final."""
    change.refuse_if_finalized()
    registration = registration_for(change, registration_id, by)
    own = registration.player_id == by.pk
    if not own and not reason.strip():
        raise ReasonRequired(_("House must give a reason for a withdrawal."))
    if registration.status == RegistrationStatus.WITHDRAWN:
        raise PlayerIsWithdrawn()
    if registration.status != RegistrationStatus.CHECKED_IN:
        raise NotCheckedIn(_("%(player)s is not checked in.") % {"player": registration.label})
    voided = void_pending_offer(change, registration)
    registration.status = RegistrationStatus.WITHDRAWN
    registration.withdrawn_at = change.now
    registration.save(update_fields=["status", "withdrawn_at"])
    change.audit(
        "player_withdrawn",
        player=registration.label,
        details={"by": "self" if own else "house", "voided": voided},
        reason=reason.strip() or None,
    )
    # Before the start, the place the player leaves is offered on (events/waitlist.py).
    waitlist.gave_up(change, registration, RegistrationStatus.CHECKED_IN, "withdrawn")
    close_if_nobody_waits(change)
    return answers.PlayerWithdrawn(
        registration_id=registration.pk, status=RegistrationStatus(registration.status)
    )


def void_pending_offer(change: Change, registration: Registration) -> list[dict[str, Any]]:
    """Discard a pending offer's cards; face-down ones are revealed in the audit."""
    offer = Offer.objects.pending().filter(registration=registration).first()
    if offer is None:
        return []
    cards = list(offer.cards.select_related("shoe").order_by("position"))
    written = [audit_card(card, reveal=True) for card in cards]
    offer.cards.update(state=CardState.DISCARDED, face_down=False)
    offer.voided_at = change.now
    offer.save(update_fields=["voided_at"])
    return written


@action("access_reset")
def access_reset(
    change: Change,
    *,
    registration_id: int,
    by: User,
    reason: Trimmed,
    idempotency_key: str | None = None,
) -> answers.AccessReset:
    """House ends a player's sessions and emails a password reset; cards stay as they are."""
    if not reason.strip():
        raise ReasonRequired(_("House must give a reason for an access reset."))
    change.refuse_if_finalized()
    registration = registration_for(change, registration_id, by)
    change.require_house()
    player = registration.player
    if player is None:
        raise NotFound(_("This player's account no longer exists."))
    end_sessions(player)
    change.audit("access_reset", player=registration.label, reason=reason.strip())
    change.after_commit(lambda: send_password_reset(player))
    # Registered now, so it runs before this change's live update: the sockets close first.
    transaction.on_commit(lambda: revocation.revoke(player.pk))
    return answers.AccessReset(registration_id=registration.pk)


def end_sessions(user: User) -> None:
    """Sign the user out everywhere (database sessions)."""
    doomed = [
        session.pk
        for session in Session.objects.iterator()
        if session.get_decoded().get("_auth_user_id") == str(user.pk)
    ]
    Session.objects.filter(pk__in=doomed).delete()


def unique_label(event: Event, display_name: str) -> str:
    """The display name, made unique within the event with a suffix (" #2"), also when it only
    looks like a label already there (accounts.names)."""
    return names.unique_label(display_name, labels_taken(event))


# A deleted account's registration takes a neutral label (player_relabel; the deletion is
# privacy/services.py's).
RELABELLED = "player_relabelled"


def labels_taken(event: Event) -> list[str]:
    """Every label a registration of the event holds or has held: a label a deleted account's
    registration left still names that registration's entries in the chain, so no later
    registration takes it (docs/decisions.md, "Players' data")."""
    held = event.registrations.values_list("label", flat=True)
    left = AuditEntry.objects.filter(event=event, action=RELABELLED).values_list(
        "player", flat=True
    )
    return [*held, *(label for label in left if label)]


LABEL = "Former player {number}"


@dataclass(frozen=True)
class PlayerRelabelled(Answer):
    """The registration's neutral label (an account's deletion asks for it, never the API)."""

    registration_id: int
    label: str


def _neutral_label(registration: Registration) -> str:
    """The neutral label, "Former player <registration id>", made unique among every label the
    event's registrations hold or held (a label once in the chain is never anyone else's)."""
    taken = set(labels_taken(registration.event))
    label = LABEL.format(number=registration.pk)
    suffix = 2
    while label in taken:
        label = f"{LABEL.format(number=registration.pk)} #{suffix}"
        suffix += 1
    return label


@action(RELABELLED)
def player_relabel(
    change: Change,
    *,
    registration_id: int,
    by: User,
    idempotency_key: str | None = None,
) -> PlayerRelabelled:
    """The account behind a registration is being deleted: the registration takes a neutral
    label and forgets the account and the salt of its commitment."""
    registration = Registration.objects.filter(pk=registration_id, player=by).first()
    if registration is None:
        raise NotFound(_("No such registration."))
    old = registration.label
    registration.label = _neutral_label(registration)
    registration.player = None
    registration.person_salt = ""
    registration.save(update_fields=["label", "player", "person_salt"])
    change.touched_labels.add(registration.label)
    change.know(registration)
    # Written by the system: the entry names neither the account nor who asked.
    change.audit(RELABELLED, player=old, details={"label": registration.label}, by_system=True)
    return PlayerRelabelled(registration_id=registration.pk, label=registration.label)


def facts_of(change: Change, registration: Registration) -> PlayerFacts:
    """What the rules ask about a player `registration_for` read, as the event is now."""
    return change.progress[registration.pk].facts(registration, phase=change.event.phase)
