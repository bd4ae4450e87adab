"""What the dashboard's tools section shows: self check-in, everyone at once, announcements.

Paid flags are part of each player's row and the collected total part of the pool
(`house.selectors`).
"""

from __future__ import annotations

from typing import Any

from events.announcements import recent
from events.check_in import board_check_in
from events.models import Event, Phase, RegistrationStatus


def tools(event: Event) -> dict[str, Any]:
    waiting = event.registrations.filter(status=RegistrationStatus.REGISTERED).count()
    return {
        "tools": {
            "self_check_in": event.self_check_in,
            "check_in": board_check_in(event),
            "waiting": waiting,
            "can_check_in_all": event.phase == Phase.OPEN and waiting > 0,
            "can_announce": event.phase in (Phase.OPEN, Phase.STARTED),
            "announcements": recent(event, 3),
        }
    }
