"""What the payments' services answer: one frozen dataclass each (events/answers.py explains)."""

from __future__ import annotations

from dataclasses import dataclass
from typing import Annotated

from events.answers import Answer, Described


@dataclass(frozen=True)
class CheckoutStarted(Answer):
    """Where the player pays the entry: Stripe Checkout's page for this registration. The
    payment counts only once Stripe's signed webhook confirms it."""

    url: Annotated[str, Described("Stripe Checkout's page: send the player there.")]
    session_id: Annotated[str, Described("The Checkout Session's id (cs_...).")]


# What a payment Stripe confirmed came to (`PaymentReceived.outcome`).
ACCEPTED = "accepted"
REFUSED = "refused"
ALREADY = "already"


@dataclass(frozen=True)
class PaymentReceived(Answer):
    """A payment Stripe confirmed: accepted (the entry line follows), refused (refunded, with
    why) or already handled (a repeated or late delivery: nothing changed)."""

    registration_id: int
    event_id: int
    outcome: str
    why: str = ""


@dataclass(frozen=True)
class RefundRequested(Answer):
    """A paid online entry of a player who gave up their place: its refund asked of Stripe, or
    not (with why: the refund policy, nothing paid online)."""

    registration_id: int
    requested: bool
    why: str = ""


@dataclass(frozen=True)
class RefundConfirmed(Answer):
    """A refund Stripe confirmed, for a paid entry: its refund line follows (`refunded`), or it
    was already written."""

    registration_id: int
    event_id: int
    refunded: bool
    amount: int


# The answers of the payments' writes that the API serves, beside the engine's.
PAYMENT_ANSWERS: tuple[type[Answer], ...] = (CheckoutStarted,)
