"""Refunds through Stripe: asked after the commit of the change that made them due, never under a
lock, and written in the ledger only when Stripe's webhook confirms them (payments/webhooks.py)."""

from __future__ import annotations

import logging
from datetime import timedelta
from typing import Any

import stripe
from django.utils import timezone

from payments.checkout import client
from payments.models import CheckoutSession, PaymentState

log = logging.getLogger(__name__)

# The states whose refund is asked of Stripe and not yet confirmed.
OWED = (PaymentState.REFUND_PENDING, PaymentState.REFUSED)


def send(session_pk: int) -> bool:
    """Ask Stripe to refund this session's payment in full, once per payment (Stripe's own
    idempotency key): whether Stripe took the request."""
    row = CheckoutSession.objects.filter(pk=session_pk, state__in=OWED).first()
    if row is None or not row.payment_intent:
        return False
    try:
        refund = client().v1.refunds.create(
            {"payment_intent": row.payment_intent},
            {"idempotency_key": f"refund-{row.payment_intent}"},
        )
    except stripe.StripeError:
        log.warning("Stripe did not take the refund of %s; the sweep asks again.", row.session_id)
        return False
    CheckoutSession.objects.filter(pk=row.pk, refund_id="").update(refund_id=refund.id)
    return True


def owed_unsent(older_than: timedelta = timedelta(minutes=2)) -> list[int]:
    """Sessions whose refund is owed and was not taken by Stripe yet (the sweep's)."""
    return list(
        CheckoutSession.objects.filter(
            state__in=OWED, refund_id="", updated_at__lt=timezone.now() - older_than
        ).values_list("pk", flat=True)
    )


def on_place_given_up(sender: Any, *, registration_id: int, why: str = "", **kwargs: Any) -> None:
    """A registration no longer holds a place (after the commit): its online entry, if any, is
    refunded where the event's refund policy allows, by a task (a slow Stripe holds no request)."""
    if not CheckoutSession.objects.filter(
        registration_id=registration_id, state=PaymentState.PAID
    ).exists():
        return
    from payments import tasks

    tasks.refund_leaving.delay(registration_id, why)


def listen() -> None:
    """Hear the waitlist's `place_given_up` (events/waitlist.py), which names no payments."""
    from events import waitlist

    waitlist.place_given_up.connect(on_place_given_up, dispatch_uid="payments-refund-on-leaving")
