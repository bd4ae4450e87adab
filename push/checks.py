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
