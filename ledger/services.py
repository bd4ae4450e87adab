"""The ledger's state changes: an entry paid, a refund, a payout, a sponsor's money. Each is one
action of the engine's machinery (events/runner.py): one transaction under the event's lock, its
line an audit entry in the event's chain, its answer stored under the idempotency key.

The registration's `paid` flag is set by the one function that writes an entry's lines
(ledger/book.py), from what the lines say, in the same change (docs/decisions.md, "The ledger
alone sets paid").
"""

from __future__ import annotations

from django.conf import settings
from django.utils.translation import gettext as _

from accounts.models import User
from events.errors import (
    Invalid,
    NotFound,
    PayoutExceedsAward,
    ReasonRequired,
    RefundExceedsPayment,
    RefundNotInPolicy,
    SponsorExceedsPool,
    WrongCashBox,
    WrongPhase,
    WrongState,
)
from events.limits import INTEGER_MAX
from events.models import Phase, RefundPolicy, Registration, RegistrationStatus
from events.play_rules import PARTICIPANTS
from events.remainder_policy import require_remainder_policy
from events.runner import Change, Trimmed, action
from ledger import answers
from ledger.book import write_line
from ledger.cash_box import expected_cash
from ledger.lines import (
    CASH,
    COMP,
    ENTRY_METHODS,
    ENTRY_PAID,
    ENTRY_REFUNDED,
    ONLINE,
    PAYOUT_MADE,
    PAYOUT_METHODS,
    REFUND_METHODS,
    SPONSOR,
    SPONSOR_METHODS,
    SPONSOR_PAID,
    Account,
    EntryPaid,
    EntryRefunded,
    PayoutMade,
    SponsorPaid,
    accounts,
    lines_of,
)


def reporting_threshold() -> int:
    """Winnings net of the entry above this many dollars are flagged for tax paperwork."""
    return int(getattr(settings, "PAYOUT_REPORTING_THRESHOLD", 5000))


def _registration(
    change: Change, *, event_id: int, registration_id: int, system: bool = False
) -> Registration:
    """House only (with `system`, the system too: an online payment or refund Stripe confirmed,
    payments/webhooks.py); the registration, in the event whose cash box the line goes in."""
    if not (change.house or (system and change.user is None)):
        if change.roles:
            raise change.refusal()  # staff whose role does not handle money
        raise NotFound(_("No such registration."))
    if change.event.pk != event_id:
        raise WrongCashBox()
    registration = Registration.objects.filter(pk=registration_id, event=change.event).first()
    if registration is None:
        raise NotFound(_("No such registration."))
    change.know(registration)
    return registration


def _whole_dollars(amount: int, *, what: str) -> None:
    if isinstance(amount, bool) or not isinstance(amount, int) or not 0 < amount <= INTEGER_MAX:
        raise Invalid(_("%(what)s is a whole number of dollars above zero.") % {"what": what})


def _account(change: Change, registration: Registration) -> Account:
    return accounts(lines_of(change.event)).get(registration.label, Account())


@action(ENTRY_PAID)
def entry_payment(
    change: Change,
    *,
    event_id: int,
    registration_id: int,
    by: User | None,
    method: str,
    reference: Trimmed = "",
    reason: Trimmed = "",
    idempotency_key: str | None = None,
) -> answers.EntryPaid:
    """House takes a player's entry: cash, card at the door, online (with the payment's
    reference), or a comp (with the reason; no money moves). An online payment Stripe confirmed
    is recorded by the system (`by` None)."""
    registration = _registration(
        change, event_id=event_id, registration_id=registration_id, system=method == ONLINE
    )
    change.refuse_if_finalized()
    event = change.event
    if method not in ENTRY_METHODS:
        raise Invalid(_("Entry payments are %(choices)s.") % {"choices": ", ".join(ENTRY_METHODS)})
    reference, reason = reference.strip(), reason.strip()
    if method == ONLINE and not reference:
        raise Invalid(_("An online payment needs its reference."))
    if method == COMP and not reason:
        raise ReasonRequired(_("A comp needs a reason."))
    if event.sponsored or event.contribution == 0:
        raise WrongState(_("A free-entry event takes no contributions."))
    require_remainder_policy(event, before=_("accepting a paid entry"))
    if registration.status not in PARTICIPANTS:
        raise WrongState(
            _("%(player)s is %(status)s: only a participant's entry is taken.")
            % {"player": registration.label, "status": registration.get_status_display()}
        )
    if registration.paid:
        raise WrongState(
            _("%(player)s's entry is already settled.") % {"player": registration.label}
        )
    amount = 0 if method == COMP else event.contribution
    line = EntryPaid(
        method=method,
        amount=amount,
        reference=reference if method == ONLINE else "",
        waived=event.contribution if method == COMP else 0,
    )
    write_line(change, registration, line, reason=reason if method == COMP else None)
    return answers.EntryPaid(
        registration_id=registration.pk,
        method=method,
        amount=amount,
        expected_cash=expected_cash(event) + (amount if method == CASH else 0),
    )


