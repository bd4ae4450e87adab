"""`participant_add`: House adds a late participant (docs/rules.md section 9.4)."""

from __future__ import annotations

import pytest

from cards.models import Offer
from events import services
from events.answers import ParticipantAdded
from events.errors import (
    NotAllowed,
)
from tests.events.support import last
from tests.factories import make_table, make_user
from tests.refusals import refused


@pytest.mark.django_db
def test_it_lets_house_add_a_late_participant_after_registration_closed():
    """House may add a late participant after registration closed under the same conditions."""
    table = make_table("league", players=2, start=True)
    services.registration_close(event_id=table.event.pk, by=table.house)
    late = make_user("Lou")
    answer = services.participant_add(event_id=table.event.pk, by=table.house, player=late)
    registration = table.registration(late)
    assert answer == ParticipantAdded(registration_id=registration.pk, label="Lou")
    assert (registration.status, registration.late, registration.added_by_house) == (
        "checked_in",
        True,
        True,
    )
    checked_in = last(table.event, "player_checked_in")
    assert (checked_in.details["late"], checked_in.details["added_by_house"]) == (True, True)
    assert Offer.objects.filter(registration=registration, kind="starting").count() == 1
    assert not table.refresh().registration_open  # adding does not reopen registration


@pytest.mark.django_db
def test_it_lets_only_house_add_a_participant():
    """House controls late registration."""
    table = make_table("league", players=2, start=True)
    refused(
        NotAllowed,
        table.event,
        lambda: services.participant_add(
            event_id=table.event.pk, by=table.players[0], player=make_user("Friend")
        ),
    )


@pytest.mark.django_db
def test_it_lets_house_add_late_participants_after_the_automatic_close():
    """House may still add late participants under the late-entry conditions."""
    table = make_table("switch", players=2, start=True)
    for player in table.players:
        table.choose_start(player)
        table.report(player, 1, "loss")
    assert not table.refresh().registration_open
    late = make_user("Lou")
    services.participant_add(event_id=table.event.pk, by=table.house, player=late)
    assert table.registration(late).status == "checked_in"
    assert table.registration(late).late
