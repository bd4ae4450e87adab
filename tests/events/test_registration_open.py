"""`registration_open`: House opens registration, and the event with it (docs/decisions.md,
Events and House); when it may not (`events.registration_switch`)."""

from __future__ import annotations

import pytest

from events import services
from events.errors import (
    RegistrationCannotReopen,
    RegistrationIsClosed,
    RemainderPolicyRequired,
)
from events.models import Event
from tests.events.support import create_event, last
from tests.factories import make_table, make_user
from tests.refusals import refused


@pytest.mark.django_db
def test_it_opens_a_draft_event_with_its_registration():
    """Registration ... opens with the event."""
    house = make_user("House", staff=True)
    event_id = create_event(house, contribution=10, remainder_policy="Rolls into the next event.")
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
    event_id = create_event(house, contribution=10)
    error = refused(
        RemainderPolicyRequired,
        event_id,
        lambda: services.registration_open(event_id=event_id, by=house),
    )
    assert "Registration cannot open" in error.message
    assert "remainder policy" in error.message
    assert Event.objects.get(pk=event_id).phase == "draft"


@pytest.mark.django_db
def test_it_opens_a_free_event_without_a_remainder_policy():
    """A contribution of $0 makes an event free with no cash prize pool (no policy needed)."""
    house = make_user("House", staff=True)
    event_id = create_event(house, contribution=0)
    services.registration_open(event_id=event_id, by=house)
    assert Event.objects.get(pk=event_id).registration_open


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
        RegistrationCannotReopen,
        table.event,
        lambda: services.registration_open(event_id=table.event.pk, by=table.house),
    )
    assert error.status == 409


@pytest.mark.django_db
def test_registration_cannot_reopen_once_the_pool_has_been_confirmed():
    """Once the pool has been confirmed, reopening registration is refused, also after a late
    addition has made the pool provisional again: only House adding a late participant changes
    a confirmed pool, never a walk-in."""
    table = make_table("league", players=2, start=True)
    services.registration_close(event_id=table.event.pk, by=table.house)
    services.pool_confirm(event_id=table.event.pk, by=table.house)
    first_confirmed = table.refresh().pool_first_confirmed_at
    assert first_confirmed is not None
    late = make_user("Lou")
    services.participant_add(event_id=table.event.pk, by=table.house, player=late)
    event = table.refresh()
    assert not event.pool_confirmed  # provisional again
    assert event.pool_was_confirmed
    error = refused(
        RegistrationCannotReopen,
        table.event,
        lambda: services.registration_open(event_id=table.event.pk, by=table.house),
    )
    assert error.code == "registration_cannot_reopen"
    assert error.status == 409
    assert "The pool has been confirmed" in error.message
    walk_in = make_user("Wes")
    refused(
        RegistrationIsClosed,
        table.event,
        lambda: services.player_register(event_id=table.event.pk, by=walk_in),
    )
    # Confirming again keeps the first confirmation's time.
    services.pool_confirm(event_id=table.event.pk, by=table.house)
    assert table.refresh().pool_first_confirmed_at == first_confirmed
    refused(
        RegistrationCannotReopen,
        table.event,
        lambda: services.registration_open(event_id=table.event.pk, by=table.house),
    )
