"""`check_in_undo`: House undoes a check-in, only before the start (docs/rules.md section 9.3)."""

from __future__ import annotations

import pytest

from events import services
from events.errors import (
    WrongPhase,
)
from tests.events.support import last
from tests.factories import make_table
from tests.refusals import refused


@pytest.mark.django_db
def test_it_undoes_a_check_in_only_before_the_start():
    """Only checked-in players play; the stock is sized from the checked-in players at start."""
    table = make_table("league", players=3)
    third = table.players[2]
    services.check_in_undo(registration_id=table.rid(third), by=table.house)
    assert table.registration(third).status == "registered"
    table.start()
    assert last(table.event, "event_started").details["players"] == 2
    first = table.players[0]
    refused(
        WrongPhase,
        table.event,
        lambda: services.check_in_undo(registration_id=table.rid(first), by=table.house),
    )
