"""Entry modes: paid entry (the pool is the contributions) or free entry with a sponsored pool
House states; the 80/20 split and every rule stay the same, and the audit still verifies."""

from __future__ import annotations

import pytest
from django.test import Client
from django.urls import reverse

from audit.export import audit_document
from audit.verify import verify
from events import services
from events.errors import AgeNotConfirmed, Invalid, WrongPhase, WrongState
from events.models import Event, Registration
from events.reads.common import pool_summary
from ledger import services as ledger
from ledger.cash_box import cash_box
from tests.events.support import complete_table, create_event, last
from tests.factories import make_user
from tests.refusals import refused, refused_by_page

pytestmark = pytest.mark.django_db


def sponsored(table_event: Event, amount: int) -> None:
    membership = table_event.staff.select_related("user").first()
    assert membership is not None
    services.event_update(
        event_id=table_event.pk,
        by=membership.user,
        changes={"contribution": 0, "entry_mode": "sponsored", "sponsored_pool": amount},
    )


def test_a_free_entry_event_splits_the_sponsored_pool_80_20_and_verifies():
    table = complete_table("switch", players=3, contribution=0)
    event = table.refresh()
    Event.objects.filter(pk=event.pk).update(entry_mode="sponsored", sponsored_pool=500)
    event = table.refresh()
    summary = pool_summary(event)
    assert (summary.base, summary.sponsored, summary.pool) == (500, 500, 500)
    answer = services.pool_confirm(event_id=event.pk, by=table.house)
    assert (answer.pool, answer.base) == (500, 500)
    assert last(event, "pool_confirmed").details["sponsored"] == 500
    services.event_finalize(event_id=event.pk, by=table.house)
    awards = [award or 0 for award in table.refresh().registrations.values_list("award", flat=True)]
    assert sum(awards) + (table.event.unallocated or 0) == 500
    verdict = verify(audit_document(table.event))
    assert verdict.ok, verdict.problem
    assert any("the $500 sponsored pool" in line for line in verdict.checked)
    # The sponsor's money is a line of the ledger: until it is recorded, the difference names it.
    box = cash_box(table.event)
    assert (box.ledger_pool, box.pool, box.difference) == (0, 500, -500)
    assert [(d.what, d.amount) for d in box.differences] == [
        ("sponsor's money not yet recorded", -500)
    ]
    ledger.sponsor_payment(event_id=event.pk, by=table.house, amount=500, method="cash")
    box = cash_box(table.event)
    assert (box.ledger_pool, box.pool, box.difference) == (500, 500, 0)
    assert verify(audit_document(table.event)).ok


def test_a_free_entry_event_takes_no_entry_payment():
    house = make_user("House", staff=True)
    event_id = create_event(house, entry_mode="sponsored", sponsored_pool=300)
    event = Event.objects.get(pk=event_id)
    assert (event.entry_mode, event.sponsored_pool, event.contribution) == ("sponsored", 300, 0)
    created = last(event, "event_created").details
    assert (created["entry_mode"], created["sponsored_pool"]) == ("sponsored", 300)
    services.registration_open(event_id=event_id, by=house)
    player = make_user("Ann")
    registration_id = services.player_register(event_id=event_id, by=player).registration_id
    refused(
        WrongState,
        event_id,
        lambda: ledger.entry_payment(
            event_id=event_id, registration_id=registration_id, by=house, method="cash"
        ),
    )


def test_the_modes_fund_the_pool_one_way_only():
    house = make_user("House", staff=True)
    with pytest.raises(WrongState):
        create_event(house, entry_mode="sponsored", contribution=10, sponsored_pool=100)
    with pytest.raises(WrongState):
        create_event(house, entry_mode="paid", contribution=10, sponsored_pool=100)
    with pytest.raises(Invalid):
        create_event(house, entry_mode="raffle")
    event_id = create_event(house)
    refused(
        WrongState,
        event_id,
        lambda: services.event_update(
            event_id=event_id, by=house, changes={"entry_mode": "sponsored", "contribution": 5}
        ),
    )


def test_the_sponsored_pool_cannot_change_after_the_start():
    table = complete_table("switch", players=2, contribution=0)
    refused(
        WrongPhase,
        table.event,
        lambda: services.event_update(
            event_id=table.event.pk,
            by=table.house,
            changes={"entry_mode": "sponsored", "sponsored_pool": 300},
        ),
    )


def test_an_event_for_players_of_age_asks_them_to_confirm_it():
    house = make_user("House", staff=True)
    event_id = create_event(house, minimum_age=21)
    services.registration_open(event_id=event_id, by=house)
    ann = make_user("Ann")
    refused(
        AgeNotConfirmed,
        event_id,
        lambda: services.player_register(event_id=event_id, by=ann),
    )
    registration_id = services.player_register(
        event_id=event_id, by=ann, age_confirmed=True
    ).registration_id
    assert Registration.objects.get(pk=registration_id).age_confirmed
    assert last(event_id, "player_registered").details["age_confirmed"] == 21
    with pytest.raises(Invalid):
        create_event(house, minimum_age=120)


def test_the_register_page_asks_for_the_age_and_refuses_without_it():
    house = make_user("House", staff=True)
    event_id = create_event(house, minimum_age=21)
    services.registration_open(event_id=event_id, by=house)
    ann = make_user("Ann")
    client = Client()
    client.force_login(ann)
    page = client.get(reverse("web:event", kwargs={"event_id": event_id})).content.decode()
    assert 'name="age_confirmed"' in page and "I am 21 or over" in page
    url = reverse("web:register", kwargs={"event_id": event_id})
    refused_by_page(
        lambda: client.post(url, {"idempotency_key": "k1"}),
        event_id,
        message="This event is for players aged 21 or over: confirm your age to register.",
    )
    client.post(url, {"idempotency_key": "k2", "age_confirmed": "1"})
    assert Registration.objects.get(event_id=event_id, player=ann).age_confirmed
