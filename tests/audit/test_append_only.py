"""The database itself refuses to change or remove an audit entry (docs/rules.md section 10.3).

Each refused statement runs in its own `transaction.atomic()` block, so the error rolls back only
that savepoint and the test can go on to check that nothing changed.
"""

from __future__ import annotations

from collections.abc import Callable
from typing import Any

import pytest
from django.db import DatabaseError, connection, transaction

from audit.export import audit_document
from audit.models import AuditEntry
from audit.verify import verify
from tests.factories import Table, make_table

pytestmark = pytest.mark.django_db

TABLE = AuditEntry._meta.db_table


@pytest.fixture
def table() -> Table:
    return make_table("league", players=2, start=True)


def stored(table: Table) -> list[dict[str, Any]]:
    return [
        entry.as_dict() for entry in AuditEntry.objects.filter(event=table.event).order_by("seq")
    ]


def assert_refused(operation: str, change: Callable[[], object]) -> None:
    with (
        pytest.raises(DatabaseError, match=f"append-only: {operation} refused"),
        transaction.atomic(),
    ):
        change()


def raw_sql(sql: str, *params: int) -> Callable[[], None]:
    def run() -> None:
        with connection.cursor() as cursor:
            cursor.execute(sql, params)

    return run


@pytest.mark.parametrize(
    ("operation", "sql"),
    [
        ("UPDATE", f"UPDATE {TABLE} SET actor = 'Mallory' WHERE id = %s"),
        ("UPDATE", f"UPDATE {TABLE} SET details = '{{}}'::jsonb WHERE id = %s"),
        ("UPDATE", f"UPDATE {TABLE} SET hash = prev_hash, seq = seq + 100 WHERE id = %s"),
        ("DELETE", f"DELETE FROM {TABLE} WHERE id = %s"),
    ],
)
def test_raw_sql_cannot_change_an_entry(table: Table, operation: str, sql: str) -> None:
    before = stored(table)
    entry = AuditEntry.objects.filter(event=table.event).order_by("seq").last()
    assert entry is not None

    assert_refused(operation, raw_sql(sql, entry.pk))

    assert stored(table) == before


def test_raw_sql_cannot_change_every_entry_at_once(table: Table) -> None:
    before = stored(table)

    assert_refused("UPDATE", raw_sql(f"UPDATE {TABLE} SET reason = 'rewritten'"))
    assert_refused("DELETE", raw_sql(f"DELETE FROM {TABLE} WHERE event_id = %s", table.event.pk))

    assert stored(table) == before


def test_the_orm_cannot_update_entries(table: Table) -> None:
    before = stored(table)
    entries = AuditEntry.objects.filter(event=table.event)
    first = entries.order_by("seq").first()
    assert first is not None

    assert_refused("UPDATE", lambda: entries.update(actor="Mallory"))
    assert_refused("UPDATE", lambda: entries.filter(pk=first.pk).update(details={"forged": True}))
    first.reason = "rewritten"
    assert_refused("UPDATE", lambda: first.save(update_fields=["reason"]))
    assert_refused("UPDATE", lambda: first.save())
    assert_refused("UPDATE", lambda: AuditEntry.objects.bulk_update([first], ["reason"]))

    assert stored(table) == before


def test_the_orm_cannot_delete_entries(table: Table) -> None:
    before = stored(table)
    entries = AuditEntry.objects.filter(event=table.event)
    last = entries.order_by("seq").last()
    assert last is not None

    assert_refused("DELETE", lambda: entries.delete())
    assert_refused("DELETE", lambda: entries.filter(pk=last.pk).delete())
    assert_refused("DELETE", lambda: last.delete())

    assert stored(table) == before


def test_entries_are_still_appended_and_the_chain_verifies_after_refusals(table: Table) -> None:
    count = AuditEntry.objects.filter(event=table.event).count()
    assert_refused("DELETE", lambda: AuditEntry.objects.filter(event=table.event).delete())

    table.choose_start(table.players[0])

    assert AuditEntry.objects.filter(event=table.event).count() > count
    verdict = verify(audit_document(table.refresh()))
    assert verdict.ok, verdict.problem
