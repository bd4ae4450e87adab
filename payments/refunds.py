"""Refunds through Stripe: asked after the commit of the change that made them due, never under a
lock, and written in the ledger only when Stripe's webhook confirms them (payments/webhooks.py)."""

from __future__ import annotations

import logging
from datetime import timedelta

import stripe
from django.dispatch import Signal
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


def paid_online(registration_id: int) -> bool:
    """Whether the registration's entry was paid online and not refunded."""
    return CheckoutSession.objects.filter(
        registration_id=registration_id, state=PaymentState.PAID
    ).exists()


# A refund is owed and was not asked of Stripe yet (sent after the commit that owes it):
# payments/tasks.py asks Stripe in a task, so a slow Stripe holds no request.
refund_owed = Signal()


def owe(session_pk: int) -> None:
    """Tell that the session's refund is owed (the sweep asks again if this is lost)."""
    for _receiver, result in refund_owed.send_robust(sender=None, session_pk=session_pk):
        if isinstance(result, Exception):
            log.error("Could not ask for session %s's refund: %r", session_pk, result)
