"""`pool_confirm`: the prize pool, its adjustments and its lock (docs/rules.md section 7.3)."""

from __future__ import annotations

import importlib
from functools import partial

import pytest
from django.db import connection

from audit.writer import timestamp
from events import answers, services
from events.answers import PoolConfirmed
from events.errors import (
    FinalizationBlocked,
    Invalid,
    NotAllowed,
    PoolLocked,
    RegistrationIsClosed,
    WrongState,
)
from events.lifecycle import participants
from events.models import Event, PoolAdjustment
from tests.events.support import last
from tests.factories import make_table, make_user
from tests.refusals import refused


def _confirm(table, adjustments=()) -> answers.PoolConfirmed:
    return services.pool_confirm(event_id=table.event.pk, by=table.house, adjustments=adjustments)


def _closed(players: int = 2, contribution: int = 10):
    table = make_table("league", players=players, start=True, contribution=contribution)
    services.registration_close(event_id=table.event.pk, by=table.house)
    return table


@pytest.mark.django_db
def test_it_grows_the_provisional_pool_as_participants_register():
    """Provisional pool = contribution x participants (registrations not cancelled and not
    no-shows, plus House-added late participants; withdrawals included). The provisional pool
    grows as participants register."""
    table = make_table("league", players=2, contribution=10)
    assert participants(table.event) * table.event.contribution == 20
    waiting, leaving = make_user("Wes"), make_user("Cat")
    table.register(waiting)
    table.register(leaving)
    assert participants(table.event) == 4
    services.registration_cancel(registration_id=table.rid(leaving), by=leaving)
    assert participants(table.event) == 3
    table.start()
    services.registration_close(event_id=table.event.pk, by=table.house)  # Wes: a no-show
    assert participants(table.event) == 2
    services.participant_add(event_id=table.event.pk, by=table.house, player=make_user("Lou"))
    assert participants(table.event) == 3
    assert _confirm(table).base == 30


@pytest.mark.django_db
def test_it_confirms_the_pool_only_after_registration_closes():
    """After registration closes, House confirms the final pool."""
    table = make_table("league", players=2, start=True)
    error = refused(RegistrationIsClosed, table.event, lambda: _confirm(table))
    assert error.status == 409


@pytest.mark.django_db
def test_it_lets_only_house_confirm_the_pool():
    """House confirms the final pool."""
    table = _closed()
    refused(
        NotAllowed,
        table.event,
        lambda: services.pool_confirm(event_id=table.event.pk, by=table.players[0]),
    )


@pytest.mark.django_db
def test_it_confirms_the_base_plus_the_explained_adjustments():
    """The final pool = that base + the sum of adjustments, each a signed whole-dollar amount (a
    refund is negative) with a required explanation."""
    table = _closed(players=3)
    answer = _confirm(table, [(-10, "Refund: Ann left before playing."), (5, "Sponsor")])
    assert answer == PoolConfirmed(event_id=table.event.pk, pool=25, base=30)
    event = table.refresh()
    assert (event.pool_confirmed, event.confirmed_pool) == (True, 25)
    assert list(
        PoolAdjustment.objects.filter(event=event)
        .order_by("id")
        .values_list("amount", "explanation")
    ) == [(-10, "Refund: Ann left before playing."), (5, "Sponsor")]
    entry = last(event, "pool_confirmed")
    assert entry.actor == "House: House"
    assert entry.player is None
    assert entry.details == {
        "pool": 25,
        "base": 30,
        "contribution": 10,
        "participants": 3,
        "adjustments": [
            {"amount": -10, "explanation": "Refund: Ann left before playing."},
            {"amount": 5, "explanation": "Sponsor"},
        ],
    }


@pytest.mark.django_db
def test_it_requires_an_explanation_for_each_adjustment():
    """Any refund adjustment must be explained when confirming the pool."""
    table = _closed()
    for explanation in ("", "   ", None):
        refused(Invalid, table.event, partial(_confirm, table, [(-5, explanation)]))
    refused(Invalid, table.event, lambda: _confirm(table, [(5, "Sponsor"), (-5, "")]))


@pytest.mark.django_db
def test_it_takes_signed_whole_dollar_adjustments_only():
    """Each (adjustment is) a signed whole-dollar amount."""
    table = _closed()
    for amount in (2.5, 0, True, "5", -1.0):
        refused(Invalid, table.event, partial(_confirm, table, [(amount, "Why")]))


