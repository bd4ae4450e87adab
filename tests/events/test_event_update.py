"""`event_update`: House edits the draft settings until the start (docs/rules.md section 1.5)."""

from __future__ import annotations

import datetime
from functools import partial

import pytest

from events import services
from events.errors import (
    NotAllowed,
    NotFound,
    RemainderPolicyRequired,
    WrongPhase,
)
from tests.events.support import create_event, last
from tests.factories import make_table, make_user
from tests.refusals import refused


@pytest.mark.django_db
def test_it_refuses_removing_the_remainder_policy_of_an_open_paid_event():
    """House must announce how that remainder will be handled before accepting paid entries."""
    table = make_table("league", contribution=10)
    refused(
        RemainderPolicyRequired,
        table.event,
        lambda: services.event_update(
            event_id=table.event.pk, by=table.house, changes={"remainder_policy": "  "}
        ),
    )


@pytest.mark.django_db
def test_it_refuses_making_an_open_free_event_paid_without_a_policy():
    """The remainder policy is required before registration opens when the contribution is
    above $0."""
    house = make_user("House", staff=True)
    event_id = create_event(house, contribution=0)
    services.registration_open(event_id=event_id, by=house)
    refused(
        RemainderPolicyRequired,
        event_id,
        lambda: services.event_update(event_id=event_id, by=house, changes={"contribution": 5}),
    )


@pytest.mark.django_db
def test_it_lets_house_edit_the_draft_settings_until_the_start():
    """Draft settings: name, venue, date, format, contribution, extra decks, remainder policy."""
    table = make_table("league", players=2, contribution=10)
    changes = {
        "name": "Friday League",
        "venue": "Hall",
        "date": "2026-12-04",
        "contribution": 15,
        "remainder_policy": "Goes to the charity jar.",
    }
    services.event_update(event_id=table.event.pk, by=table.house, changes=changes)
    event = table.refresh()
    assert (event.name, event.venue, event.date, event.contribution) == (
        "Friday League",
        "Hall",
        datetime.date(2026, 12, 4),
        15,
    )
    assert last(event, "event_updated").details["changes"]["contribution"] == [10, 15]
    table.start()
    refused(
        WrongPhase,
        table.event,
        lambda: services.event_update(
            event_id=table.event.pk, by=table.house, changes={"contribution": 20}
        ),
    )


@pytest.mark.django_db
def test_it_lets_only_house_edit_the_settings():
    """A user is House for an event when they are one of its House members: a player of it and
    site staff are refused House's words, a stranger is told the event is not there."""
    table = make_table("league")
    other_staff = make_user("Other staff", staff=True)
    player = make_user("Pia")
    table.register(player)
    for user, expected in (
        (make_user("Pat"), NotFound),
        (player, NotAllowed),
        (other_staff, NotAllowed),
    ):
        refused(
            expected,
            table.event,
            partial(
                services.event_update, event_id=table.event.pk, by=user, changes={"name": "Mine"}
            ),
        )


@pytest.mark.django_db
def test_it_treats_superusers_as_house_everywhere():
    """Superusers are House everywhere."""
    table = make_table("league", players=2)
    root = make_user("Root")
    root.is_superuser = True
    root.save(update_fields=["is_superuser"])
    services.event_start(event_id=table.event.pk, by=root)
    assert table.refresh().phase == "started"
    assert last(table.event, "event_started").actor == "House: Root"
