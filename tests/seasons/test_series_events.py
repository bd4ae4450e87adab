"""House of a series makes its events ("Next event", the championship) without being site staff:
the event is the series', its owner is the series' owner, and the creator acts in their series
role (docs/decisions.md, "Roles")."""

from __future__ import annotations

import datetime

import pytest

from audit.models import AuditEntry
from events import services as events
from events.errors import NotAllowed, NotFound
from events.models import Event
from events.runner import roles_of
from seasons import services
from seasons.models import Series, series_id_of
from staff.models import Membership
from staff.scopes import Scope
from tests.factories import make_user
from tests.refusals import refused
from tests.seasons.test_series_staff import make_crew

pytestmark = pytest.mark.django_db


def test_a_director_of_the_series_who_is_not_site_staff_makes_the_next_event() -> None:
    crew = make_crew()
    director = make_user("Dana")  # not site staff
    events.house_member_add(
        scope=Scope(Series, crew.series_id),
        by=crew.people["owner"],
        member=director,
        role="director",
    )
    made = services.series_next_event(series_id=crew.series_id, by=director)
    event = Event.objects.get(pk=made.event_id)
    assert series_id_of(event.pk) == crew.series_id and event.phase == "draft"
    # The series' owner owns it, through the series: the event has no staff of its own.
    assert not Membership.objects.filter(event=event).exists()
    assert roles_of(crew.people["owner"], event.pk) == {"owner"}
    created = AuditEntry.objects.get(event=event, action="event_created")
    assert created.actor_kind == "house" and created.actor_role == "director"
    # As a director, no staff changes in it: that is the owner's.
    refused(
        NotAllowed,
        event,
        lambda: events.house_member_add(
            scope=Scope.of(event), by=director, member=make_user("Friend"), role="scorer"
        ),
    )
    # Everything else a director does: the settings until it starts.
    events.event_update(event_id=event.pk, by=director, changes={"venue": "The Dock"})


@pytest.mark.parametrize("role", ["cashier", "scorer", "player", "outsider"])
def test_anyone_else_is_refused_and_no_event_is_made(role: str) -> None:
    crew = make_crew()
    before = Event.objects.count()
    by = crew.people[role]
    # A stranger to the series is told it is not there; its staff and players, House's words.
    refusal = NotFound if role == "outsider" else NotAllowed
    with pytest.raises(refusal):
        services.series_next_event(series_id=crew.series_id, by=by)
    with pytest.raises(refusal):
        events.event_create(
            by=by,
            name="Mine",
            date=datetime.date(2026, 12, 10),
            format="league",
            scope_above_id=crew.series_id,
        )
    assert Event.objects.count() == before
