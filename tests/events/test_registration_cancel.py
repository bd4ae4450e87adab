"""`registration_cancel`: a registration is cancelled until check-in (docs/rules.md section 9.2)."""

from __future__ import annotations

import pytest

from events import services
from events.errors import (
    WrongPhase,
)
from tests.events.support import last
from tests.factories import make_table, make_user
from tests.refusals import refused


@pytest.mark.django_db
def test_it_lets_a_registration_be_cancelled_until_check_in():
    """Registrations not cancelled and not no-shows count (a registration can be cancelled)."""
    table = make_table("league", players=2)
    ann = make_user("Ann")
    table.register(ann)
    services.registration_cancel(registration_id=table.rid(ann), by=ann)
    assert table.registration(ann).status == "cancelled"
    assert last(table.event, "registration_cancelled").player == "Ann"
    checked_in = table.players[0]
    refused(
        WrongPhase,
        table.event,
        lambda: services.registration_cancel(registration_id=table.rid(checked_in), by=checked_in),
    )
