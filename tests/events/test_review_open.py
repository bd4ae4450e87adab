"""`review_open`: House pauses a player for review without a correction
(docs/rules.md section 8.3)."""

from __future__ import annotations

import pytest

from events import services
from events.errors import (
    ReasonRequired,
)
from tests.events.support import last
from tests.factories import make_table
from tests.refusals import refused


@pytest.mark.django_db
def test_it_lets_house_pause_a_player_without_a_correction():
    """House may also pause a player for review, with a reason, without a correction."""
    table = make_table("league", players=2, start=True)
    player = table.players[0]
    refused(
        ReasonRequired,
        table.event,
        lambda: services.review_open(registration_id=table.rid(player), by=table.house, reason=""),
    )
    answer = services.review_open(
        registration_id=table.rid(player), by=table.house, reason="Disputed score."
    )
    assert table.registration(player).paused
    opened = last(table.event, "review_opened")
    assert opened.details == {"review": answer.review_id, "game": None}
    assert (opened.actor, opened.reason) == ("House: House", "Disputed score.")
