"""Reminders for pending card selections (docs/rules.md section 5.5): one per selection, to every
device.

A reminder is due when its offer says (`Offer.reminder_due_at`, which the engine sets as it deals
the offer: `events.dealing.reminder_due`). Its countdown starts when the committed change that made
the offer reaches `push.tasks.on_change`; the countdown task and the beat sweep both try to claim
it with one conditional update, and whoever updates the row sends it, after commit. The claim
re-checks that the selection is still pending and the event not finalized, so nothing is sent for
a selection resolved in time.
"""

from __future__ import annotations

import logging
from datetime import datetime, timedelta
from typing import Any

from django.conf import settings
from django.db import transaction
from django.db.models import QuerySet
from django.utils import timezone, translation
from django.utils.translation import gettext as _

from accounts.language import language_of
from cards.models import Offer, OfferKind, pending_offer
from events.models import Outcome, Phase, RegistrationStatus
from events.player_words import win_choice_words
from push import service
from push.keys import vapid_keys
from push.models import DeliveryStatus, PushDelivery, PushSubscription
from push.subscriptions import endpoint_allowed

log = logging.getLogger(__name__)


class RetryLater(Exception):
    """The push service asked us to come back (429 or 5xx)."""


def due_offers(now: datetime | None = None) -> QuerySet[Offer]:
    """Pending selections whose reminder is due and not yet claimed."""
    return Offer.objects.pending().filter(
        reminded_at__isnull=True,
        reminder_due_at__lte=now or timezone.now(),
        registration__status=RegistrationStatus.CHECKED_IN,
        registration__event__phase=Phase.STARTED,
    )


def stranded_deliveries(now: datetime | None = None) -> QuerySet[PushDelivery]:
    """Deliveries still pending long after their claim: their task message was lost."""
    return PushDelivery.objects.filter(
        pending_offer(via="offer__"),
        status=DeliveryStatus.PENDING,
        created_at__lte=(now or timezone.now()) - timedelta(seconds=settings.PUSH_STRANDED_AFTER),
    )


def claim(offer_id: int) -> list[int]:
    """Claim the offer's reminder; return the deliveries to send (none if not ours or not due)."""
    now = timezone.now()
    with transaction.atomic():
        # Only the offer's own columns in the WHERE: PostgreSQL re-checks them on the locked row,
        # so of two racing claims exactly one updates it.
        claimed = (
            Offer.objects.pending()
            .filter(
                pk=offer_id,
                reminded_at__isnull=True,
                reminder_due_at__lte=now,
            )
            .update(reminded_at=now)
        )
        if claimed != 1:
            return []
        offer = Offer.objects.select_related("registration__event").get(pk=offer_id)
        registration = offer.registration
        if (
            registration.status != RegistrationStatus.CHECKED_IN
            or registration.event.phase != Phase.STARTED
        ):
            return []
        if registration.player_id is None:
            return []
        subscriptions = list(PushSubscription.objects.filter(user_id=registration.player_id))
        deliveries = PushDelivery.objects.bulk_create(
            [PushDelivery(offer=offer, subscription=s) for s in subscriptions]
        )
    return [delivery.pk for delivery in deliveries]


def payload(offer: Offer) -> dict[str, Any]:
    """The reminder, in the active language."""
    event = offer.registration.event
    keep = win_choice_words(event.rules)  # "keep one of two cards"
    if offer.kind == OfferKind.STARTING:
        body = _("Your starting cards are waiting: choose %(keep)s to keep.") % {"keep": offer.keep}
    elif offer.result is not None and offer.result.outcome == Outcome.LOSS:
        # Corrected Win -> Loss after the deal: the choice stays (docs/rules.md section 8.2).
        body = _("Game %(game)s is now a loss, but its choice stays: %(choice)s.") % {
            "game": offer.result.game,
            "choice": keep,
        }
    else:
        game = offer.result.game if offer.result else ""
        body = _("You won game %(game)s: %(choice)s.") % {"game": game, "choice": keep}
    return {
        "title": _("%(event)s: your card choice is waiting") % {"event": event.name},
        "body": body,
        "url": f"/events/{event.pk}/",
        "tag": f"offer-{offer.pk}",
    }


def deliver(delivery_id: int) -> str:
    """Send one reminder to one device. 404/410 delete the subscription; 429/5xx retry later."""
    delivery = (
        PushDelivery.objects.select_related(
            "subscription",
            "offer__registration__event",
            "offer__registration__player",
            "offer__result",
        )
        .filter(pk=delivery_id, status=DeliveryStatus.PENDING)
        .first()
    )
    if delivery is None or delivery.subscription is None:
        return "skipped"
    offer = delivery.offer
    if offer.resolved_at is not None or offer.voided_at is not None:
        # A retried or redelivered reminder must not nag about a choice already made.
        PushDelivery.objects.filter(pk=delivery.pk).update(
            status=DeliveryStatus.SKIPPED, last_error="the selection was resolved first"
        )
        return "skipped"
    subscription = delivery.subscription
    if not endpoint_allowed(subscription.endpoint):
        # Stored before the allow-list, or the list changed since: never connect to it.
        subscription.delete()
        return _failed(delivery, "the endpoint is not on a browser's push service")
    keys = vapid_keys()
    registration = offer.registration
    with translation.override(language_of(registration.player, registration.event)):
        told = payload(offer)  # in the player's language
    PushDelivery.objects.filter(pk=delivery.pk).update(attempts=delivery.attempts + 1)
    try:
        service.send(subscription, told, keys=keys)
    except service.Refused as refused:
        status = refused.status
        if status in (404, 410):
            PushDelivery.objects.filter(pk=delivery.pk).update(
                status=DeliveryStatus.GONE, last_error=f"{status}: subscription gone"
            )
            subscription.delete()
            return "gone"
        if status == 429 or (status is not None and status >= 500):
            PushDelivery.objects.filter(pk=delivery.pk).update(last_error=f"{status}: retrying")
            raise RetryLater(str(status)) from refused
        return _failed(delivery, f"{status or 'no answer'}: {refused}")
    except Exception as error:  # network errors and timeouts: logged and shown to House
        return _failed(delivery, f"{type(error).__name__}: {error}")
    PushDelivery.objects.filter(pk=delivery.pk).update(
        status=DeliveryStatus.SENT, sent_at=timezone.now(), last_error=""
    )
    return "sent"


def give_up(delivery_id: int, reason: str) -> None:
    delivery = PushDelivery.objects.filter(pk=delivery_id).first()
    if delivery is not None:
        _failed(delivery, reason)


def _failed(delivery: PushDelivery, reason: str) -> str:
    log.warning("Poker push reminder %s failed: %s", delivery.pk, reason)
    PushDelivery.objects.filter(pk=delivery.pk).update(
        status=DeliveryStatus.FAILED, last_error=reason[:1000]
    )
    return "failed"
