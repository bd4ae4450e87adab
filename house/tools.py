"""What the dashboard's tools show beside the live part: self check-in, payments, announcements."""

from __future__ import annotations

from typing import Any

from events.announcements import recent
from events.check_in import board_check_in
from events.models import Event, Phase, RegistrationStatus


def tools(event: Event) -> dict[str, Any]:
    paid = set(event.registrations.filter(paid=True).values_list("pk", flat=True))
    waiting = event.registrations.filter(status=RegistrationStatus.REGISTERED).count()
    return {
        "tools": {
            "self_check_in": event.self_check_in,
            "check_in": board_check_in(event),
            "paid": paid,
            "collected": event.contribution * len(paid),
            "takes_payments": event.contribution > 0 and event.phase != Phase.FINALIZED,
            "waiting": waiting,
            "can_check_in_all": event.phase == Phase.OPEN and waiting > 0,
            "can_announce": event.phase in (Phase.OPEN, Phase.STARTED),
            "announcements": recent(event, 3),
        }
    }
