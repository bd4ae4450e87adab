"""`registration_open`: House opens registration, and the event with it (SPEC section 3)."""

from __future__ import annotations

import pytest

from events import services
from events.errors import (
    PoolLocked,
    WrongState,
)
from events.models import Event
from tests.events.support import (
    create_event,
    last,
    refused,
)
from tests.factories import make_table, make_user


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
    refused(WrongState, event_id, lambda: services.registration_open(event_id=event_id, by=house))
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
        PoolLocked,
        table.event,
        lambda: services.registration_open(event_id=table.event.pk, by=table.house),
    )
    assert error.status == 409
