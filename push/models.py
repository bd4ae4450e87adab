"""Poker push: each device's web push subscription, and every reminder sent to one."""

from __future__ import annotations

from django.conf import settings
from django.db import models

from cards.models import Offer


class PushSubscription(models.Model):
    """One browser's subscription (per device); private: never shown outside its owner."""

    user = models.ForeignKey(
        settings.AUTH_USER_MODEL, on_delete=models.CASCADE, related_name="push_subscriptions"
    )
    endpoint = models.URLField(max_length=1000, unique=True)
    p256dh = models.CharField(max_length=200)
    auth = models.CharField(max_length=100)
    user_agent = models.CharField(max_length=300, blank=True)
    created_at = models.DateTimeField(auto_now_add=True)

    def info(self) -> dict[str, object]:
        """The subscription as the browser's PushSubscription.toJSON() gives it."""
        return {"endpoint": self.endpoint, "keys": {"p256dh": self.p256dh, "auth": self.auth}}


class DeliveryStatus(models.TextChoices):
    PENDING = "pending", "Pending"
    SENT = "sent", "Sent"
    GONE = "gone", "Subscription gone"
    FAILED = "failed", "Failed"
    SKIPPED = "skipped", "Skipped: the selection was resolved first"


class PushDelivery(models.Model):
    """A reminder for one pending selection to one subscription: at most one each."""

    offer = models.ForeignKey(Offer, on_delete=models.CASCADE, related_name="deliveries")
    subscription = models.ForeignKey(
        PushSubscription, on_delete=models.SET_NULL, null=True, related_name="deliveries"
    )
    status = models.CharField(
        max_length=8, choices=DeliveryStatus.choices, default=DeliveryStatus.PENDING
    )
    attempts = models.PositiveSmallIntegerField(default=0)
    last_error = models.TextField(blank=True)
    created_at = models.DateTimeField(auto_now_add=True)
    sent_at = models.DateTimeField(null=True, blank=True)

    class Meta:
        constraints = [
            models.UniqueConstraint(
                fields=["offer", "subscription"], name="one_reminder_per_offer_and_device"
            ),
        ]
