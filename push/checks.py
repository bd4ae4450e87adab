"""Production refuses to start push without its VAPID keys."""

from __future__ import annotations

from typing import Any

from django.conf import settings
from django.core.checks import Error, register


@register()
def vapid_keys_in_production(app_configs: Any, **kwargs: Any) -> list[Error]:
    if settings.PRODUCTION and not (settings.VAPID_PUBLIC_KEY and settings.VAPID_PRIVATE_KEY):
        return [
            Error(
                "Poker push needs VAPID_PUBLIC_KEY and VAPID_PRIVATE_KEY in production.",
                hint="Generate a pair with `manage.py vapid_keys` and put it in the environment.",
                id="push.E001",
            )
        ]
    return []


@register()
def push_services_in_production(app_configs: Any, **kwargs: Any) -> list[Error]:
    """Production sends reminders to the browsers' push services only, over https."""
    origins = [entry for entry in settings.PUSH_SERVICE_HOSTS if "://" in entry]
    if settings.PRODUCTION and origins:
        return [
            Error(
                f"PUSH_SERVICE_HOSTS names origins ({', '.join(origins)}): in production it lists "
                "push service host names only, reached over https.",
                id="push.E002",
            )
        ]
    return []
