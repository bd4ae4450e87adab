"""The ledger's services: entries paid in cash, by card, online and comped; refunds under the
event's policy; payouts of finalized awards; each line an audit entry, each refusal changing
nothing."""

from __future__ import annotations

from functools import partial

import pytest

from accounts.models import User
from events import services
from events.errors import (
    Invalid,
    NotFound,
    PayoutExceedsAward,
    ReasonRequired,
    RefundExceedsPayment,
    RefundNotInPolicy,
    WrongCashBox,
    WrongPhase,
    WrongState,
)
from events.models import Event, RefundPolicy
from ledger import services as ledger
from ledger.cash_box import cash_box
from ledger.lines import lines_of
from tests.events.support import finalized_table, last
from tests.factories import Table, make_table, make_user
from tests.refusals import refused

pytestmark = pytest.mark.django_db


def pay(table: Table, player: User, method: str, **extra: str) -> None:
    ledger.entry_payment(
        event_id=table.event.pk,
        registration_id=table.rid(player),
        by=table.house,
        method=method,
        **extra,
    )


def test_entries_in_cash_by_card_online_and_comped_are_lines_of_the_audit():
    table = make_table(players=4, contribution=20)
    ann, bob, cy, di = table.players
    pay(table, ann, "cash")
    pay(table, bob, "card")
    pay(table, cy, "online", reference="stripe pi_123")
    pay(table, di, "comp", reason="Sponsor's guest")
    entry = last(table.event, "entry_paid")
    assert (entry.player, entry.reason, entry.actor_kind) == (
        di.display_name,
        "Sponsor's guest",
        "house",
    )
    assert entry.details == {"version": 1, "method": "comp", "amount": 0, "waived": 20}
    online = [line for line in lines_of(table.refresh()) if line.method == "online"]
    assert online[0].note == "stripe pi_123"
    assert all(table.registration(p).paid for p in table.players)
    box = cash_box(table.refresh())
    assert (box.cash_in, box.card_in, box.online_in, box.comps, box.comped) == (20, 20, 20, 1, 20)
    assert box.expected_cash == 20
    assert box.ledger_pool == 60 and box.pool == 80
    assert box.difference == -20
    assert [(d.what, d.amount) for d in box.differences] == [("1 comped entry", -20)]


def test_the_paid_toggle_is_a_cash_line_and_unmarking_voids_the_last_entry():
    table = make_table(players=2, contribution=15)
    ann, bob = table.players
    services.payment_mark(registration_id=table.rid(ann), by=table.house, paid=True)
    pay(table, bob, "card")
    assert (cash_box(table.refresh()).cash_in, cash_box(table.event).card_in) == (15, 15)
    services.payment_mark(registration_id=table.rid(bob), by=table.house, paid=False)
    box = cash_box(table.refresh())
    assert (box.cash_in, box.card_in, box.expected_cash) == (15, 0, 15)
    assert [(d.what, d.amount) for d in box.differences] == [
        ("1 participant with no entry line", -15)
    ]
    pay(table, bob, "cash")
    assert cash_box(table.refresh()).expected_cash == 30


def test_an_entry_needs_its_reference_or_reason_once_and_a_paid_event():
    table = make_table(players=1, contribution=10)
    (ann,) = table.players
    refused(Invalid, table.event, lambda: pay(table, ann, "online"))
    refused(ReasonRequired, table.event, lambda: pay(table, ann, "comp", reason="  "))
    refused(Invalid, table.event, lambda: pay(table, ann, "cheque"))
    pay(table, ann, "cash")
    refused(WrongState, table.event, lambda: pay(table, ann, "card"))
    free = make_table(players=1, contribution=0)
    refused(WrongState, free.event, lambda: pay(free, free.players[0], "cash"))


def test_players_and_other_house_cannot_write_lines():
    table = make_table(players=2, contribution=10)
    ann, bob = table.players
    for who in (ann, make_table().house):
        refused(
            NotFound,
            table.event,
            partial(
                ledger.entry_payment,
                event_id=table.event.pk,
                registration_id=table.rid(bob),
                by=who,
                method="cash",
            ),
        )


def test_a_line_for_another_events_cash_box_is_refused():
    table = make_table(players=1, contribution=10)
    other = make_table(players=1, contribution=10)
    (ann,) = other.players
    for event in (table.event, other.event):
        refused(
            WrongCashBox,
            event,
            lambda: ledger.entry_payment(
                event_id=table.event.pk,
                registration_id=other.rid(ann),
                by=other.house,
                method="cash",
            ),
        )


def refund(table: Table, player: User, amount: int, method: str = "cash") -> object:
    return ledger.entry_refund(
        event_id=table.event.pk,
        registration_id=table.rid(player),
        by=table.house,
        amount=amount,
        method=method,
        reason="Cannot come after all",
    )


