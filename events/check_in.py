"""Checking players in beyond House's one tap: self check-in with the event's code, everyone at
once, and the paid flag House keeps for each player's contribution.

A paid entry is a registration House marked paid. Once one exists the contribution and the
remainder policy are locked (the rules: the policy is announced before paid entries are
accepted; `events.lifecycle.event_update` refuses the change).
"""

from __future__ import annotations

import hmac
import secrets
from dataclasses import dataclass
from typing import Protocol

from django.core.cache import cache
from django.db.models import Max
from django.utils.translation import gettext as _

from accounts.models import User
from audit.money_lines import PaymentMarked
from events import answers
from events.addresses import addresses
from events.errors import (
    EntryPartlyRefunded,
    LateEntryNeedsHouse,
    NotFound,
    SelfCheckInOff,
    TooManyGuesses,
    WrongCheckInCode,
    WrongPhase,
    WrongState,
)
from events.limits import CHECK_IN_CODE_LENGTH, check_text
from events.models import Event, Phase, Registration, RegistrationStatus
from events.play_rules import PARTICIPANTS
from events.registration import check_in, refuse_return
from events.registration import register as register_player
from events.remainder_policy import require_remainder_policy
from events.runner import Change, action

# Letters and digits no one misreads on a projector (no 0/O, 1/I/L).
CODE_ALPHABET = "ABCDEFGHJKMNPQRSTUVWXYZ23456789"
CODE_LENGTH = 6
# Wrong codes one account may try in one event before it waits.
GUESSES = 5
GUESS_WINDOW = 15 * 60


def new_code() -> str:
    return "".join(secrets.choice(CODE_ALPHABET) for _ in range(CODE_LENGTH))


def normalised_code(code: str) -> str:
    """As typed on a phone: any case, spaces and dashes ignored."""
    return "".join(ch for ch in code.upper() if ch not in " -")


def self_check_in_url(event: Event, code: str = "") -> str:
    """The stable address a player opens to check in; the venue's display links to it with the
    code (`code`). For phones, `events.venue.phone_url` makes it absolute."""
    path = addresses().self_check_in(event.pk)
    return f"{path}?code={code}" if code else path


def self_check_in_open(event: Event) -> bool:
    """Whether a player may check themself in with the code now: House switched it on and the
    event has not started: a late entry is checked in by House (docs/decisions.md)."""
    return event.self_check_in and bool(event.check_in_code) and event.phase == Phase.OPEN


def board_check_in(event: Event) -> dict[str, str] | None:
    """What House's dashboard shows for self check-in: the code and the address, or None when
    off (the venue's projector opens a display link: events/display.py)."""
    if not (event.self_check_in and event.check_in_code) or event.phase == Phase.FINALIZED:
        return None
    return {
        "code": event.check_in_code,
        "url": self_check_in_url(event),
    }


@dataclass(frozen=True, slots=True)
class EntryMoney:
    """What the ledger holds of the event's entry money, and of one registration's."""

    # The event's entry money held: paid in, less voids and refunds (a comp collects nothing).
    collected: int
    # The registration's entry dollars held, and those refunded since its last entry line.
    held: int
    refunded: int


class Ledger(Protocol):
    """What the night's ledger says of an event's money. The ledger is a layer on top of the
    engine (ledger/apps.py installs it with `use_ledger`): the engine imports none of it."""

    def entry_money(self, event: Event, registration: Registration | None) -> EntryMoney:
        """The event's entry money, and the registration's (0 without one)."""
        ...

    def write_line(self, change: Change, registration: Registration, line: PaymentMarked) -> None:
        """Write the one-tap mark as the registration's ledger line; the ledger alone sets its
        `paid` flag, from what its lines say."""
        ...


_ledgers: list[Ledger] = []


def use_ledger(ledger: Ledger) -> None:
    _ledgers[:] = [ledger]


def collected(event: Event) -> int:
    """The entry money the ledger holds: paid in, less voids and refunds; a comp collects
    nothing (docs/decisions.md, "The ledger")."""
    return entry_money(event, None).collected


def entry_money(event: Event, registration: Registration | None) -> EntryMoney:
    """As the ledger's lines stand (docs/decisions.md, "The ledger"). Without the ledger app:
    the contribution times the registrations marked paid."""
    if _ledgers:
        return _ledgers[0].entry_money(event, registration)
    return EntryMoney(
        collected=event.contribution * event.registrations.filter(paid=True).count(),
        held=event.contribution if registration is not None and registration.paid else 0,
        refunded=0,
    )


def has_paid_entries(event: Event) -> bool:
    return event.registrations.filter(paid=True).exists()


def _guess_key(event_id: int, user_id: int) -> str:
    return f"check-in-guesses:{event_id}:{user_id}"


@action("self_check_in_switch")
def self_check_in_switch(
    change: Change,
    *,
    event_id: int,
    by: User,
    enabled: bool,
    idempotency_key: str | None = None,
) -> answers.SelfCheckInSwitched:
    """House switches self check-in on (with a new code) or off."""
    change.require_house()
    change.refuse_if_finalized()
    event = change.event
    if enabled and event.phase == Phase.DRAFT:
        raise WrongPhase(_("Open registration first: nobody can register for a draft."))
    if enabled != event.self_check_in:
        event.self_check_in = enabled
        event.check_in_code = new_code() if enabled else ""
        event.save(update_fields=["self_check_in", "check_in_code"])
        # The code stays out of the audit: it proves presence at the venue, not a result.
        change.audit("self_check_in_switched", details={"enabled": enabled})
        # Every open player page shows (or stops showing) the way to check in.
        change.touches_everyone = True
    return answers.SelfCheckInSwitched(
        event_id=event.pk, self_check_in=enabled, code=event.check_in_code or None
    )


