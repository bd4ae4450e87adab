"""`POST /payments/stripe/webhook`: the one source that confirms an online payment. Each test pays
through the local Stripe server, which signs and posts its events to the app's live server."""

from __future__ import annotations

import json
import time

import pytest
from django.test import Client
from django.urls import reverse

from audit.models import AuditEntry
from events import services
from events.errors import WrongState
from events.models import Registration, RegistrationStatus
from ledger.lines import ONLINE
from payments.checkout import client
from payments.models import CheckoutSession, PaymentState, StripeEvent
from tests.payments.stripe_server import StripeServer, sign
from tests.payments.support import (
    checkout,
    entry_lines,
    paying_table,
    refund_lines,
    registered,
    state,
)
from tests.refusals import refused, unchanged
from tests.waiting import wait_until

pytestmark = pytest.mark.django_db(transaction=True)


def test_it_records_one_online_entry_line_when_stripe_confirms_the_payment(
    stripe_server: StripeServer,
) -> None:
    table = paying_table()
    player, rid = registered(table)
    session_id = checkout(player, rid)
    created = stripe_server.sessions[session_id]
    assert created["metadata"]["registration_id"] == str(rid)
    assert created["amount_total"] == 1000 and created["currency"] == "usd"
    assert Registration.objects.get(pk=rid).paid is False

    event = stripe_server.pay(session_id)

    assert stripe_server.deliveries[-1].status == 200
    intent = event["data"]["object"]["payment_intent"]
    [line] = entry_lines(table)
    assert (line.method, line.amount, line.note, line.actor) == (ONLINE, 10, intent, "system")
    assert Registration.objects.get(pk=rid).paid is True
    assert state(session_id) == PaymentState.PAID
    assert StripeEvent.objects.filter(event_id=event["id"]).exists()


def test_a_forged_signature_is_refused_and_changes_nothing(stripe_server: StripeServer) -> None:
    table = paying_table()
    player, rid = registered(table)
    session_id = checkout(player, rid)
    event = stripe_server.pay(session_id, deliver=False)
    with unchanged(table.event, "a forged delivery"):
        assert stripe_server.deliver(event, secret="whsec_someone_else") == 400
        assert stripe_server.deliver(event, signature="t=1,v1=00") == 400
        assert stripe_server.deliver(event, signature="") == 400
    assert state(session_id) == PaymentState.OPEN
    assert not StripeEvent.objects.exists()


def test_a_stale_signature_is_refused_and_changes_nothing(stripe_server: StripeServer) -> None:
    table = paying_table()
    player, rid = registered(table)
    session_id = checkout(player, rid)
    event = stripe_server.pay(session_id, deliver=False)
    with unchanged(table.event, "a stale delivery"):
        assert stripe_server.deliver(event, timestamp=int(time.time()) - 301) == 400
    assert state(session_id) == PaymentState.OPEN
    # The same event, signed now, is taken.
    assert stripe_server.deliver(event) == 200
    assert len(entry_lines(table)) == 1


def test_a_body_changed_after_signing_is_refused(stripe_server: StripeServer) -> None:
    table = paying_table()
    player, rid = registered(table)
    event = stripe_server.pay(checkout(player, rid), deliver=False)
    header = sign(json.dumps(event).encode(), stripe_server.webhook_secret)
    event["data"]["object"]["amount_total"] = 1
    with unchanged(table.event, "a changed body"):
        assert stripe_server.deliver(event, signature=header) == 400


def test_the_same_event_delivered_twice_makes_one_line(stripe_server: StripeServer) -> None:
    table = paying_table()
    player, rid = registered(table)
    event = stripe_server.pay(checkout(player, rid))
    with unchanged(table.event, "a repeated delivery"):
        assert stripe_server.deliver(event) == 200
    # Stripe may also send the same payment as another event (a retry with a new id).
    again = stripe_server.event("checkout.session.completed", event["data"]["object"])
    with unchanged(table.event, "the same payment in another event"):
        assert stripe_server.deliver(again) == 200
    assert len(entry_lines(table)) == 1
    assert len(stripe_server.charges) == 1


def test_two_deliveries_at_the_same_instant_make_one_line(stripe_server: StripeServer) -> None:
    table = paying_table()
    player, rid = registered(table)
    event = stripe_server.pay(checkout(player, rid), deliver=False)
    stripe_server.later([event])
    stripe_server.later([event])
    stripe_server.later(
        [stripe_server.event("checkout.session.completed", event["data"]["object"])]
    )
    wait_until(lambda: len(stripe_server.deliveries) == 3, "the three deliveries")
    assert {delivery.status for delivery in stripe_server.deliveries} == {200}
    assert len(entry_lines(table)) == 1