@pytest.mark.django_db
def test_it_never_makes_the_pool_negative():
    """The pool is never negative."""
    table = _closed(players=2)  # base $20
    refused(WrongState, table.event, lambda: _confirm(table, [(-21, "Refunds")]))
    refused(WrongState, table.event, lambda: _confirm(table, [(-15, "Refund"), (-6, "Refund")]))
    assert _confirm(table, [(-20, "Everyone refunded")]).pool == 0


@pytest.mark.django_db
def test_it_has_no_adjustments_in_a_free_event():
    """A $0 event has no adjustments. $0 contribution: a free event with no cash pool."""
    table = _closed(contribution=0)
    refused(WrongState, table.event, lambda: _confirm(table, [(5, "Sponsor")]))
    assert _confirm(table) == PoolConfirmed(event_id=table.event.pk, pool=0, base=0)
    assert table.refresh().confirmed_pool == 0


@pytest.mark.django_db
def test_it_locks_the_confirmed_pool():
    """A confirmed pool is locked."""
    table = _closed()
    _confirm(table, [(-5, "Refund")])
    error = refused(PoolLocked, table.event, lambda: _confirm(table, [(5, "Sponsor")]))
    assert error.status == 409
    refused(PoolLocked, table.event, lambda: _confirm(table))


@pytest.mark.django_db
def test_it_unconfirms_the_pool_when_house_adds_a_late_participant():
    """The confirmed pool is locked unless House adds a late participant ... and requires House
    to confirm the revised pool."""
    table = _closed()
    _confirm(table, [(-5, "Refund")])
    services.participant_add(event_id=table.event.pk, by=table.house, player=make_user("Lou"))
    event = table.refresh()
    assert (event.pool_confirmed, event.confirmed_pool) == (False, None)
    assert last(event, "player_checked_in").details["pool_unconfirmed"] is True
    with pytest.raises(FinalizationBlocked) as caught:
        services.event_finalize(event_id=event.pk, by=table.house)
    assert "The pool is not confirmed." in caught.value.message


@pytest.mark.django_db
def test_it_adds_one_contribution_and_keeps_the_adjustments_on_reconfirmation():
    """That adds their contribution, preserves existing adjustments; at a re-confirmation House
    may add adjustments but not change earlier ones."""
    table = _closed()
    _confirm(table, [(-5, "Refund")])
    services.participant_add(event_id=table.event.pk, by=table.house, player=make_user("Lou"))
    answer = _confirm(table, [(3, "Raffle")])
    assert answer == PoolConfirmed(event_id=table.event.pk, pool=30 - 5 + 3, base=30)
    assert last(table.event, "pool_confirmed").details["adjustments"] == [
        {"amount": -5, "explanation": "Refund"},
        {"amount": 3, "explanation": "Raffle"},
    ]
    assert list(
        PoolAdjustment.objects.filter(event=table.event)
        .order_by("id")
        .values_list("amount", flat=True)
    ) == [-5, 3]


@pytest.mark.django_db
def test_it_keeps_earlier_adjustments_when_reconfirming_without_new_ones():
    """A late participant preserves existing adjustments."""
    table = _closed()
    _confirm(table, [(-5, "Refund")])
    services.participant_add(event_id=table.event.pk, by=table.house, player=make_user("Lou"))
    assert _confirm(table).pool == 25
    assert last(table.event, "pool_confirmed").details["adjustments"] == [
        {"amount": -5, "explanation": "Refund"}
    ]


@pytest.mark.django_db
def test_the_event_keeps_when_its_pool_was_first_confirmed():
    """The first confirmation is kept through a late addition and a re-confirmation; events
    confirmed before the field existed get it from their audit's first `pool_confirmed` entry
    (events migration 0006)."""
    table = _closed()
    assert not table.event.pool_was_confirmed
    _confirm(table)
    first = table.refresh().pool_first_confirmed_at
    assert first is not None
    assert timestamp(first) == last(table.event, "pool_confirmed").at  # the same moment
    services.participant_add(event_id=table.event.pk, by=table.house, player=make_user("Lou"))
    assert not table.refresh().pool_confirmed
    assert table.event.pool_first_confirmed_at == first
    _confirm(table)
    assert table.refresh().pool_first_confirmed_at == first

    other = _closed()
    Event.objects.filter(pk=table.event.pk).update(pool_first_confirmed_at=None)
    migration = importlib.import_module("events.migrations.0006_event_pool_first_confirmed_at")
    with connection.cursor() as cursor:
        cursor.execute(migration.BACKFILL)
    assert table.refresh().pool_first_confirmed_at == first
    assert other.refresh().pool_first_confirmed_at is None  # never confirmed
