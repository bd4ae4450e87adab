"""`event_create`: site staff create events in draft, as their House (docs/rules.md sections 1.2
and 1.5)."""

from __future__ import annotations

import pytest

from events.errors import (
    Invalid,
    NotAllowed,
)
from events.models import Event
from tests.events.support import (
    create_event,
    entries,
)
from tests.factories import make_user


@pytest.mark.django_db
def test_it_creates_events_in_draft_with_the_creator_as_house():
    """Site staff create events and appoint each event's House members. Phases: draft -> ..."""
    house = make_user("Hana", staff=True)
    event_id = create_event(house, contribution=5, venue="Barn", remainder_policy="Roll over.")
    event = Event.objects.get(pk=event_id)
    assert event.phase == "draft"
    assert not event.registration_open
    assert [m.user for m in event.staff.all()] == [house]
    created, added = entries(event)
    assert created.action == "event_created"
    assert created.details == {
        "name": "Night",
        "format": "league",
        "contribution": 5,
        "extra_decks": 1,
        "venue": "Barn",
        "date": "2026-12-03",
        "time_zone": "UTC",
    }
    assert created.actor == "House: Hana"
    assert (added.action, added.details) == ("house_member_added", {"member": "Hana"})


@pytest.mark.django_db
def test_it_lets_only_site_staff_create_events():
    """Site staff (Django is_staff) create events."""
    player = make_user("Pat")
    with pytest.raises(NotAllowed):
        create_event(player)
    assert not Event.objects.exists()


@pytest.mark.django_db
def test_it_takes_a_whole_dollar_contribution_of_zero_or_more():
    """Whole-dollar contribution per participant (>= 0, venue fees excluded)."""
    house = make_user("House", staff=True)
    for contribution in (-1, 2.5, True, "10", None):
        with pytest.raises(Invalid):
            create_event(house, contribution=contribution)
    assert not Event.objects.exists()
    create_event(house, contribution=0)
    create_event(house, contribution=25, remainder_policy="Rolls over.")
    assert sorted(Event.objects.values_list("contribution", flat=True)) == [0, 25]
