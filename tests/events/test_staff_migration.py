"""Existing House members keep what they could do (events migration 0009, seasons migration
0002, docs/decisions.md "Roles"): the event's creator, or else its first member, becomes owner,
every other member a director; a series' first member its owner; an event of a series is left
owned by the series' owner (seasons migration 0004, "An event's owner in a series")."""

from __future__ import annotations

import importlib

import pytest
from django.apps import apps

from events import services
from events.models import EventStaff
from seasons import services as seasons
from seasons.models import SeriesStaff
from tests.factories import make_table, make_user

pytestmark = pytest.mark.django_db

events_0009 = importlib.import_module("events.migrations.0009_event_staff_roles")
seasons_0002 = importlib.import_module("seasons.migrations.0002_series_staff_roles")


def test_the_creator_becomes_owner_and_every_other_member_a_director() -> None:
    table = make_table()
    event = table.event
    first = make_user("First")
    # As the members stood before roles: the creator appointed after another member's row.
    EventStaff.objects.filter(event=event).delete()
    event.house.add(first)
    event.house.add(table.house)
    services.house_member_add(event_id=event.pk, by=make_user("Site", staff=True), member=first)
    EventStaff.objects.filter(event=event).update(role="director")
    another = make_table().event
    EventStaff.objects.filter(event=another).update(role="director")

    events_0009.owners_first(apps, None)

    roles = dict(EventStaff.objects.filter(event=event).values_list("user", "role"))
    assert roles == {table.house.pk: "owner", first.pk: "director"}
    assert EventStaff.objects.get(event=another).role == "owner"


def test_a_series_first_member_becomes_its_owner() -> None:
    site = make_user("Site", staff=True)
    other = make_user("Other")
    series_id = seasons.series_create(by=site, name="Thursday League").series_id
    seasons.series_house_add(series_id=series_id, by=site, member=other)
    SeriesStaff.objects.filter(series_id=series_id).update(role="director")

    seasons_0002.owners_first(apps, None)

    assert dict(SeriesStaff.objects.filter(series_id=series_id).values_list("user", "role")) == {
        site.pk: "owner",
        other.pk: "director",
    }


seasons_0006 = importlib.import_module("seasons.migrations.0006_series_events_owned_by_the_series")


def test_an_event_of_a_series_is_left_owned_by_the_series_owner() -> None:
    site = make_user("Site", staff=True)
    series_id = seasons.series_create(by=site, name="Thursday League").series_id
    own_owner = make_table()  # owned by its creator, who is not the series' owner
    by_series_owner = make_table()
    outside = make_table()  # in no series: keeps its owner
    for table in (own_owner, by_series_owner):
        table.event.series_id = series_id
        table.event.save(update_fields=["series"])
    # As the rows stood before: an owner row of the event's own, the series' owner's in one.
    EventStaff.objects.filter(event=by_series_owner.event).update(user=site)

    seasons_0006.owned_by_the_series(apps, None)

    assert dict(EventStaff.objects.filter(event=own_owner.event).values_list("user", "role")) == {
        own_owner.house.pk: "director"
    }
    assert not EventStaff.objects.filter(event=by_series_owner.event).exists()
    assert EventStaff.objects.get(event=outside.event).role == "owner"
