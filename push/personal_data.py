"""What Poker push keeps about a person (accounts/registry.py): each device's subscription; its
reminders go with it."""

from __future__ import annotations

from typing import Any

from accounts.models import User
from accounts.registry import Handler, nothing, register
from push.models import PushSubscription


def export(user: User) -> list[dict[str, Any]]:
    return [
        {"device": subscription.user_agent, "created_at": subscription.created_at.isoformat()}
        for subscription in PushSubscription.objects.filter(user=user).order_by("pk")
    ]


register(
    Handler(name="push_subscriptions", models=(PushSubscription,), export=export, erase=nothing)
)
