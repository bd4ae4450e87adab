"""House's announcements by Poker push: one message to each device of the players taking part.

Sent by a Celery task after the commit (`push.tasks.on_announced`); each device is tried once
(an announcement is for now: a late retry helps no one). A subscription the push service says is
gone is deleted, as for reminders.
"""

from __future__ import annotations

import logging
from typing import Any

from django.utils import translation
from django.utils.translation import gettext as _

from accounts.language import language_of
from events.announcements import LISTENING
from events.models import Announcement
from push import service
from push.keys import vapid_keys
from push.models import PushSubscription
from push.subscriptions import endpoint_allowed

log = logging.getLogger(__name__)


def payload(announcement: Announcement) -> dict[str, Any]:
    """The announcement in the active language: House's own words stay as House wrote them."""
    event = announcement.event
    return {
        "title": _("%(event)s: House says") % {"event": event.name},
        "body": announcement.text,
        "url": f"/events/{event.pk}/",
        "tag": f"announcement-{announcement.pk}",
    }


def subscriptions(announcement: Announcement) -> list[int]:
    """Every device of the event's players still taking part who turned Poker push on."""
    return list(
        PushSubscription.objects.filter(
            user__registrations__event_id=announcement.event_id,
            user__registrations__status__in=LISTENING,
        )
        .order_by("pk")
        .values_list("pk", flat=True)
    )


def deliver(announcement_id: int, subscription_id: int) -> str:
    """Send one announcement to one device: "sent", "gone", "failed" or "skipped"."""
    announcement = Announcement.objects.select_related("event").filter(pk=announcement_id).first()
    subscription = (
        PushSubscription.objects.select_related("user").filter(pk=subscription_id).first()
    )
    if announcement is None or subscription is None:
        return "skipped"
    if not endpoint_allowed(subscription.endpoint):
        subscription.delete()
        return "failed"
    keys = vapid_keys()
    with translation.override(language_of(subscription.user, announcement.event)):
        told = payload(announcement)  # in the device's owner's language
    try:
        service.send(subscription, told, keys=keys)
    except service.Refused as refused:
        if refused.status in (404, 410):
            subscription.delete()
            return "gone"
        log.warning(
            "Announcement %s to device %s: %s", announcement_id, subscription_id, refused.status
        )
        return "failed"
    except Exception as error:  # network errors and timeouts: logged, the page still shows it
        log.warning("Announcement %s to device %s: %s", announcement_id, subscription_id, error)
        return "failed"
    return "sent"
