"""A player who paid online and gives up their place is refunded through Stripe where the refund
policy allows; the refund line is written when Stripe's webhook confirms the refund, once."""

from __future__ import annotations

import pytest

from audit.models import AuditEntry
from events import services
from events.models import Registration
from ledger.lines import ONLINE
from payments import tasks
from payments.models import CheckoutSession, PaymentState
from tests.payments.stripe_server import StripeServer
from tests.payments.support import (
    checkout,
    entry_lines,
    paying_table,
    refund_lines,
    registered,
    state,
)
from tests.waiting import wait_until

pytestmark = pytest.mark.django_db(transaction=True)


def test_a_cancellation_within_the_policy_is_refunded_when_stripe_confirms_it(
    stripe_server: StripeServer,
) -> None:
    table = paying_table(refund_policy="cancellations")
    player, rid = registered(table)
    session_id = checkout(player, rid)
    intent = stripe_server.pay(session_id)["data"]["object"]["payment_intent"]
    assert Registration.objects.get(pk=rid).paid

    services.registration_cancel(registration_id=rid, by=player)

    wait_until(lambda: stripe_server.charged(intent)["refunded"], "the refund asked of Stripe")
    wait_until(lambda: state(session_id) == PaymentState.REFUNDED, "the refund confirmed")
    wait_until(lambda: len(stripe_server.deliveries) == 3, "both refund events delivered")
    [line] = refund_lines(table)
    assert (line.method, line.amount, line.actor) == (ONLINE, 10, "system")
    assert intent in line.note
    assert len(entry_lines(table)) == 1
    assert not Registration.objects.get(pk=rid).paid
    requested = AuditEntry.objects.get(event=table.event, action="online_refund_requested")
    assert requested.details == {"payment": intent, "cents": 1000, "grounds": "cancellation"}
    # Stripe took one refund request, whatever was asked again.
    assert tasks.send_refund(CheckoutSession.objects.get(session_id=session_id).pk) is False
    assert len(stripe_server.refunds) == 1


def test_a_refund_confirmed_twice_makes_one_line(stripe_server: StripeServer) -> None:
    table = paying_table()
    player, rid = registered(table)
    session_id = checkout(player, rid)
    stripe_server.pay(session_id)
    services.registration_cancel(registration_id=rid, by=player)
    wait_until(lambda: len(stripe_server.deliveries) == 3, "both refund events delivered")
    for delivery in stripe_server.deliveries[1:]:
        assert stripe_server.deliver(delivery.event) == 200
    assert len(refund_lines(table)) == 1


def test_a_policy_without_refunds_keeps_the_payment(stripe_server: StripeServer) -> None:
    table = paying_table(refund_policy="none")
    player, rid = registered(table)
    session_id = checkout(player, rid)
    stripe_server.pay(session_id)
    services.registration_cancel(registration_id=rid, by=player)
    assert state(session_id) == PaymentState.PAID
    assert stripe_server.refunds == {}
    assert refund_lines(table) == []
    assert not AuditEntry.objects.filter(action="online_refund_requested").exists()
