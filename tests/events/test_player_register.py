"""`player_register`: players register themselves while registration is open
(docs/rules.md sections 1.2 and 9.2)."""

from __future__ import annotations

import datetime

import pytest

from events import services
from events.answers import PlayerRegistered
from events.errors import (
    AlreadyRegistered,
    NotFound,
    RegistrationIsClosed,
)
from events.models import RegistrationStatus
from events.person import commitment
from tests.events.support import last
from tests.factories import make_table, make_user
from tests.refusals import refused


@pytest.mark.django_db
def test_it_lets_players_register_themselves_while_registration_is_open():
    """Players register themselves while registration is open."""
    table = make_table("league")
    ann = make_user("Ann")
    answer = services.player_register(event_id=table.event.pk, by=ann)
    registration = table.registration(ann)
    assert answer == PlayerRegistered(
        registration_id=registration.pk, label="Ann", status=RegistrationStatus.REGISTERED
    )
    assert registration.status == "registered"
    entry = last(table.event, "player_registered")
    person = commitment(registration.person_salt, ann.pk)
    assert (entry.actor, entry.player, entry.details, entry.reason) == (
        "Ann",
        "Ann",
        {"person": person},
        None,
    )
    assert len(registration.person_salt) == 32 and ann.email not in str(entry.details)


@pytest.mark.django_db
def test_it_refuses_self_registration_while_registration_is_closed():
    """Players register themselves while registration is open."""
    table = make_table("league", players=2, start=True)
    services.registration_close(event_id=table.event.pk, by=table.house)
    error = refused(
        RegistrationIsClosed,
        table.event,
        lambda: services.player_register(event_id=table.event.pk, by=make_user("Lou")),
    )
    assert error.status == 409


@pytest.mark.django_db
def test_it_refuses_self_registration_for_a_draft_event():
    """Players register themselves while registration is open (a draft is not open)."""
    house = make_user("House", staff=True)
    event_id = services.event_create(
        by=house, name="Night", date=datetime.date(2026, 12, 3), format="league"
    ).event_id
    ann = make_user("Ann")
    refused(
        (NotFound, RegistrationIsClosed),
        event_id,
        lambda: services.player_register(event_id=event_id, by=ann),
    )


@pytest.mark.django_db
def test_it_refuses_registering_twice():
    """Players register themselves (once)."""
    table = make_table("league")
    ann = make_user("Ann")
    table.register(ann)
    refused(
        AlreadyRegistered,
        table.event,
        lambda: services.player_register(event_id=table.event.pk, by=ann),
    )


@pytest.mark.django_db
def test_it_makes_labels_unique_within_the_event_with_a_suffix():
    """A player's public label is their display name, made unique within the event with a suffix
    (" #2") when needed."""
    table = make_table("league")
    first, second, third = make_user("Ann"), make_user("Ann"), make_user("Ann")
    for player in (first, second, third):
        table.register(player)
    assert [table.registration(p).label for p in (first, second, third)] == [
        "Ann",
        "Ann #2",
        "Ann #3",
    ]
    assert last(table.event, "player_registered").player == "Ann #3"
    other = make_table("league")
    other.register(second)
    assert other.registration(second).label == "Ann"  # unique within the event only
