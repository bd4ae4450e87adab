"""`check_in_all`: House checks in every registered player with one tap, before the start."""

from __future__ import annotations

import json
import threading
from collections.abc import Callable
from functools import partial

import pytest
from django.db import connection

from events import services
from events.errors import DomainError, NotAllowed, WrongPhase, WrongState
from tests.events.support import entries
from tests.factories import make_table, make_user
from tests.refusals import refused


@pytest.mark.django_db
def test_it_checks_in_every_registered_player_in_registration_order():
    table = make_table()
    ann, bob, cat, dan = (make_user(n) for n in ("Ann", "Bob", "Cat", "Dan"))
    for player in (ann, bob, cat, dan):
        table.register(player)
    services.player_check_in(registration_id=table.rid(bob), by=table.house)
    services.registration_cancel(registration_id=table.rid(dan), by=dan)
    answer = services.check_in_all(event_id=table.event.pk, by=table.house)
    assert answer.checked_in == [table.rid(ann), table.rid(cat)]
    orders = {p.display_name: table.registration(p).check_in_order for p in (ann, bob, cat)}
    assert orders == {"Bob": 1, "Ann": 2, "Cat": 3}
    assert table.registration(dan).status == "cancelled"
    written = [e for e in entries(table.event, "player_checked_in")]
    assert [e.player for e in written] == ["Bob", "Ann", "Cat"]
    assert all(e.actor == "House: House" for e in written)
    # Each entry is the one House's one-tap check-in writes.
    assert {json.dumps(e.details, sort_keys=True) for e in written} == {
        json.dumps(
            {"late": False, "added_by_house": False, "pool_unconfirmed": False}, sort_keys=True
        )
    }


@pytest.mark.django_db
def test_it_refuses_when_nobody_is_waiting():
    table = make_table(players=2)
    refused(
        WrongState,
        table.event,
        lambda: services.check_in_all(event_id=table.event.pk, by=table.house),
    )


@pytest.mark.django_db
def test_only_house_checks_everyone_in():
    table = make_table()
    ann = make_user("Ann")
    table.register(ann)
    refused(NotAllowed, table.event, lambda: services.check_in_all(event_id=table.event.pk, by=ann))
    other = make_table()
    refused(
        NotAllowed,
        table.event,
        lambda: services.check_in_all(event_id=table.event.pk, by=other.house),
    )


@pytest.mark.django_db
def test_after_the_start_each_late_entry_is_checked_in_on_its_own():
    table = make_table(players=2, start=True)
    table.register(make_user("Lou"))
    refused(
        WrongPhase,
        table.event,
        lambda: services.check_in_all(event_id=table.event.pk, by=table.house),
    )


@pytest.mark.django_db
def test_a_double_tap_with_the_same_key_checks_in_once():
    table = make_table()
    for name in ("Ann", "Bob"):
        table.register(make_user(name))
    first = services.check_in_all(event_id=table.event.pk, by=table.house, idempotency_key="k")
    count = len(entries(table.event))
    again = services.check_in_all(event_id=table.event.pk, by=table.house, idempotency_key="k")
    assert again == first
    assert len(entries(table.event)) == count


@pytest.mark.django_db(transaction=True)
def test_everyone_at_once_and_a_self_check_in_together_check_each_player_in_once():
    table = make_table()
    code = services.self_check_in_switch(event_id=table.event.pk, by=table.house, enabled=True).code
    assert code is not None
    players = [make_user(f"P{n}") for n in range(6)]
    for player in players:
        table.register(player)
    barrier = threading.Barrier(2)
    codes: list[str] = []

    def run(call: Callable[[], object]) -> None:
        barrier.wait()
        try:
            call()
            codes.append("ok")
        except DomainError as error:
            codes.append(error.code)
        finally:
            connection.close()

    calls = [
        partial(services.check_in_all, event_id=table.event.pk, by=table.house),
        partial(services.self_check_in, event_id=table.event.pk, by=players[3], code=code),
    ]
    threads = [threading.Thread(target=run, args=(call,)) for call in calls]
    for thread in threads:
        thread.start()
    for thread in threads:
        thread.join()
    assert "ok" in codes and set(codes) <= {"ok", "wrong_state"}
    checked = [str(e.player) for e in entries(table.event, "player_checked_in")]
    assert sorted(checked) == sorted(p.display_name for p in players)
    orders = [int(table.registration(p).check_in_order or 0) for p in players]
    assert sorted(orders) == list(range(1, 7))
