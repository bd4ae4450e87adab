"""`event_start`: House starts the event with at least two checked-in players
(docs/rules.md section 1.5)."""

from __future__ import annotations

import pytest

from events import services
from events.errors import (
    NotAllowed,
    WrongPhase,
)
from tests.events.support import create_event
from tests.factories import make_table, make_user
from tests.refusals import refused


@pytest.mark.django_db
def test_it_needs_two_checked_in_players_to_start():
    """Start needs at least two checked-in players."""
    table = make_table("league", players=1)
    table.register(make_user("Registered only"))
    error = refused(WrongPhase, table.event, table.start)
    assert error.status == 409
    table.join()
    table.start()
    assert table.refresh().phase == "started"


@pytest.mark.django_db
def test_it_starts_only_an_open_event_once():
    """Phases: draft -> open -> started (stock locked) -> finalized."""
    house = make_user("House", staff=True)
    event_id = create_event(house)
    refused(WrongPhase, event_id, lambda: services.event_start(event_id=event_id, by=house))
    table = make_table("league", players=2, start=True)
    refused(WrongPhase, table.event, table.start)


@pytest.mark.django_db
def test_it_lets_only_house_start_the_event():
    """House starts the event: the stock is sized from the checked-in players and locked."""
    table = make_table("league", players=2)
    refused(
        NotAllowed,
        table.event,
        lambda: services.event_start(event_id=table.event.pk, by=table.players[0]),
    )
