"""A place offered from the waitlist, told to its player: by Poker push to each of their devices
and by email, with the link to claim it and the hour the hold ends in the event's time zone.

The waitlist engine (events/waitlist.py) sends `place_offered` after its commit; the hand-over in
`push.tasks` queues one task on the default queue, so the request that freed the place never
waits on a push service or a mail server. Each step checks that the offer still stands (the
registration is still `offered`, with the same hold): a place claimed, removed or lapsed before
the task runs is not announced, and a later offer to the same player is told by its own signal.
"""

from __future__ import annotations

import logging
import zoneinfo
from dataclasses import dataclass
from datetime import datetime
from typing import Any

from django.conf import settings
from django.core.mail import send_mail
from django.urls import reverse
from django.utils import formats, timezone, translation
from django.utils.translation import gettext as _

from accounts.language import language_of
from events.models import Event, Registration, RegistrationStatus
from events.money import dollars
from events.waitlist import pays_ahead
from push import service
from push.keys import vapid_keys
from push.models import PushSubscription
from push.subscriptions import endpoint_allowed

log = logging.getLogger(__name__)


class RetryLater(Exception):
    """The push service asked us to come back (429 or 5xx)."""


@dataclass(frozen=True, slots=True)
class OfferWords:
    """What the player is told, alike by push and by email."""

    title: str
    claim: str  # how to claim it, by when, and what happens otherwise
    path: str  # the event's page, where the offer is claimed in one tap
    until: str  # the hold's end, in the event's time zone


def standing_offer(registration_id: int, hold_until: datetime) -> Registration | None:
    """The registration, while this very offer still stands (not claimed, lapsed or replaced)."""
    registration = (
        Registration.objects.select_related("event", "player")
        .filter(pk=registration_id, status=RegistrationStatus.OFFERED, hold_until=hold_until)
        .first()
    )
    if registration is None or registration.player_id is None or hold_until <= timezone.now():
        return None
    return registration


def local_time(event: Event, moment: datetime) -> str:
    """A moment as the venue's clocks show it: "Wed 2 Dec 2026, 19:05 (America/Chicago)"."""
    try:
        zone = zoneinfo.ZoneInfo(event.time_zone)
    except (zoneinfo.ZoneInfoNotFoundError, ValueError):
        zone = zoneinfo.ZoneInfo("UTC")
    # The project's one way to write a moment (syndicate/formats), as every page writes it.
    return f"{formats.date_format(moment.astimezone(zone), 'DATETIME_FORMAT')} ({zone.key})"


def words(registration: Registration, hold_until: datetime) -> OfferWords:
    """What the player is told, in the active language."""
    event = registration.event
    until = local_time(event, hold_until)
    if pays_ahead(event):
        claim = _(
            "Claim it by %(until)s and pay the %(amount)s entry online, or it passes to the next "
            "player."
        ) % {"until": until, "amount": dollars(event.contribution)}
    else:
        claim = _("Claim it by %(until)s, or it passes to the next player.") % {"until": until}
    return OfferWords(
        title=_("%(event)s: a place is yours") % {"event": event.name},
        claim=claim,
        path=reverse("web:event", args=[event.pk]),
        until=until,
    )


def reader_language(registration: Registration) -> str:
    """The offered player's language (accounts/language.py), for the push and the email alike."""
    return language_of(registration.player, registration.event)


def payload(registration: Registration, hold_until: datetime) -> dict[str, Any]:
    """The push, in the active language."""
    told = words(registration, hold_until)
    return {
        "title": told.title,
        "body": _("A place opened up. %(claim)s") % {"claim": told.claim},
        "url": told.path,
        # One notification per offer: a redelivery replaces it rather than adding another.
        "tag": f"place-offer-{registration.pk}",
    }


def subscriptions(registration: Registration) -> list[int]:
    """The devices of the offered player that turned Poker push on."""
    if registration.player_id is None:
        return []
    return list(
        PushSubscription.objects.filter(user_id=registration.player_id)
        .order_by("pk")
        .values_list("pk", flat=True)
    )


def deliver(registration_id: int, hold_until: datetime, subscription_id: int) -> str:
    """Send the offer to one device: "sent", "gone", "failed" or "skipped"; raises `RetryLater`
    when the push service asks us to come back."""
    registration = standing_offer(registration_id, hold_until)
    subscription = PushSubscription.objects.filter(pk=subscription_id).first()
    if registration is None or subscription is None:
        return "skipped"
    if subscription.user_id != registration.player_id:
        return "skipped"  # the device changed hands since the task was queued
    if not endpoint_allowed(subscription.endpoint):
        subscription.delete()
        return "failed"
    with translation.override(reader_language(registration)):
        told = payload(registration, hold_until)
    try:
        service.send(subscription, told, keys=vapid_keys())
    except service.Refused as refused:
        status = refused.status
        if status in (404, 410):
            subscription.delete()
            return "gone"
        if status == 429 or (status is not None and status >= 500):
            raise RetryLater(str(status)) from refused
        log.warning("Place offer %s to device %s: %s", registration_id, subscription_id, status)
        return "failed"
    except Exception as error:  # network errors and timeouts: the email and the page still tell
        log.warning("Place offer %s to device %s: %s", registration_id, subscription_id, error)
        return "failed"
    return "sent"


def email(registration_id: int, hold_until: datetime) -> bool:
    """Email the offer to the player's address; False when the offer no longer stands."""
    registration = standing_offer(registration_id, hold_until)
    if registration is None or registration.player is None:
        return False
    event = registration.event
    with translation.override(reader_language(registration)):
        told = words(registration, hold_until)
        link = f"{settings.SITE_URL.rstrip('/')}{told.path}"
        subject = _("A place opened for you at %(event)s") % {"event": event.name}
        message = _(
            "Hello %(name)s,\n\n"
            "A place opened up at %(event)s and it is held for you until %(until)s.\n\n"
            "%(claim)s\n\n"
            "Claim it here, in one tap:\n%(link)s\n\n"
            "If you no longer want it, do nothing: the place goes to the next player in line.\n"
        ) % {
            "name": registration.player.display_name,
            "event": event.name,
            "until": told.until,
            "claim": told.claim,
            "link": link,
        }
    send_mail(
        subject=subject,
        message=message,
        from_email=None,
        recipient_list=[registration.player.email],
    )
    return True
