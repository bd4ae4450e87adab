"""The payments' state changes, each one action of the engine's machinery (events/runner.py): one
transaction under the event's lock, run by the system (`by` None) when Stripe's signed webhook
says a payment or a refund happened. The money lines themselves are the ledger's services'
(ledger/services.py `entry_payment`, `entry_refund`), run in the same transaction
(payments/webhooks.py); these keep the Checkout Session's state beside them and audit what the
ledger does not: a payment refused and refunded, a refund asked of Stripe."""

from __future__ import annotations

from django.conf import settings
from django.utils import translation

from accounts.models import User
from events.models import Phase, RefundPolicy, Registration, RegistrationStatus
from events.runner import Change, action
from payments import answers, refunds
from payments.checkout import cents
from payments.models import CheckoutSession, PaymentState

# Audit entries (docs/audit.md, "Online payments").
PAYMENT_REFUSED = "online_payment_refused"
REFUND_REQUESTED = "online_refund_requested"

# A registration that holds a place its entry pays for.
HOLDS_A_PLACE = (RegistrationStatus.REGISTERED, RegistrationStatus.CHECKED_IN)

# Why a place was given up (events/waitlist.py `place_given_up`): a withdrawal is refunded where
# the policy refunds withdrawals; the others are cancellations.
WITHDRAWN = "withdrawn"


def _refusal(change: Change, registration: Registration, amount: int, currency: str) -> str:
    """Why the entry cannot take this payment, in plain words ("" when it can)."""
    event = change.event
    if event.sponsored or event.contribution == 0:
        return "This event takes no contributions."
    if currency != settings.STRIPE_CURRENCY:
        return (
            f"Paid in {currency.upper() or 'no currency'}: the entry is in "
            f"{settings.STRIPE_CURRENCY.upper()}."
        )
    if amount != cents(event):
        return f"Paid {amount / 100:.2f}: the entry is {event.contribution:.2f}."
    if event.phase == Phase.FINALIZED:
        return "The event is finalized."
    if registration.status not in HOLDS_A_PLACE:
        # Audited and hashed: the status's English name, whatever language a request asks for.
        with translation.override("en"):
            status = registration.get_status_display().lower()
        return f"{registration.label} is {status}: no place is held."
    if registration.paid:
        return f"{registration.label}'s entry is already paid."
    return ""


@action("online_payment_receive")
def online_payment_receive(
    change: Change,
    *,
    registration_id: int,
    session_id: str,
    payment_intent: str,
    amount: int,
    currency: str,
    refused_because: str = "",
    by: User | None = None,
    idempotency_key: str | None = None,
) -> answers.PaymentReceived:
    """Stripe confirmed a Checkout Session paid for this registration: accepted when the entry
    takes it (the caller writes the entry line in the same transaction), else refused, audited
    and refunded after the commit. A session already handled changes nothing."""
    registration = Registration.objects.get(pk=registration_id)
    change.know(registration)
    row = CheckoutSession.objects.select_for_update().filter(session_id=session_id).first()
    if row is None:
        # A session this app has no record of (made before a restore): kept from now on.
        row = CheckoutSession(session_id=session_id, event=change.event, registration=registration)
    if row.state != PaymentState.OPEN:
        return answers.PaymentReceived(
            registration_id=registration.pk, event_id=change.event.pk, outcome=answers.ALREADY
        )
    why = refused_because or _refusal(change, registration, amount, currency)
    row.payment_intent, row.amount, row.currency = payment_intent, amount, currency
    if not why:
        row.state = PaymentState.PAID
        row.save()
        return answers.PaymentReceived(
            registration_id=registration.pk, event_id=change.event.pk, outcome=answers.ACCEPTED
        )
    row.state, row.why = PaymentState.REFUSED, why
    row.save()
    change.audit(
        PAYMENT_REFUSED,
        player=registration.label,
        details={"payment": payment_intent, "cents": amount, "currency": currency},
        reason=why,
    )
    _refund_after_commit(change, row.pk)
    return answers.PaymentReceived(
        registration_id=registration.pk,
        event_id=change.event.pk,
        outcome=answers.REFUSED,
        why=why,
    )


@action("online_refund_request")
def online_refund_request(
    change: Change,
    *,
    registration_id: int,
    why: str,
    by: User | None = None,
    idempotency_key: str | None = None,
) -> answers.RefundRequested:
    """A player who paid online gave up their place (`why`: cancelled, removed, lapsed or
    withdrawn): where the refund policy refunds it, the refund is asked of Stripe after the
    commit, and its line written when Stripe confirms it."""
    registration = Registration.objects.get(pk=registration_id)
    change.know(registration)
    row = (
        CheckoutSession.objects.select_for_update()
        .filter(registration=registration, state=PaymentState.PAID)
        .order_by("id")
        .first()
    )
    if row is None:
        return answers.RefundRequested(
            registration_id=registration.pk, requested=False, why="Nothing was paid online."
        )
    event = change.event
    if registration.status == RegistrationStatus.WITHDRAWN or why == WITHDRAWN:
        allowed, grounds = event.refund_policy == RefundPolicy.WITHDRAWALS, "withdrawal"
    elif registration.status == RegistrationStatus.CANCELLED:
        allowed, grounds = event.refund_policy != RefundPolicy.NONE, "cancellation"
    else:
        return answers.RefundRequested(
            registration_id=registration.pk,
            requested=False,
            why=f"{registration.label} still holds a place.",
        )
    if not allowed:
        return answers.RefundRequested(
            registration_id=registration.pk,
            requested=False,
            why=f"The event's refund policy ({event.get_refund_policy_display()}) does not "
            f"refund a {grounds}.",
        )
    row.state = PaymentState.REFUND_PENDING
    row.save(update_fields=["state", "updated_at"])
    change.audit(
        REFUND_REQUESTED,
        player=registration.label,
        details={"payment": row.payment_intent, "cents": row.amount, "grounds": grounds},
    )
    _refund_after_commit(change, row.pk)
    return answers.RefundRequested(registration_id=registration.pk, requested=True)


@action("online_refund_confirm")
def online_refund_confirm(
    change: Change,
    *,
    registration_id: int,
    payment_intent: str,
    by: User | None = None,
    idempotency_key: str | None = None,
) -> answers.RefundConfirmed:
    """Stripe confirmed the refund of this registration's paid entry: the session is refunded
    and the caller writes the refund line in the same transaction; once only."""
    registration = Registration.objects.get(pk=registration_id)
    change.know(registration)
    row = (
        CheckoutSession.objects.select_for_update()
        .filter(registration=registration, payment_intent=payment_intent)
        .first()
    )
    if row is None or row.state not in (PaymentState.PAID, PaymentState.REFUND_PENDING):
        return answers.RefundConfirmed(
            registration_id=registration.pk, event_id=change.event.pk, refunded=False, amount=0
        )
    row.state = PaymentState.REFUNDED
    row.save(update_fields=["state", "updated_at"])
    return answers.RefundConfirmed(
        registration_id=registration.pk,
        event_id=change.event.pk,
        refunded=True,
        amount=row.amount // 100,
    )


def _refund_after_commit(change: Change, session_pk: int) -> None:
    change.after_commit(lambda: refunds.owe(session_pk))
