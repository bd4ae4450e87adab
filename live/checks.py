"""System checks for live updates."""

from __future__ import annotations

from typing import Any

from django.conf import settings
from django.core.checks import CheckMessage, Error, register

from live.delivery import BACKGROUND, MODES


@register()
def live_updates_mode(app_configs: Any, **kwargs: Any) -> list[CheckMessage]:
    """LIVE_UPDATES names a delivery mode `live.delivery` knows."""
    value = getattr(settings, "LIVE_UPDATES", BACKGROUND)
    if value in MODES:
        return []
    return [
        Error(
            f"LIVE_UPDATES is {value!r}.",
            hint=f"Use one of: {', '.join(MODES)}.",
            id="live.E001",
        )
    ]
