"""The pool (base, signed adjustments, confirmation) and finalization from the dashboard."""

from __future__ import annotations

import pytest

from events import services
from events.models import PoolAdjustment
from tests.events.support import complete_table, last
from tests.factories import make_table
from tests.house.support import house_client, post, refused_by_page, url
from tests.refusals import said


def closed(table):
    services.registration_close(event_id=table.event.pk, by=table.house)
    return table


@pytest.mark.django_db
def test_it_confirms_the_pool_with_signed_explained_adjustments(client):
    table = closed(make_table("league", players=3, start=True, contribution=10))
    house_client(client, table)
    response = client.post(
        url("pool_confirm", table.event.pk),
        {
            "idempotency_key": "pool-1",
            "amount": ["-10", "", "+5"],
            "explanation": ["Refund: Bob left before his first game", "", "Sponsor"],
        },
    )
    assert response["Location"].endswith("#pool")
    event = table.refresh()
    assert (event.pool_confirmed, event.confirmed_pool) == (True, 25)
    assert list(PoolAdjustment.objects.values_list("amount", "explanation")) == [
        (-10, "Refund: Bob left before his first game"),
        (5, "Sponsor"),
    ]
    assert "Pool confirmed: $25." in said(response)
    assert last(table.event, "pool_confirmed").details["pool"] == 25
    page = client.get(url("dashboard", table.event.pk)).content.decode()
    assert "\u2212$10" in page and "+$5" in page and "$25" in page and "Confirmed" in page


@pytest.mark.django_db
@pytest.mark.parametrize(
    ("amount", "explanation", "message"),
    [
        ("ten", "Refund", "Adjustment 1: the amount is a signed whole number of dollars"),
        ("2.50", "Refund", "Adjustment 1: the amount is a signed whole number of dollars"),
        ("0", "Nothing", "Adjustment 1: an adjustment cannot be $0."),
        ("-5", "", "Adjustment 1: every adjustment needs an explanation."),
        ("-100", "Too much", "The adjustments would make the pool negative (\u2212$70)."),
    ],
)
def test_it_refuses_a_bad_adjustment_and_confirms_nothing(client, amount, explanation, message):
    table = closed(make_table("league", players=3, start=True, contribution=10))
    house_client(client, table)
    refused_by_page(
        client,
        table,
        "pool_confirm",
        table.event.pk,
        amount=amount,
        explanation=explanation,
        message=message,
    )


@pytest.mark.django_db
def test_it_refuses_to_confirm_while_registration_is_open(client):
    table = make_table("league", players=2, start=True)
    house_client(client, table)
    page = client.get(url("dashboard", table.event.pk)).content.decode()
    assert "Close registration before confirming the pool." in page
    refused_by_page(
        client,
        table,
        "pool_confirm",
        table.event.pk,
        message="Close registration before confirming the pool.",
    )


@pytest.mark.django_db
def test_it_refuses_to_finalize_naming_the_blockers(client):
    table = make_table("league", players=2, start=True)
    house_client(client, table)
    label = table.registration(table.players[0]).label
    response = refused_by_page(
        client,
        table,
        "event_finalize",
        table.event.pk,
        message="Finalization is blocked: Registration is still open.",
    )
    assert any(f"{label} has not confirmed the starting selection." in t for t in said(response))


@pytest.mark.django_db
def test_it_finalizes_a_complete_event(client):
    table = complete_table("league", players=2)
    services.pool_confirm(event_id=table.event.pk, by=table.house)
    house_client(client, table)
    page = client.get(url("dashboard", table.event.pk)).content.decode()
    assert "Everything is ready" in page
    response = post(client, "event_finalize", table.event.pk)
    assert table.refresh().phase == "finalized"
    assert "The event is finalized: places and awards are locked." in said(response)
    page = client.get(url("dashboard", table.event.pk)).content.decode()
    assert "The event is final." in page
    assert "Check in" not in page.split('id="checkin"')[1].split("</section>")[0]
    refused_by_page(
        client,
        table,
        "event_finalize",
        table.event.pk,
        message="The event is finalized: nothing can change any more.",
    )
