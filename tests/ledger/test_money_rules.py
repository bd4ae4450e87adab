"""The rules of the night's money (docs/decisions.md, "The ledger"): a refund is never more than
what was paid and not yet given back, expected cash is what the box holds, collected is the
ledger's money in (a comp collects nothing), and a sponsor's money is a line of the ledger."""

from __future__ import annotations

import copy
from typing import Any

import pytest

from audit.chain import GENESIS, entry_hash
from audit.export import audit_document
from audit.verify import verify
from events import services
from events.check_in import collected
from events.errors import (
    EntryPartlyRefunded,
    Invalid,
    NotFound,
    RefundExceedsPayment,
    SponsorExceedsPool,
    WrongState,
)
from events.models import Event, RefundPolicy
from ledger import services as ledger
from ledger.cash_box import cash_box
from ledger.lines import lines_of
from ledger.report import night_csv, night_report
from tests.factories import Table, make_table, make_user
from tests.refusals import refused

pytestmark = pytest.mark.django_db


def refund(table: Table, rid: int, amount: int, method: str = "cash") -> None:
    ledger.entry_refund(
        event_id=table.event.pk,
        registration_id=rid,
        by=table.house,
        amount=amount,
        method=method,
        reason="Cannot stay",
    )


def test_marking_not_paid_after_a_refund_is_refused_and_the_rest_is_still_refundable():
    """$20 in cash, cancelled, $5 refunded: the entry changed hands, so "not paid" (a mistaken
    mark) cannot void it; the box holds $15, and the $15 left can be refunded, no more."""
    table = make_table(players=0, contribution=20)
    cal = make_user("Cal")
    table.register(cal)
    rid = table.rid(cal)
    services.payment_mark(registration_id=rid, by=table.house, paid=True)
    services.registration_cancel(registration_id=rid, by=cal)
    refund(table, rid, 5)
    assert cash_box(table.refresh()).expected_cash == 15
    error = refused(
        EntryPartlyRefunded,
        table.event,
        lambda: services.payment_mark(registration_id=rid, by=table.house, paid=False),
    )
    assert error.message == (
        "Cal has had $5 of the entry refunded: the money changed hands, so the rest is "
        "refunded, not marked not paid."
    )
    box = cash_box(table.refresh())
    assert (box.expected_cash, box.collected) == (15, 15)
    refused(RefundExceedsPayment, table.event, lambda: refund(table, rid, 16))
    refund(table, rid, 15)
    box = cash_box(table.refresh())
    assert (box.expected_cash, box.collected, box.refunds_cash) == (0, 0, 20)
    assert not table.registration(cal).paid
    refused(RefundExceedsPayment, table.event, lambda: refund(table, rid, 1))


def test_a_mistaken_mark_with_no_refund_is_still_voided_whole():
    table = make_table(players=1, contribution=20)
    (ann,) = table.players
    rid = table.rid(ann)
    services.payment_mark(registration_id=rid, by=table.house, paid=True)
    answer = services.payment_mark(registration_id=rid, by=table.house, paid=False)
    assert (answer.paid, answer.collected) == (False, 0)
    box = cash_box(table.refresh())
    assert (box.cash_in, box.expected_cash, box.collected) == (0, 0, 0)
    assert [line.kind for line in lines_of(table.event)] == ["entry", "void"]


def test_collected_is_the_ledgers_money_in_and_a_comp_is_counted_apart():
    """A comp settles an entry but collects nothing: not in collected, not in "paid"."""
    table = make_table(players=3, contribution=10)
    ann, bob, cy = table.players
    ledger.entry_payment(
        event_id=table.event.pk,
        registration_id=table.rid(ann),
        by=table.house,
        method="comp",
        reason="Sponsor's guest",
    )
    answer = services.payment_mark(registration_id=table.rid(bob), by=table.house, paid=True)
    assert answer.collected == 10  # the comp is not money in
    ledger.entry_payment(
        event_id=table.event.pk, registration_id=table.rid(cy), by=table.house, method="card"
    )
    box = cash_box(table.refresh())
    assert (box.collected, box.entries_paid, box.comps, box.comped) == (20, 2, 1, 10)
    assert collected(table.event) == 20
    # Unmarking a comp takes back no money.
    answer = services.payment_mark(registration_id=table.rid(ann), by=table.house, paid=False)
    assert answer.collected == 20
    assert cash_box(table.refresh()).comps == 0