def test_a_refund_event_before_the_payment_changes_nothing_and_the_payment_still_counts(
    stripe_server: StripeServer,
) -> None:
    table = paying_table()
    player, rid = registered(table)
    session_id = checkout(player, rid)
    completed = stripe_server.pay(session_id, deliver=False)
    intent = completed["data"]["object"]["payment_intent"]
    early = stripe_server.event(
        "refund.updated",
        {
            "id": "re_test_early",
            "object": "refund",
            "payment_intent": intent,
            "status": "succeeded",
        },
    )
    with unchanged(table.event, "a refund of a payment not seen yet"):
        assert stripe_server.deliver(early) == 200
    assert stripe_server.deliver(completed) == 200
    assert len(entry_lines(table)) == 1 and refund_lines(table) == []


@pytest.mark.parametrize(
    ("amount", "currency", "why"),
    [
        (500, "usd", "Paid 5.00: the entry is 10.00."),
        (1000, "eur", "Paid in EUR: the entry is in USD."),
    ],
)
def test_a_payment_that_does_not_match_the_entry_is_refunded_and_shown(
    stripe_server: StripeServer, amount: int, currency: str, why: str
) -> None:
    table = paying_table()
    player, rid = registered(table)
    session_id = checkout(player, rid)
    event = stripe_server.pay(session_id, amount=amount, currency=currency)
    intent = event["data"]["object"]["payment_intent"]
    assert entry_lines(table) == []
    assert Registration.objects.get(pk=rid).paid is False
    wait_until(lambda: stripe_server.charged(intent)["refunded"], "Stripe's refund")
    wait_until(lambda: state(session_id) == PaymentState.REFUSED_REFUNDED, "the refund confirmed")
    row = CheckoutSession.objects.get(session_id=session_id)
    assert row.why == why
    refused = AuditEntry.objects.get(event=table.event, action="online_payment_refused")
    assert (refused.actor, refused.reason) == ("system", why)
    assert refused.details == {"payment": intent, "cents": amount, "currency": currency}
    assert refund_lines(table) == []


def test_a_payment_for_a_cancelled_registration_is_refunded_without_a_line(
    stripe_server: StripeServer,
) -> None:
    table = paying_table()
    player, rid = registered(table)
    session_id = checkout(player, rid)
    services.registration_cancel(registration_id=rid, by=player)
    event = stripe_server.pay(session_id)
    intent = event["data"]["object"]["payment_intent"]
    wait_until(lambda: state(session_id) == PaymentState.REFUSED_REFUNDED, "the refund confirmed")
    assert stripe_server.charged(intent)["refunded"]
    assert entry_lines(table) == [] and refund_lines(table) == []
    assert "no place is held" in CheckoutSession.objects.get(session_id=session_id).why


def test_a_second_payment_for_a_paid_entry_is_refunded(stripe_server: StripeServer) -> None:
    table = paying_table()
    player, rid = registered(table)
    first = checkout(player, rid)
    # Two sessions, as when the player opened Checkout on two devices before paying either.
    CheckoutSession.objects.filter(session_id=first).update(expires_at=None)
    second = checkout(player, rid)
    assert second != first
    stripe_server.pay(first)
    stripe_server.pay(second)
    wait_until(lambda: state(second) == PaymentState.REFUSED_REFUNDED, "the second refunded")
    assert len(entry_lines(table)) == 1 and state(first) == PaymentState.PAID
    assert [c["refunded"] for c in stripe_server.charges] == [False, True]


def test_a_payment_for_no_registration_is_refunded_and_kept(stripe_server: StripeServer) -> None:
    table = paying_table()
    player, rid = registered(table)
    session_id = checkout(player, rid)
    stripe_server.sessions[session_id]["metadata"] = {
        "registration_id": "999999",
        "event_id": str(table.event.pk),
    }
    stripe_server.sessions[session_id]["client_reference_id"] = None
    with unchanged(table.event, "a payment for no registration"):
        stripe_server.pay(session_id)
        wait_until(lambda: state(session_id) == PaymentState.REFUSED_REFUNDED, "its refund")
    row = CheckoutSession.objects.get(session_id=session_id)
    assert row.why == "No such registration."


