"""Paying the entry ahead through Stripe Checkout (docs/decisions.md, "Paying online").

`checkout_start` makes a Checkout Session for a registration's entry and answers its page: the
registration itself never waits on Stripe, and no Stripe call is made under the event's lock. The
payment counts only when Stripe's signed webhook confirms it (payments/webhooks.py).
"""

from __future__ import annotations

from datetime import timedelta

import stripe
from django.conf import settings
from django.urls import reverse
from django.utils import timezone
from django.utils.translation import gettext as _

from accounts.models import User
from events import waitlist
from events.errors import EventIsFinalized, NotFound, OnlinePaymentUnavailable, WrongState
from events.limits import ID_MAX
from events.models import Event, Phase, Registration, RegistrationStatus
from events.waitlist import pays_ahead
from payments.answers import CheckoutStarted
from payments.models import CheckoutSession, PaymentState

# Stripe lets a Checkout Session expire no sooner than 30 minutes after it is made (and no later
# than 24 hours); a minute more covers the clocks' difference.
SHORTEST_SESSION = timedelta(minutes=31)
LONGEST_SESSION = timedelta(hours=23)
# An open session is offered again while it has at least this long to run.
STILL_OPEN = timedelta(minutes=5)


# Whether the deployment takes entries online, as the engine asks it (both Stripe secrets set).
configured = waitlist.online_payments


def client() -> stripe.StripeClient:
    """The Stripe client, pointed at STRIPE_API_BASE when set (the tests' local server)."""
    base = settings.STRIPE_API_BASE
    return stripe.StripeClient(
        settings.STRIPE_SECRET_KEY,
        base_addresses={"api": base} if base else None,
        max_network_retries=2,
    )


def cents(event: Event) -> int:
    """The entry in Stripe's unit: the contribution's whole dollars, in cents."""
    return event.contribution * 100


def checkout_start(
    *, registration_id: int, by: User, idempotency_key: str | None = None
) -> CheckoutStarted:
    """The player's own registration, holding a place whose entry is unpaid, where the event
    asks for it ahead: a Checkout Session for the entry (an open one is offered again)."""
    # Another player's registration is not found, whatever else holds: nothing leaks.
    if isinstance(registration_id, bool) or not 0 < registration_id <= ID_MAX:
        raise NotFound(_("No such registration."))
    registration = (
        Registration.objects.select_related("event")
        .filter(pk=registration_id, player_id=by.pk)
        .first()
    )
    if registration is None:
        raise NotFound(_("No such registration."))
    event = registration.event
    if event.phase == Phase.DRAFT:
        raise NotFound(_("No such registration."))
    if event.phase == Phase.FINALIZED:
        raise EventIsFinalized()
    if not pays_ahead(event):
        raise OnlinePaymentUnavailable(
            _("This event takes the entry at the door: there is nothing to pay online.")
        )
    if registration.paid:
        raise WrongState(_("Your entry is already paid."))
    if registration.status != RegistrationStatus.REGISTERED:
        if registration.status == RegistrationStatus.OFFERED:
            raise WrongState(_("Claim the place offered to you first, then pay its entry."))
        raise WrongState(
            _("Your registration is %(status)s: only a place you hold is paid for.")
            % {"status": registration.get_status_display().lower()}
        )
    now = timezone.now()
    still_open = (
        CheckoutSession.objects.filter(
            registration=registration, state=PaymentState.OPEN, expires_at__gt=now + STILL_OPEN
        )
        .order_by("-id")
        .first()
    )
    if still_open is not None:
        return CheckoutStarted(url=still_open.url, session_id=still_open.session_id)
    expires = now + SHORTEST_SESSION
    if registration.hold_until is not None:
        expires = min(max(expires, registration.hold_until), now + LONGEST_SESSION)
    page = settings.SITE_URL.rstrip("/") + reverse("web:event", args=[event.pk])
    amount = cents(event)
    currency = settings.STRIPE_CURRENCY
    try:
        session = client().v1.checkout.sessions.create(
            {
                "mode": "payment",
                "line_items": [
                    {
                        "quantity": 1,
                        "price_data": {
                            "currency": currency,
                            "unit_amount": amount,
                            "product_data": {"name": f"Entry: {event.name}"},
                        },
                    }
                ],
                "metadata": {"registration_id": str(registration.pk), "event_id": str(event.pk)},
                "payment_intent_data": {
                    "metadata": {
                        "registration_id": str(registration.pk),
                        "event_id": str(event.pk),
                    }
                },
                "client_reference_id": str(registration.pk),
                "success_url": f"{page}?paid=1",
                "cancel_url": page,
                "expires_at": int(expires.timestamp()),
            }
        )
    except stripe.StripeError:
        raise OnlinePaymentUnavailable(
            _("Stripe did not answer: nothing was charged. Try again in a moment.")
        ) from None
    CheckoutSession.objects.create(
        event=event,
        registration=registration,
        session_id=session.id,
        url=session.url or "",
        expires_at=expires,
        amount=amount,
        currency=currency,
    )
    return CheckoutStarted(url=session.url or "", session_id=session.id)
