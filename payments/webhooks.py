"""Stripe's webhook: the one source that says a payment or a refund happened (docs/decisions.md,
"Paying online"). A delivery is verified against STRIPE_WEBHOOK_SECRET as Stripe signs it (a
forged or stale signature changes nothing), then handled once: a repeated or late delivery finds
the Checkout Session's state already moved on and changes nothing. The browser's return from
Checkout confirms nothing."""

from __future__ import annotations

import json
import logging
from collections.abc import Mapping
from typing import Any

import stripe
from django.conf import settings
from django.db import IntegrityError, transaction
from django.utils import translation

from events.errors import DomainError
from events.limits import ID_MAX
from events.models import Event, Registration
from events.runner import together
from ledger.lines import ONLINE
from ledger.services import entry_payment, entry_refund
from payments import answers, refunds, services
from payments.models import CheckoutSession, PaymentState, StripeEvent

log = logging.getLogger(__name__)

COMPLETED = ("checkout.session.completed", "checkout.session.async_payment_succeeded")
REFUNDS = ("charge.refunded", "refund.created", "refund.updated")


class BadSignature(Exception):
    """A delivery whose signature does not verify (forged, stale, or no signature at all)."""


def receive(payload: bytes, signature: str) -> None:
    """Verify a delivery and handle it; `BadSignature` when it does not verify."""
    try:
        stripe.Webhook.construct_event(payload, signature, settings.STRIPE_WEBHOOK_SECRET)
    except (ValueError, stripe.SignatureVerificationError):
        raise BadSignature() from None
    handle(json.loads(payload))


def handle(event: Mapping[str, Any]) -> None:
    """One verified Stripe event, once. A refusal's message is kept (the session's `why`, the
    audit's reason): in English, as everything stored is (docs/decisions.md, "Languages")."""
    with translation.override("en"):
        _handle(event)


def _handle(event: Mapping[str, Any]) -> None:
    event_id, kind = str(event.get("id", "")), str(event.get("type", ""))
    if StripeEvent.objects.filter(event_id=event_id).exists():
        return
    found = event.get("data", {}).get("object", {})
    if kind in COMPLETED and found.get("payment_status") == "paid":
        payment_received(found)
    elif kind in REFUNDS:
        refund = _refund_of(kind, found)
        if refund is not None:
            refund_confirmed(*refund)
    try:
        with transaction.atomic():
            StripeEvent.objects.get_or_create(event_id=event_id, defaults={"type": kind[:100]})
    except IntegrityError:
        pass  # the same delivery, handled at the same instant: its state already says so


def _refund_of(kind: str, found: Mapping[str, Any]) -> tuple[str, str] | None:
    """(payment_intent, refund id) of a refund that succeeded, or None."""
    if kind == "charge.refunded":
        if not found.get("refunded"):
            return None  # a part refunded: this app refunds the whole entry only
        refunds = found.get("refunds", {}).get("data") or [{}]
        return str(found.get("payment_intent") or ""), str(refunds[0].get("id", ""))
    if found.get("status") != "succeeded":
        return None
    return str(found.get("payment_intent") or ""), str(found.get("id", ""))


def _registration_id(session: Mapping[str, Any]) -> int | None:
    raw = (session.get("metadata") or {}).get("registration_id") or session.get(
        "client_reference_id"
    )
    try:
        number = int(str(raw))
    except ValueError:
        return None
    return number if 0 < number <= ID_MAX else None


def payment_received(session: Mapping[str, Any]) -> None:
    """A Checkout Session paid: the entry line when the entry takes it, else refunded."""
    session_id = str(session.get("id", ""))
    payment_intent = str(session.get("payment_intent") or "")
    amount = session.get("amount_total")
    amount = amount if isinstance(amount, int) and amount >= 0 else 0
    currency = str(session.get("currency") or "").lower()
    registration_id = _registration_id(session)
    if registration_id is None or not Registration.objects.filter(pk=registration_id).exists():
        _stray(session_id, payment_intent, amount, currency, session)
        return

    def receive(refused_because: str = "") -> answers.PaymentReceived:
        return services.online_payment_receive(
            registration_id=registration_id,
            session_id=session_id,
            payment_intent=payment_intent,
            amount=amount,
            currency=currency,
            refused_because=refused_because,
            by=None,
        )

    try:
        with together():
            received = receive()
            if received.outcome == answers.ACCEPTED:
                entry_payment(
                    event_id=received.event_id,
                    registration_id=registration_id,
                    by=None,
                    method=ONLINE,
                    reference=payment_intent,
                )
    except DomainError as problem:
        # The ledger refused the line (every change of it rolled back): refused and refunded.
        receive(problem.message)


def _stray(
    session_id: str, payment_intent: str, amount: int, currency: str, session: Mapping[str, Any]
) -> None:
    """A payment for a registration that does not exist: kept, refused and refunded (shown in
    the night report of the event its session names, when there is one)."""
    raw_event = str((session.get("metadata") or {}).get("event_id", ""))
    event = (
        Event.objects.filter(pk=int(raw_event)).first()
        if raw_event.isdigit() and 0 < int(raw_event) <= ID_MAX
        else None
    )
    with transaction.atomic(durable=True):
        row, _ = CheckoutSession.objects.select_for_update().get_or_create(
            session_id=session_id,
            defaults={"event": event, "amount": amount, "currency": currency[:3]},
        )
        if row.state != PaymentState.OPEN:
            return
        row.payment_intent, row.amount, row.currency = payment_intent, amount, currency[:3]
        row.state, row.why = PaymentState.REFUSED, "No such registration."
        row.save()
        pk = row.pk
        transaction.on_commit(lambda: refunds.owe(pk))
    log.warning("Refunding a payment for no registration (session %s).", session_id)


def refund_confirmed(payment_intent: str, refund_id: str) -> None:
    """Stripe refunded a payment: the refund line for a paid entry, once; a refused payment's
    refund completes it. A refund of a payment not seen paid here changes nothing."""
    row = (
        CheckoutSession.objects.filter(payment_intent=payment_intent).first()
        if payment_intent
        else None
    )
    if row is None:
        return
    if row.state == PaymentState.REFUSED:
        CheckoutSession.objects.filter(pk=row.pk, state=PaymentState.REFUSED).update(
            state=PaymentState.REFUSED_REFUNDED, refund_id=refund_id or row.refund_id
        )
        return
    if row.registration_id is None or row.state not in (
        PaymentState.PAID,
        PaymentState.REFUND_PENDING,
    ):
        return
    try:
        with together():
            confirmed = services.online_refund_confirm(
                registration_id=row.registration_id, payment_intent=payment_intent, by=None
            )
            if confirmed.refunded:
                entry_refund(
                    event_id=confirmed.event_id,
                    registration_id=row.registration_id,
                    by=None,
                    amount=confirmed.amount,
                    method=ONLINE,
                    reason=f"Refunded through Stripe: {payment_intent}",
                )
    except DomainError as problem:
        # Refunded in Stripe's dashboard for a player the ledger refunds nothing: House sees it.
        CheckoutSession.objects.filter(pk=row.pk).update(
            why=f"Stripe refunded it, but the ledger took no refund line: {problem.message}"
        )
