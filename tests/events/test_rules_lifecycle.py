"""SPEC section 3: phases, draft settings, the registration switch and the start."""

from __future__ import annotations

import datetime
from functools import partial
from typing import Any

import pytest

from events import services
from events.errors import (
    Invalid,
    NotAllowed,
    PoolLocked,
    RegistrationClosed,
    WrongPhase,
    WrongState,
)
from events.models import Event
from tests.events.test_rules_support import (
    FAST_HASHERS,
    actions,
    entries,
    last,
    refused,
)
from tests.factories import make_table, make_user


@pytest.fixture(autouse=True)
def _fast_passwords(settings):
    settings.PASSWORD_HASHERS = FAST_HASHERS


def _create(house, **settings_: Any) -> int:
    values: dict[str, Any] = {
        "name": "Night",
        "date": datetime.date(2026, 12, 3),
        "format": "league",
    }
    values.update(settings_)
    return services.event_create(by=house, **values).event_id


@pytest.mark.django_db
def test_it_creates_events_in_draft_with_the_creator_as_house():
    """Site staff create events and appoint each event's House members. Phases: draft -> ..."""
    house = make_user("Hana", staff=True)
    event_id = _create(house, contribution=5, venue="Barn", remainder_policy="Roll over.")
    event = Event.objects.get(pk=event_id)
    assert event.phase == "draft"
    assert not event.registration_open
    assert list(event.house.all()) == [house]
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
        _create(player)
    assert not Event.objects.exists()


@pytest.mark.django_db
def test_it_takes_a_whole_dollar_contribution_of_zero_or_more():
    """Whole-dollar contribution per participant (>= 0, venue fees excluded)."""
    house = make_user("House", staff=True)
    for contribution in (-1, 2.5, True, "10", None):
        with pytest.raises(Invalid):
            _create(house, contribution=contribution)
    assert not Event.objects.exists()
    _create(house, contribution=0)
    _create(house, contribution=25, remainder_policy="Rolls over.")
    assert sorted(Event.objects.values_list("contribution", flat=True)) == [0, 25]


@pytest.mark.django_db
def test_it_opens_a_draft_event_with_its_registration():
    """Registration ... opens with the event."""
    house = make_user("House", staff=True)
    event_id = _create(house, contribution=10, remainder_policy="Rolls into the next event.")
    services.registration_open(event_id=event_id, by=house)
    event = Event.objects.get(pk=event_id)
    assert (event.phase, event.registration_open) == ("open", True)
    opened = last(event, "registration_opened")
    assert opened.details == {"remainder_policy": "Rolls into the next event."}


@pytest.mark.django_db
def test_it_requires_a_remainder_policy_before_registration_opens_for_a_paid_event():
    """Remainder policy text (required before registration opens when the contribution is above
    $0: how an indivisible High remainder will be handled)."""
    house = make_user("House", staff=True)
    event_id = _create(house, contribution=10)
    refused(WrongState, event_id, lambda: services.registration_open(event_id=event_id, by=house))
    assert Event.objects.get(pk=event_id).phase == "draft"


@pytest.mark.django_db
def test_it_opens_a_free_event_without_a_remainder_policy():
    """A contribution of $0 makes an event free with no cash prize pool (no policy needed)."""
    house = make_user("House", staff=True)
    event_id = _create(house, contribution=0)
    services.registration_open(event_id=event_id, by=house)
    assert Event.objects.get(pk=event_id).registration_open