def test_a_payment_for_a_waitlisted_registration_is_refunded_and_shown_to_house(
    stripe_server: StripeServer,
) -> None:
    table = paying_table()
    services.event_update(event_id=table.event.pk, by=table.house, changes={"capacity": 1})
    registered(table, "Holds The Place")
    waiting, rid = registered(table, "Still In Line")
    assert Registration.objects.get(pk=rid).status == RegistrationStatus.WAITLISTED
    refused(WrongState, table.event, lambda: checkout(waiting, rid))
    # A session this app never made for them (an old link, Stripe's dashboard) is paid anyway.
    made = client().v1.checkout.sessions.create(
        {
            "mode": "payment",
            "line_items": [
                {
                    "quantity": 1,
                    "price_data": {
                        "currency": "usd",
                        "unit_amount": 1000,
                        "product_data": {"name": "Entry"},
                    },
                }
            ],
            "metadata": {"registration_id": str(rid), "event_id": str(table.event.pk)},
            "success_url": "https://example.com/",
        }
    )
    intent = stripe_server.pay(made.id)["data"]["object"]["payment_intent"]

    wait_until(lambda: stripe_server.charged(intent)["refunded"], "Stripe's refund")
    wait_until(lambda: state(made.id) == PaymentState.REFUSED_REFUNDED, "the refund confirmed")
    row = CheckoutSession.objects.get(session_id=made.id)
    why = "Still In Line is waitlisted: no place is held."
    assert (row.registration_id, row.event_id, row.why) == (rid, table.event.pk, why)
    assert entry_lines(table) == [] and refund_lines(table) == []
    still = Registration.objects.get(pk=rid)
    assert (still.status, still.paid, still.waitlist_seq) == (
        RegistrationStatus.WAITLISTED,
        False,
        1,
    )
    audited = AuditEntry.objects.get(event=table.event, action="online_payment_refused")
    assert (audited.player, audited.reason) == ("Still In Line", why)
    assert len(stripe_server.refunds) == 1
    house = Client()
    house.force_login(table.house)
    page = house.get(reverse("ledger:night", args=[table.event.pk])).content.decode()
    assert "Still In Line" in page and why in page and "Refused and refunded" in page


def test_refund_events_in_reverse_order_make_one_refund_line(stripe_server: StripeServer) -> None:
    table = paying_table()
    player, rid = registered(table)
    session_id = checkout(player, rid)
    stripe_server.pay(session_id)
    stripe_server.confirm_refunds = False
    services.registration_cancel(registration_id=rid, by=player)
    wait_until(lambda: len(stripe_server.refunds) == 1, "the refund asked of Stripe")
    [refund] = stripe_server.refunds.values()
    charge_refunded, refund_updated = stripe_server.refund_events(refund)
    assert state(session_id) == PaymentState.REFUND_PENDING and refund_lines(table) == []

    assert stripe_server.deliver(refund_updated) == 200
    assert state(session_id) == PaymentState.REFUNDED
    with unchanged(table.event, "the refund's earlier event, delivered last"):
        assert stripe_server.deliver(charge_refunded) == 200
    assert len(refund_lines(table)) == 1 and len(entry_lines(table)) == 1


def test_a_payment_event_delivered_after_its_refund_changes_nothing(
    stripe_server: StripeServer,
) -> None:
    table = paying_table()
    player, rid = registered(table)
    session_id = checkout(player, rid)
    completed = stripe_server.pay(session_id)
    services.registration_cancel(registration_id=rid, by=player)
    wait_until(lambda: state(session_id) == PaymentState.REFUNDED, "the refund confirmed")
    wait_until(lambda: len(stripe_server.deliveries) == 3, "both refund events delivered")
    # Stripe's retry of the payment, and its async success, arrive after the refund.
    late = [
        stripe_server.event("checkout.session.completed", completed["data"]["object"]),
        stripe_server.event(
            "checkout.session.async_payment_succeeded", completed["data"]["object"]
        ),
        completed,
    ]
    with unchanged(table.event, "a payment delivered after its refund"):
        for event in late:
            assert stripe_server.deliver(event) == 200
    assert len(entry_lines(table)) == 1 and len(refund_lines(table)) == 1
    assert state(session_id) == PaymentState.REFUNDED
    assert len(stripe_server.refunds) == 1 and len(stripe_server.charges) == 1