def sponsored_table(pool: int = 500) -> Table:
    """A free-entry Switch night of three, every game played; the pool not yet confirmed."""
    table = make_table("switch", players=3, contribution=0)
    services.event_update(
        event_id=table.event.pk,
        by=table.house,
        changes={"entry_mode": "sponsored", "sponsored_pool": pool},
    )
    table.start()
    for player in table.players:
        table.play_out(player)
    table.refresh()
    return table


def test_a_sponsors_money_is_a_line_and_cash_prizes_leave_the_box_balanced():
    """Prizes paid in cash from a sponsor's cash: the box holds what is left, never below $0."""
    table = sponsored_table(500)
    event = table.event
    services.pool_confirm(event_id=event.pk, by=table.house)
    services.event_finalize(event_id=event.pk, by=table.house)
    answer = ledger.sponsor_payment(
        event_id=event.pk, by=table.house, amount=300, method="cash", reference=""
    )
    assert (answer.amount, answer.still_to_come, answer.expected_cash) == (300, 200, 300)
    ledger.sponsor_payment(
        event_id=event.pk, by=table.house, amount=200, method="transfer", reference="BACS 42"
    )
    event = table.refresh()
    winners = [
        (rid, award or 0)
        for rid, award in event.registrations.filter(award__gt=0).values_list("pk", "award")
    ]
    cash_left = 300
    for rid, award in winners:
        method = "cash" if award <= cash_left else "transfer"
        cash_left -= award if method == "cash" else 0
        ledger.payout_record(
            event_id=event.pk,
            registration_id=rid,
            by=table.house,
            amount=award,
            method=method,
            acknowledged=True,
        )
    box = cash_box(table.refresh())
    assert box.expected_cash == cash_left >= 0
    assert (box.sponsor_cash, box.sponsor_other, box.ledger_pool, box.difference) == (
        300,
        200,
        500,
        0,
    )
    assert box.paid_out == sum(award for _, award in winners)
    report = night_report(table.event)
    assert report.balanced
    sponsor_lines = [line for line in report.lines if line.kind == "sponsor"]
    assert [(line.method, line.signed, line.note) for line in sponsor_lines] == [
        ("cash", 300, ""),
        ("transfer", 200, "BACS 42"),
    ]
    csv_text = night_csv(report)
    assert "sponsor's money,500" in csv_text
    verdict = verify(audit_document(table.event))
    assert verdict.ok, verdict.problem


def test_a_sponsors_money_is_refused_beyond_the_pool_outside_a_sponsored_event_and_to_players():
    table = sponsored_table(100)
    event = table.event

    def sponsor(amount: int = 10, method: str = "cash", by: object = None) -> object:
        return ledger.sponsor_payment(
            event_id=event.pk,
            by=by or table.house,  # type: ignore[arg-type]
            amount=amount,
            method=method,
        )

    sponsor(60)
    error = refused(SponsorExceedsPool, event, lambda: sponsor(41))
    assert "$40 not yet recorded" in error.message
    refused(Invalid, event, lambda: sponsor(10, "card"))
    refused(Invalid, event, lambda: sponsor(0))
    refused(NotFound, event, lambda: sponsor(10, by=table.players[0]))
    paid = make_table(players=1, contribution=10)
    refused(
        WrongState,
        paid.event,
        lambda: ledger.sponsor_payment(
            event_id=paid.event.pk, by=paid.house, amount=10, method="cash"
        ),
    )


