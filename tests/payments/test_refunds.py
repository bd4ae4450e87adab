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
from tests.factories import Table
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


def _paid_then_withdrawn(stripe_server: StripeServer, refund_policy: str) -> tuple[Table, str, str]:
    """A player pays online, is checked in, and withdraws after the start: the table, the
    Checkout Session and the payment."""
    table = paying_table(refund_policy=refund_policy)
    player, rid = registered(table, "Leaves Early")
    session_id = checkout(player, rid)
    intent = stripe_server.pay(session_id)["data"]["object"]["payment_intent"]
    assert Registration.objects.get(pk=rid).paid
    table.check_in(player)
    table.join("Stays On")
    table.start()
    services.player_withdraw(registration_id=rid, by=player)
    return table, session_id, intent


def test_a_withdrawal_after_the_start_is_refunded_where_the_policy_refunds_withdrawals(
    stripe_server: StripeServer,
) -> None:
    table, session_id, intent = _paid_then_withdrawn(stripe_server, "withdrawals")

    wait_until(lambda: stripe_server.charged(intent)["refunded"], "the refund asked of Stripe")
    wait_until(lambda: state(session_id) == PaymentState.REFUNDED, "the refund confirmed")
    wait_until(lambda: len(stripe_server.deliveries) == 3, "both refund events delivered")
    [line] = refund_lines(table)
    assert (line.method, line.amount, line.actor, line.player) == (
        ONLINE,
        10,
        "system",
        "Leaves Early",
    )
    assert intent in line.note
    requested = AuditEntry.objects.get(event=table.event, action="online_refund_requested")
    assert requested.details == {"payment": intent, "cents": 1000, "grounds": "withdrawal"}
    assert len(stripe_server.refunds) == 1 and len(entry_lines(table)) == 1


def test_a_withdrawal_is_not_refunded_where_the_policy_refunds_cancellations_only(
    stripe_server: StripeServer,
) -> None:
    table, session_id, intent = _paid_then_withdrawn(stripe_server, "cancellations")
    # The refund is decided by a task after the withdrawal's commit (inline in the tests).
    assert tasks.refund_leaving(table.rid(table.players[0]), "withdrawn") is False
    assert state(session_id) == PaymentState.PAID
    assert stripe_server.refunds == {} and not stripe_server.charged(intent)["refunded"]
    assert refund_lines(table) == []
    assert not AuditEntry.objects.filter(action="online_refund_requested").exists()
