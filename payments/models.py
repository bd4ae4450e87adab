"""What the night's online payments keep: one row per Stripe Checkout Session, from its creation to
its payment (the ledger's `entry_paid` line) and any refund (the `entry_refunded` line), and one row
per Stripe event handled, so a delivery repeated has one effect (docs/decisions.md, "Paying
online")."""

from __future__ import annotations

from django.db import models
from django.db.models import Q

from events.models import Event, Registration


class PaymentState(models.TextChoices):
    OPEN = "open", "Awaiting payment"
    PAID = "paid", "Paid: entry line written"
    REFUND_PENDING = "refund_pending", "Refund asked of Stripe"
    REFUNDED = "refunded", "Refunded: refund line written"
    # A payment the entry could not take (wrong amount, no place held...): refunded, no line.
    REFUSED = "refused", "Refused: refund asked of Stripe"
    REFUSED_REFUNDED = "refused_refunded", "Refused and refunded"


class CheckoutSession(models.Model):
    """One Stripe Checkout Session for a registration's entry. `registration` is empty only for
    a payment Stripe confirmed for a registration that does not exist (refused and refunded)."""

    event = models.ForeignKey(
        Event, on_delete=models.PROTECT, null=True, related_name="checkout_sessions"
    )
    registration = models.ForeignKey(
        Registration, on_delete=models.PROTECT, null=True, related_name="checkout_sessions"
    )
    session_id = models.CharField(max_length=255, unique=True)
    url = models.URLField(max_length=2000, blank=True)
    expires_at = models.DateTimeField(null=True)
    payment_intent = models.CharField(max_length=255, blank=True)
    # Cents, as Stripe counts: what the session asks, then what Stripe says was paid.
    amount = models.PositiveIntegerField()
    currency = models.CharField(max_length=3)
    state = models.CharField(max_length=16, choices=PaymentState.choices, default=PaymentState.OPEN)
    # Why a payment was refused, in plain words (no card data: Stripe keeps that).
    why = models.TextField(blank=True)
    refund_id = models.CharField(max_length=255, blank=True)
    created_at = models.DateTimeField(auto_now_add=True)
    updated_at = models.DateTimeField(auto_now=True)

    class Meta:
        ordering = ["id"]
        constraints = [
            models.CheckConstraint(
                condition=Q(state__in=[state.value for state in PaymentState]),
                name="checkout_state_known",
            ),
            # A payment is confirmed once: one session per payment.
            models.UniqueConstraint(
                fields=["payment_intent"],
                condition=~Q(payment_intent=""),
                name="one_session_per_payment",
            ),
        ]
        indexes = [models.Index(fields=["event", "state"], name="checkout_by_event_state")]

    def __str__(self) -> str:
        return self.session_id


class StripeEvent(models.Model):
    """A Stripe event handled (its `evt_...` id): a repeated delivery changes nothing."""

    event_id = models.CharField(max_length=255, unique=True)
    type = models.CharField(max_length=100)
    handled_at = models.DateTimeField(auto_now_add=True)

    def __str__(self) -> str:
        return self.event_id
