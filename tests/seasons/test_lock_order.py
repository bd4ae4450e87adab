"""One lock order everywhere (docs/decisions.md, "One lock order"): a series before its events,
an account's row never held against them. Changes of an event and of its series made at the same
moment by real threads on PostgreSQL wait for each other and never deadlock: each answers, or is
refused in plain words."""

from __future__ import annotations

import uuid
from functools import partial
from typing import Any

import pytest

from events import services as events
from events.answers import Answer
from events.errors import DomainError
from events.models import Event
from seasons import services
from seasons.answers import EventSeriesSet
from seasons.models import Series, series_id_of
from staff.scopes import Scope
from tests.events.test_concurrency import at_once
from tests.factories import make_table, make_user

pytestmark = pytest.mark.django_db(transaction=True)

ROUNDS = 12


@pytest.fixture(autouse=True)
def _settings(settings: Any) -> None:
    settings.LIVE_UPDATES = "off"  # as tests/events/test_concurrency.py: no reader at teardown


def key() -> str:
    return uuid.uuid4().hex


def test_moving_an_event_into_a_series_while_it_changes_never_deadlocks() -> None:
    table = make_table(players=0)
    house = table.house
    series_id = services.series_create(by=house, name="Thursday League").series_id
    problems: list[BaseException] = []
    for round_ in range(ROUNDS):
        event_id = events.event_create(
            by=house, name=f"Night {round_}", date=table.event.date, format="league"
        ).event_id
        outcomes = at_once(
            [
                partial(
                    services.event_series_set,
                    event_id=event_id,
                    series_id=series_id,
                    by=house,
                    idempotency_key=key(),
                ),
                partial(
                    events.event_update,
                    event_id=event_id,
                    by=house,
                    changes={"venue": f"Hall {round_}"},
                    idempotency_key=key(),
                ),
                partial(
                    events.house_member_add,
                    scope=Scope(Event, event_id),
                    by=house,
                    member=make_user(),
                    idempotency_key=key(),
                ),
            ]
        )
        problems += [o for o in outcomes if not isinstance(o, (Answer, DomainError))]
        assert isinstance(outcomes[0], EventSeriesSet), outcomes[0]
        assert series_id_of(event_id) == series_id
    assert problems == []


def test_removal_from_a_series_while_its_events_change_never_deadlocks() -> None:
    table = make_table(players=0)
    house = table.house
    series_id = services.series_create(by=house, name="Thursday League").series_id
    night_ids = [
        events.event_create(
            by=house, name=f"Night {n}", date=table.event.date, format="league"
        ).event_id
        for n in range(2)
    ]
    for event_id in night_ids:
        services.event_series_set(event_id=event_id, series_id=series_id, by=house)
    problems: list[BaseException] = []
    for _ in range(ROUNDS):
        member = make_user()
        events.house_member_add(scope=Scope(Series, series_id), by=house, member=member)
        for event_id in night_ids:
            events.house_member_add(
                scope=Scope(Event, event_id), by=house, member=member, role="cashier"
            )
        outcomes = at_once(
            [
                partial(
                    events.house_member_remove,
                    scope=Scope(Series, series_id),
                    by=house,
                    member=member,
                    idempotency_key=key(),
                ),
                *[
                    partial(
                        events.event_update,
                        event_id=event_id,
                        by=house,
                        changes={"venue": key()[:8]},
                        idempotency_key=key(),
                    )
                    for event_id in reversed(night_ids)
                ],
                partial(
                    services.event_series_set,
                    event_id=night_ids[0],
                    series_id=series_id,
                    by=house,
                    idempotency_key=key(),
                ),
            ]
        )
        problems += [o for o in outcomes if not isinstance(o, (Answer, DomainError))]
        assert not Event.objects.filter(pk__in=night_ids, staff__user=member).exists()
    assert problems == []