@action(ENTRY_REFUNDED)
def entry_refund(
    change: Change,
    *,
    event_id: int,
    registration_id: int,
    by: User | None,
    amount: int,
    method: str,
    reason: Trimmed,
    idempotency_key: str | None = None,
) -> answers.EntryRefunded:
    """House gives money back for a cancelled entry or a withdrawal, as the event's refund
    policy allows, never more than the player has paid in and not had back. A refund Stripe
    confirmed is recorded by the system (`by` None)."""
    registration = _registration(
        change, event_id=event_id, registration_id=registration_id, system=method == ONLINE
    )
    event = change.event
    _whole_dollars(amount, what=_("A refund"))
    if method not in REFUND_METHODS:
        raise Invalid(_("Refunds go back by %(choices)s.") % {"choices": ", ".join(REFUND_METHODS)})
    reason = reason.strip()
    if not reason:
        raise ReasonRequired(_("A refund needs a reason."))
    if registration.status == RegistrationStatus.CANCELLED:
        grounds = "cancellation"
        refused = _("The event's refund policy (%(policy)s) does not refund a cancellation.")
        allowed = event.refund_policy != RefundPolicy.NONE
    elif registration.status == RegistrationStatus.WITHDRAWN:
        grounds = "withdrawal"
        refused = _("The event's refund policy (%(policy)s) does not refund a withdrawal.")
        allowed = event.refund_policy == RefundPolicy.WITHDRAWALS
    else:
        raise RefundNotInPolicy(
            _("%(player)s is %(status)s: only a cancelled entry or a withdrawal is refunded.")
            % {"player": registration.label, "status": registration.get_status_display()}
        )
    if not allowed:
        raise RefundNotInPolicy(refused % {"policy": event.get_refund_policy_display()})
    held = _account(change, registration).held
    if amount > held:
        raise RefundExceedsPayment(
            _(
                "%(player)s has $%(held)s paid in and not refunded: a refund of $%(amount)s is "
                "larger."
            )
            % {"player": registration.label, "held": held, "amount": amount}
        )
    write_line(
        change,
        registration,
        EntryRefunded(method=method, amount=amount, grounds=grounds),
        reason=reason,
    )
    return answers.EntryRefunded(
        registration_id=registration.pk,
        method=method,
        amount=amount,
        still_held=held - amount,
        expected_cash=expected_cash(event) - (amount if method == CASH else 0),
    )


@action(PAYOUT_MADE)
def payout_record(
    change: Change,
    *,
    event_id: int,
    registration_id: int,
    by: User,
    amount: int,
    method: str,
    acknowledged: bool,
    handed_by: Trimmed = "",
    idempotency_key: str | None = None,
) -> answers.PayoutMade:
    """House hands over part or all of a finalized award: the amount, how, who handed it over,
    and whether the winner signed the printed payout sheet."""
    registration = _registration(change, event_id=event_id, registration_id=registration_id)
    event = change.event
    _whole_dollars(amount, what=_("A payout"))
    if method not in PAYOUT_METHODS:
        raise Invalid(
            _("Payouts are made by %(choices)s.") % {"choices": ", ".join(PAYOUT_METHODS)}
        )
    # Who handed it over: as typed (staff at the table may have no account), else who records it.
    handed_by = handed_by.strip() or by.display_name or "House"
    if event.phase != Phase.FINALIZED:
        raise WrongPhase(_("Awards are paid out once the event is finalized."))
    award = registration.award or 0
    left = award - _account(change, registration).paid_out
    if amount > left:
        raise PayoutExceedsAward(
            _(
                "%(player)s's award is $%(award)s, with $%(left)s not yet handed over: a payout "
                "of $%(amount)s is larger."
            )
            % {"player": registration.label, "award": award, "left": left, "amount": amount}
        )
    reportable = award - event.contribution > reporting_threshold()
    change.audit(
        PAYOUT_MADE,
        player=registration.label,
        details=PayoutMade(
            method=method,
            amount=amount,
            award=award,
            handed_by=handed_by,
            acknowledged=acknowledged,
            reportable=reportable,
        ).to_details(),
    )
    return answers.PayoutMade(
        registration_id=registration.pk,
        method=method,
        amount=amount,
        award_left=left - amount,
        reportable=reportable,
        expected_cash=expected_cash(event) - (amount if method == CASH else 0),
    )


@action(SPONSOR_PAID)
def sponsor_payment(
    change: Change,
    *,
    event_id: int,
    by: User,
    amount: int,
    method: str,
    reference: Trimmed = "",
    idempotency_key: str | None = None,
) -> answers.SponsorPaid:
    """House records money a free-entry event's sponsor handed over (cash, into the box) or
    transferred, toward the sponsored pool: never more than the pool the sponsor put up."""
    if not change.house:
        if change.roles:
            raise change.refusal()  # staff whose role does not handle money
        raise NotFound(_("No such event."))
    event = change.event
    _whole_dollars(amount, what=_("The sponsor's money"))
    if method not in SPONSOR_METHODS:
        raise Invalid(
            _("A sponsor's money comes in by %(choices)s.")
            % {"choices": ", ".join(SPONSOR_METHODS)}
        )
    if not event.sponsored:
        raise WrongState(_("Only a free-entry event has a sponsor's pool: entries pay this one."))
    received = sum(line.amount for line in lines_of(event) if line.kind == SPONSOR)
    left = event.sponsored_pool - received
    if amount > left:
        raise SponsorExceedsPool(
            _(
                "The sponsored pool is $%(sponsored_pool)s, with $%(left)s not yet recorded: "
                "$%(amount)s is more. Raise the sponsored pool in the event's settings first."
            )
            % {"sponsored_pool": event.sponsored_pool, "left": left, "amount": amount}
        )
    line = SponsorPaid(method=method, amount=amount, reference=reference.strip())
    change.audit(SPONSOR_PAID, details=line.to_details())
    return answers.SponsorPaid(
        event_id=event.pk,
        method=method,
        amount=amount,
        still_to_come=left - amount,
        expected_cash=expected_cash(event) + (amount if method == CASH else 0),
    )