def test_a_cancelled_entry_is_refunded_never_more_than_was_paid():
    table = make_table(players=1, contribution=10)
    ann = make_user("Ann")
    table.register(ann)
    pay(table, ann, "cash")
    refused(RefundNotInPolicy, table.event, lambda: refund(table, ann, 10))  # still registered
    services.registration_cancel(registration_id=table.rid(ann), by=table.house)
    refused(RefundExceedsPayment, table.event, lambda: refund(table, ann, 11))
    refused(Invalid, table.event, lambda: refund(table, ann, 0))
    answer = refund(table, ann, 10)
    assert (answer.still_held, answer.expected_cash) == (0, 0)  # type: ignore[attr-defined]
    assert not table.registration(ann).paid
    entry = last(table.event, "entry_refunded")
    assert entry.details == {
        "version": 1,
        "method": "cash",
        "amount": 10,
        "grounds": "cancellation",
    }
    refused(RefundExceedsPayment, table.event, lambda: refund(table, ann, 1))
    box = cash_box(table.refresh())
    assert (box.cash_in, box.refunds_cash, box.expected_cash) == (10, 10, 0)


def test_a_withdrawal_is_refunded_only_when_the_policy_says_so():
    table = make_table(players=3, contribution=10, start=True)
    ann = table.players[0]
    pay(table, ann, "card")
    services.player_withdraw(registration_id=table.rid(ann), by=table.house, reason="Left early")
    refused(RefundNotInPolicy, table.event, lambda: refund(table, ann, 10, "card"))
    Event.objects.filter(pk=table.event.pk).update(refund_policy=RefundPolicy.WITHDRAWALS)
    refund(table, ann, 10, "card")
    box = cash_box(table.refresh())
    assert (box.card_in, box.refunds_other, box.expected_cash) == (10, 10, 0)
    assert ("refunds to participants (withdrawals)", -10) in [
        (d.what, d.amount) for d in box.differences
    ]


def payout(table: Table, player: User, amount: int, method: str = "cash") -> object:
    return ledger.payout_record(
        event_id=table.event.pk,
        registration_id=table.rid(player),
        by=table.house,
        amount=amount,
        method=method,
        handed_by="Dana at the door",
        acknowledged=True,
    )


def test_awards_are_paid_out_once_finalized_never_more_than_the_award():
    table = finalized_table(players=2, contribution=10)
    winners = [p for p in table.players if table.registration(p).award]
    winner = winners[0]
    award = table.registration(winner).award
    assert award
    answer = payout(table, winner, 1)
    assert answer.award_left == award - 1  # type: ignore[attr-defined]
    refused(PayoutExceedsAward, table.event, lambda: payout(table, winner, award))
    payout(table, winner, award - 1, "transfer")
    entry = last(table.event, "payout_made")
    assert entry.details == {
        "version": 1,
        "method": "transfer",
        "amount": award - 1,
        "award": award,
        "handed_by": "Dana at the door",
        "acknowledged": True,
        "reportable": False,
    }
    box = cash_box(table.refresh())
    assert (box.payouts_cash, box.payouts_other, box.expected_cash) == (1, award - 1, -1)
    loser = next((p for p in table.players if not table.registration(p).award), None)
    if loser is not None:
        refused(PayoutExceedsAward, table.event, lambda: payout(table, loser, 1))


def test_a_payout_before_finalization_is_refused():
    table = make_table(players=2, contribution=10, start=True)
    refused(WrongPhase, table.event, lambda: payout(table, table.players[0], 5))


def test_winnings_net_of_the_entry_above_the_threshold_are_flagged(settings):
    table = finalized_table(players=2, contribution=10)
    winner = next(p for p in table.players if table.registration(p).award)
    award = table.registration(winner).award or 0
    settings.PAYOUT_REPORTING_THRESHOLD = award - 10 - 1
    assert payout(table, winner, 1).reportable  # type: ignore[attr-defined]
    settings.PAYOUT_REPORTING_THRESHOLD = award - 10
    assert not payout(table, winner, 1).reportable  # type: ignore[attr-defined]
    assert cash_box(table.refresh()).reportable == (table.registration(winner).label,)


def test_a_retry_with_the_same_key_writes_one_line():
    table = make_table(players=1, contribution=10)
    (ann,) = table.players
    for _ in range(2):
        pay(table, ann, "cash", idempotency_key="door-1")
    assert len(lines_of(table.refresh())) == 1


def test_who_handed_a_payout_over_is_whoever_records_it_unless_named():
    table = finalized_table(players=2, contribution=10)
    winner = next(p for p in table.players if table.registration(p).award)
    ledger.payout_record(
        event_id=table.event.pk,
        registration_id=table.rid(winner),
        by=table.house,
        amount=1,
        method="cash",
        handed_by="  ",
        acknowledged=False,
    )
    assert last(table.event, "payout_made").details["handed_by"] == table.house.display_name