@pytest.mark.django_db
def test_it_refuses_removing_the_remainder_policy_of_an_open_paid_event():
    """House must announce how that remainder will be handled before accepting paid entries."""
    table = make_table("league", contribution=10)
    refused(
        WrongState,
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
    event_id = _create(house, contribution=0)
    services.registration_open(event_id=event_id, by=house)
    refused(
        WrongState,
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
    """A user is House for an event when they are one of its House members."""
    table = make_table("league")
    other_staff = make_user("Other staff", staff=True)
    for user in (make_user("Pat"), other_staff):
        refused(
            NotAllowed,
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


@pytest.mark.django_db
def test_it_lets_site_staff_appoint_house_members():
    """Site staff ... appoint each event's House members."""
    table = make_table("league", players=2)
    member = make_user("Max")
    refused(
        NotAllowed,
        table.event,
        lambda: services.house_member_add(
            event_id=table.event.pk, by=table.players[0], member=member
        ),
    )
    staff = make_user("Sam", staff=True)
    services.house_member_add(event_id=table.event.pk, by=staff, member=member)
    assert last(table.event, "house_member_added").details == {"member": "Max"}
    services.house_member_remove(event_id=table.event.pk, by=staff, member=member)
    assert last(table.event, "house_member_removed").details == {"member": "Max"}
    refused(
        NotAllowed,
        table.event,
        lambda: services.event_start(event_id=table.event.pk, by=member),
    )
    services.house_member_add(event_id=table.event.pk, by=staff, member=member)
    services.event_start(event_id=table.event.pk, by=member)  # House for this event again
    assert table.refresh().phase == "started"


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
    event_id = _create(house)
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


@pytest.mark.django_db
def test_it_keeps_registration_open_after_the_start_until_house_closes_it():
    """Registration ... may stay open after the start for late entries."""
    table = make_table("league", players=2, start=True)
    assert table.event.registration_open
    late = make_user("Lou")
    table.register(late)
    assert table.registration(late).status == "registered"


@pytest.mark.django_db
def test_it_lets_only_house_close_registration():
    """Registration is a separate switch that House controls."""
    table = make_table("league", players=2, start=True)
    refused(
        NotAllowed,
        table.event,
        lambda: services.registration_close(event_id=table.event.pk, by=table.players[0]),
    )
    services.registration_close(event_id=table.event.pk, by=table.house)
    assert not table.refresh().registration_open
    assert last(table.event, "registration_closed").actor == "House: House"
    refused(
        RegistrationClosed,
        table.event,
        lambda: services.registration_close(event_id=table.event.pk, by=table.house),
    )


@pytest.mark.django_db
def test_it_lets_house_reopen_registration_before_the_pool_is_confirmed():
    """Once the pool is confirmed, reopening registration is refused (before, House may)."""
    table = make_table("league", players=2, start=True)
    services.registration_close(event_id=table.event.pk, by=table.house)
    services.registration_open(event_id=table.event.pk, by=table.house)
    assert table.refresh().registration_open
    assert table.event.phase == "started"


@pytest.mark.django_db
def test_it_refuses_reopening_registration_after_the_pool_is_confirmed():
    """Once the pool is confirmed, reopening registration is refused."""
    table = make_table("league", players=2, start=True)
    services.registration_close(event_id=table.event.pk, by=table.house)
    services.pool_confirm(event_id=table.event.pk, by=table.house)
    error = refused(
        PoolLocked,
        table.event,
        lambda: services.registration_open(event_id=table.event.pk, by=table.house),
    )
    assert error.status == 409


@pytest.mark.django_db
def test_it_makes_never_checked_in_registrations_no_shows_when_registration_closes():
    """Registrations never checked in when registration closes become no-shows: not
    participants, not in the pool."""
    table = make_table("league", players=2, contribution=10)
    absent = make_user("Abe")
    table.register(absent)
    table.start()
    services.registration_close(event_id=table.event.pk, by=table.house)
    assert table.registration(absent).status == "no_show"
    assert last(table.event, "registration_closed").details == {"no_shows": ["Abe"]}
    answer = services.pool_confirm(event_id=table.event.pk, by=table.house)
    assert (answer.base, answer.pool) == (20, 20)


@pytest.mark.django_db
def test_it_records_every_lifecycle_step_in_the_audit():
    """Every state change writes one audit entry in the same database transaction."""
    table = make_table("league", players=2, start=True)
    assert actions(table.event) == [
        "event_created",
        "house_member_added",
        "registration_opened",
        "player_registered",
        "player_checked_in",
        "player_registered",
        "player_checked_in",
        "event_started",
        "starting_offer_dealt",
        "starting_offer_dealt",
    ]