@action("self_check_in")
def self_check_in(
    change: Change,
    *,
    event_id: int,
    by: User,
    code: str,
    register: bool = False,
    age_confirmed: bool = False,
    idempotency_key: str | None = None,
) -> answers.SelfCheckedIn:
    """A registered player at the venue checks in with the event's code, before the start only:
    the rules say late entry requires House check-in. With `register`, a player not yet
    registered registers in the same change, while registration is open (the QR's one step),
    confirming the event's age as registering does."""
    change.refuse_if_finalized()
    event = change.event
    if not (event.self_check_in and event.check_in_code):
        raise SelfCheckInOff()
    key = _guess_key(event.pk, by.pk)
    if (cache.get(key) or 0) >= GUESSES:
        raise TooManyGuesses()
    typed = normalised_code(check_text(code, label=_("The code"), max_length=CHECK_IN_CODE_LENGTH))
    if not hmac.compare_digest(typed.encode(), event.check_in_code.encode()):
        cache.add(key, 0, GUESS_WINDOW)
        cache.incr(key)
        raise WrongCheckInCode()
    change.house = False  # a player checking themself in, even when also House
    registration = Registration.objects.filter(event=event, player=by).first()
    if registration is not None:
        refuse_return(registration)
        if registration.status == RegistrationStatus.CHECKED_IN:
            raise WrongState(_("You are already checked in."))
    if event.phase != Phase.OPEN:
        # After the start a check-in is a late entry, which the rules give to House alone.
        raise LateEntryNeedsHouse()
    if registration is None or registration.status == RegistrationStatus.CANCELLED:
        if not register:
            raise NotFound(_("You are not registered for this event: register first."))
        registration = register_player(change, by, age_confirmed=age_confirmed)
    if registration.status != RegistrationStatus.REGISTERED:
        raise WrongState(
            _("Your registration is %(status)s: ask House.")
            % {"status": registration.get_status_display()}
        )
    registration.event = event
    change.know(registration)
    check_in(change, registration, added_by_house=False, self_check_in=True)
    return answers.SelfCheckedIn(
        registration_id=registration.pk, status=RegistrationStatus(registration.status)
    )


@action("check_in_all")
def check_in_all(
    change: Change,
    *,
    event_id: int,
    by: User,
    idempotency_key: str | None = None,
) -> answers.EveryoneCheckedIn:
    """House checks in every registered player at once, before the start."""
    change.require_house()
    change.refuse_if_finalized()
    event = change.event
    if event.phase != Phase.OPEN:
        raise WrongPhase(
            _(
                "Everyone is checked in at once before the start; after it each late entry is "
                "checked in on its own."
            )
        )
    waiting = list(
        event.registrations.filter(status=RegistrationStatus.REGISTERED).order_by(
            "registered_at", "id"
        )
    )
    if not waiting:
        raise WrongState(_("Nobody is waiting to be checked in."))
    # Before the start a check-in is never late and the pool is never confirmed (it is confirmed
    # after the start): what `check_in` does for one player, written for all in one statement.
    order = event.registrations.aggregate(last=Max("check_in_order"))["last"] or 0
    for place, registration in enumerate(waiting, start=order + 1):
        registration.status = RegistrationStatus.CHECKED_IN
        registration.checked_in_at = change.now
        registration.check_in_order = place
        registration.late = False
    Registration.objects.bulk_update(
        waiting, ["status", "checked_in_at", "check_in_order", "late"], batch_size=500
    )
    for registration in waiting:
        change.know(registration)
        change.audit(
            "player_checked_in",
            player=registration.label,
            details={"late": False, "added_by_house": False, "pool_unconfirmed": False},
        )
    return answers.EveryoneCheckedIn(event_id=event.pk, checked_in=[r.pk for r in waiting])


@action("payment_mark")
def payment_mark(
    change: Change,
    *,
    registration_id: int,
    by: User,
    paid: bool,
    idempotency_key: str | None = None,
) -> answers.PaymentMarked:
    """House marks a player's contribution as paid or not paid."""
    if not change.house:
        if change.roles:
            raise change.refusal()  # staff, whose role does not handle money
        raise NotFound(_("No such registration."))
    change.refuse_if_finalized()
    event = change.event
    registration = Registration.objects.filter(pk=registration_id, event=event).first()
    if registration is None:
        raise NotFound(_("No such registration."))
    if event.contribution == 0:
        raise WrongState(_("A free event takes no contributions."))
    if paid:
        require_remainder_policy(event, before=_("accepting a paid entry"))
    # Recorded for a player who takes part, or took part (it stays in the pool).
    if paid and registration.status not in PARTICIPANTS:
        raise WrongState(
            _("%(player)s is %(status)s: only a participant's contribution is recorded.")
            % {"player": registration.label, "status": registration.get_status_display()}
        )
    money = entry_money(event, registration)
    collected = money.collected
    if registration.paid and not paid:
        # Not paid takes back a mistaken mark: money refunded since proves it changed hands, and
        # voiding the whole entry would leave the box and the player's account short.
        if money.refunded:
            raise EntryPartlyRefunded(
                _(
                    "%(player)s has had $%(refunded)s of the entry refunded: the money changed "
                    "hands, so the rest is refunded, not marked not paid."
                )
                % {"player": registration.label, "refunded": money.refunded}
            )
        collected -= money.held
    elif paid and not registration.paid:
        collected += event.contribution
    if registration.paid != paid:
        if not _ledgers:
            raise WrongState(_("No ledger is installed to record the night's money."))
        _ledgers[0].write_line(
            change, registration, PaymentMarked(paid=paid, amount=event.contribution)
        )
    return answers.PaymentMarked(registration_id=registration.pk, paid=paid, collected=collected)