def test_a_cash_refund_of_a_card_entry_shows_a_short_box_with_one_money_formatter(client):
    """The box can go below $0 (cash given back for a card entry): it reads "\u2212$20", with a
    warning, on the dashboard, the night page and the toast."""
    table = make_table(players=0, contribution=20)
    Event.objects.filter(pk=table.event.pk).update(refund_policy=RefundPolicy.CANCELLATIONS)
    cal = make_user("Cal")
    table.register(cal)
    rid = table.rid(cal)
    ledger.entry_payment(
        event_id=table.event.pk, registration_id=rid, by=table.house, method="card"
    )
    services.registration_cancel(registration_id=rid, by=cal)
    client.force_login(table.house)
    response = client.post(
        f"/house/events/{table.event.pk}/ledger/refund",
        {
            "idempotency_key": "r1",
            "registration": rid,
            "amount": "20",
            "method": "cash",
            "reason": "Cannot come",
        },
        follow=True,
    )
    page = response.content.decode()
    assert "Refund recorded: $20 (cash). Warning: the box should hold \u2212$20" in page
    assert 'id="expected-cash">\u2212$20<' in page and 'id="night-short"' in page
    assert "$-" not in page
    assert cash_box(table.refresh()).short
    dashboard = client.get(f"/house/events/{table.event.pk}/").content.decode()
    assert 'id="cash-box-expected">\u2212$20<' in dashboard and 'id="cash-box-short"' in dashboard
    assert "$-" not in dashboard


def rechained(document: dict[str, Any]) -> dict[str, Any]:
    """Every hash recomputed, as a forger who knows the chain rule would."""
    prev_hash = GENESIS
    for seq, entry in enumerate(document["entries"], start=1):
        entry["seq"], entry["prev_hash"] = seq, prev_hash
        entry["hash"] = entry_hash({k: v for k, v in entry.items() if k != "hash"})
        prev_hash = entry["hash"]
    return document


def cancelled_and_partly_refunded() -> Table:
    table = make_table(players=0, contribution=20)
    cal = make_user("Cal")
    table.register(cal)
    rid = table.rid(cal)
    services.payment_mark(registration_id=rid, by=table.house, paid=True)
    services.registration_cancel(registration_id=rid, by=cal)
    refund(table, rid, 5)
    return table


def test_the_verifier_recomputes_the_ledger_and_names_a_refund_above_what_was_paid():
    table = cancelled_and_partly_refunded()
    document = audit_document(table.event)
    verdict = verify(document)
    assert verdict.ok, verdict.problem
    assert any(
        line.startswith("ledger: 2 money lines") and line.endswith("cash expected in the box $15")
        for line in verdict.checked
    )
    forged = copy.deepcopy(document)
    (refunded,) = [e for e in forged["entries"] if e["action"] == "entry_refunded"]
    refunded["details"]["amount"] = 25
    verdict = verify(rechained(forged))
    assert not verdict.ok and verdict.problem is not None
    assert "a refund of $25 to Cal, who has $20 paid in and not given back" in verdict.problem


def test_the_verifier_names_a_not_paid_mark_after_a_refund():
    table = cancelled_and_partly_refunded()
    forged = copy.deepcopy(audit_document(table.event))
    (mark,) = [e for e in forged["entries"] if e["action"] == "payment_marked"]
    void = copy.deepcopy(mark)
    void["details"]["paid"] = False
    forged["entries"].append(void)
    verdict = verify(rechained(forged))
    assert not verdict.ok and verdict.problem is not None
    assert "Cal is marked not paid after $5 of the entry was refunded" in verdict.problem


def test_the_verifier_names_a_sponsors_money_beyond_the_sponsored_pool():
    table = sponsored_table(100)
    ledger.sponsor_payment(event_id=table.event.pk, by=table.house, amount=100, method="cash")
    document = audit_document(table.event)
    assert verify(document).ok
    (line,) = [e for e in document["entries"] if e["action"] == "sponsor_paid"]
    line["details"]["amount"] = 150
    verdict = verify(rechained(document))
    assert not verdict.ok and verdict.problem is not None
    assert "$150 of the sponsor's money recorded, more than the $100 sponsored pool" in (
        verdict.problem
    )
