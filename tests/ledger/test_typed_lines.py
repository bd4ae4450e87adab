"""The ledger's lines are typed, versioned records (audit/money_lines.py, docs/audit.md "The
ledger's lines"): each kind is written and read through its record; details without a version are
version 1; a line that cannot be read is refused by the cash box, the night report, the API and
the verifier with a plain message, never read with a default (a missing method is not cash)."""

from __future__ import annotations

import copy
from collections.abc import Callable
from datetime import UTC, datetime
from functools import partial
from typing import Any

import pytest
from django.db import transaction
from django.test import Client
from django.urls import reverse

from audit.chain import GENESIS, entry_hash
from audit.export import audit_document
from audit.money_lines import (
    EntryPaid,
    EntryRefunded,
    MoneyLine,
    PaymentMarked,
    PayoutMade,
    SponsorPaid,
    UnreadableLine,
    read_line,
)
from audit.verify import verify
from audit.writer import PendingEntry, chain
from events import services
from events.models import Event
from ledger import services as ledger
from ledger.cash_box import cash_box
from ledger.lines import UnreadableLedgerLine, lines_of
from ledger.report import night_report
from tests.api.support import Api, error
from tests.factories import Table, make_table
from tests.refusals import refused

RECORDS: list[MoneyLine] = [
    EntryPaid(method="cash", amount=20),
    EntryPaid(method="online", amount=20, reference="pi_9"),
    EntryPaid(method="comp", amount=0, waived=20),
    PaymentMarked(paid=True, amount=20),
    PaymentMarked(paid=False, amount=20),
    EntryRefunded(method="card", amount=5, grounds="withdrawal"),
    PayoutMade(
        method="transfer", amount=40, award=60, handed_by="Jo", acknowledged=True, reportable=False
    ),
    SponsorPaid(method="cash", amount=100, reference="Acme"),
]


@pytest.mark.parametrize("record", RECORDS, ids=lambda record: record.action)
def test_each_line_kind_reads_back_as_the_record_it_was_written_as(record: MoneyLine) -> None:
    details = record.to_details()
    assert details["version"] == 1
    assert read_line(record.action, details) == record


@pytest.mark.parametrize("record", RECORDS, ids=lambda record: record.action)
def test_a_line_written_before_versions_reads_as_version_1(record: MoneyLine) -> None:
    details = {key: value for key, value in record.to_details().items() if key != "version"}
    assert read_line(record.action, details) == record


@pytest.mark.parametrize(
    ("action", "details", "words"),
    [
        ("entry_paid", {"amount": 20}, "the entry_paid line has no details.method"),
        ("entry_refunded", {"amount": 5, "grounds": "withdrawal"}, "none is taken for cash"),
        ("payout_made", {"method": "cheque", "amount": 5}, "method is 'cheque', not one of"),
        ("sponsor_paid", {"method": "cash", "amount": "100"}, "details.amount is '100', not a"),
        ("payment_marked", {"paid": 1, "amount": 20}, "details.paid is 1, not true or false"),
        ("entry_paid", {"version": 2, "method": "cash", "amount": 20}, "of version 2"),
        ("entry_paid", ["cash", 20], "are not a JSON object"),
    ],
)
def test_a_line_that_cannot_be_read_is_an_error_never_a_default(
    action: str, details: Any, words: str
) -> None:
    with pytest.raises(UnreadableLine) as caught:
        read_line(action, details)
    assert words in str(caught.value)


def append_line(event: Event, action: str, player: str | None, details: Any) -> None:
    """A line as a writer that skipped the records would leave it, chained like any entry."""
    with transaction.atomic():
        locked = Event.objects.select_for_update().get(pk=event.pk)
        pending = PendingEntry("House: House", "house", action, player, details, None)
        for row in chain(locked, [pending], datetime.now(UTC)):
            row.save()
        locked.save(update_fields=["audit_seq", "audit_hash"])


def cash_table() -> Table:
    table = make_table(players=2, contribution=20)
    ann = table.players[0]
    ledger.entry_payment(
        event_id=table.event.pk, registration_id=table.rid(ann), by=table.house, method="cash"
    )
    return table


@pytest.mark.django_db
def test_a_line_missing_its_method_is_an_error_not_cash() -> None:
    table = cash_table()
    bob = table.players[1]
    append_line(table.event, "entry_paid", bob.display_name, {"amount": 20})
    problem = refused(UnreadableLedgerLine, table.event, lambda: cash_box(table.refresh()))
    seq = table.refresh().audit_seq
    assert problem.message.startswith(f"Audit entry seq {seq} (entry_paid) cannot be read as a ")
    assert "the entry_paid line has no details.method" in problem.message
    assert "none is taken for cash" in problem.message
    verdict = verify(audit_document(table.refresh()))
    assert not verdict.ok and verdict.problem is not None
    assert "(entry_paid) cannot be read as a ledger line: the entry_paid line has no " in (
        verdict.problem
    )
    assert "none is taken for cash" in verdict.problem


@pytest.mark.django_db
def test_an_unreadable_line_is_refused_by_the_cash_box_pages_api_and_verifier() -> None:
    table = cash_table()
    bob = table.players[1]
    append_line(table.event, "payment_marked", bob.display_name, {"paid": "yes", "amount": 20})
    words = "details.paid is 'yes', not true or false."
    readers: list[Callable[[Event], object]] = [cash_box, night_report, lines_of]
    for read in readers:
        problem = refused(UnreadableLedgerLine, table.event, partial(read, table.refresh()))
        assert words in problem.message
    response = Api(table.house).get(f"/api/events/{table.event.pk}/cash-box/")
    assert error(response) == (500, "unreadable_ledger_line")
    assert words in response.json()["error"]["message"]
    client = Client()
    client.force_login(table.house)
    for page in ("ledger:night", "ledger:night_csv"):
        answer = client.get(reverse(page, kwargs={"event_id": table.event.pk}))
        assert answer.status_code == 500
        assert words.replace("'", "&#x27;") in answer.content.decode()
    verdict = verify(audit_document(table.refresh()))
    assert not verdict.ok and verdict.problem is not None and words in verdict.problem


def rechained(document: dict[str, Any]) -> dict[str, Any]:
    prev_hash = GENESIS
    for seq, entry in enumerate(document["entries"], start=1):
        entry["seq"], entry["prev_hash"] = seq, prev_hash
        entry["hash"] = entry_hash({k: v for k, v in entry.items() if k != "hash"})
        prev_hash = entry["hash"]
    return document


@pytest.mark.django_db
def test_a_chain_written_before_versions_still_verifies_with_the_same_ledger() -> None:
    table = make_table(players=2, contribution=20)
    ann, bob = table.players
    services.payment_mark(registration_id=table.rid(ann), by=table.house, paid=True)
    ledger.entry_payment(
        event_id=table.event.pk,
        registration_id=table.rid(bob),
        by=table.house,
        method="online",
        reference="pi_9",
    )
    document = audit_document(table.refresh())
    now = verify(document)
    assert now.ok, now.problem
    older = copy.deepcopy(document)
    for entry in older["entries"]:
        if entry["action"] in ("entry_paid", "payment_marked"):
            assert entry["details"].pop("version") == 1
    older.pop("head", None)  # the signed head names the chain as it is now
    before = verify(rechained(older))
    assert before.ok, before.problem
    ledger_of = [line for line in now.checked if line.startswith("ledger:")]
    assert ledger_of and ledger_of == [
        line for line in before.checked if line.startswith("ledger:")
    ]
    assert "cash expected in the box $20" in ledger_of[0]  # the mark's $20; online is not cash
