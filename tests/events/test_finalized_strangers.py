"""A registration of a finalized event that is neither the actor's own nor in an event where
they hold a role answers as a missing one does, as in every other phase (events/runner.py): a
stranger is not told first that the event is finalized and the registration is there. Its own
player and its House are still told the event is finalized."""

from __future__ import annotations

import functools
from collections.abc import Callable

import pytest

from accounts.models import User
from events import services
from events.errors import EventIsFinalized, NotFound
from events.models import Registration
from events.simulation import Simulation
from tests.factories import make_user
from tests.refusals import refused

pytestmark = pytest.mark.django_db

CHANGES: dict[str, Callable[[int, User], object]] = {
    "player_check_in": lambda rid, by: services.player_check_in(registration_id=rid, by=by),
    "check_in_undo": lambda rid, by: services.check_in_undo(registration_id=rid, by=by),
    "registration_cancel": lambda rid, by: services.registration_cancel(registration_id=rid, by=by),
    "player_withdraw": lambda rid, by: services.player_withdraw(
        registration_id=rid, by=by, reason="Left"
    ),
    "access_reset": lambda rid, by: services.access_reset(
        registration_id=rid, by=by, reason="Lost phone"
    ),
}


@pytest.fixture
def finalized() -> tuple[int, User, Registration]:
    house = make_user("House", staff=True)
    event_id = int(Simulation(format="league", players=4, seed=3, house=house).run()["event_id"])
    registration = Registration.objects.filter(event_id=event_id).order_by("pk").first()
    assert registration is not None
    return event_id, house, registration


@pytest.mark.parametrize("change", sorted(CHANGES))
def test_a_stranger_is_told_the_registration_is_not_found(
    finalized: tuple[int, User, Registration], change: str
) -> None:
    event_id, _house, registration = finalized
    for stranger in (make_user("Stranger"), make_user("Site staff", staff=True)):
        error = refused(
            NotFound, event_id, functools.partial(CHANGES[change], registration.pk, stranger)
        )
        assert error.message == "No such registration."


@pytest.mark.parametrize("change", ["player_withdraw", "registration_cancel"])
def test_its_own_player_is_told_the_event_is_finalized(
    finalized: tuple[int, User, Registration], change: str
) -> None:
    event_id, _house, registration = finalized
    player = registration.player
    assert player is not None
    refused(EventIsFinalized, event_id, lambda: CHANGES[change](registration.pk, player))


@pytest.mark.parametrize("change", sorted(CHANGES))
def test_its_house_is_told_the_event_is_finalized(
    finalized: tuple[int, User, Registration], change: str
) -> None:
    event_id, house, registration = finalized
    refused(EventIsFinalized, event_id, lambda: CHANGES[change](registration.pk, house))
