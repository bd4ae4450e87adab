"""Existing House members keep what they could do (events migration 0009, seasons migration
0002, docs/decisions.md "Roles"): the event's creator, or else its first member, becomes owner,
every other member a director; a series' first member its owner."""

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
