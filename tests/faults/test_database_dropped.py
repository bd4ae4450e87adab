"""The database connection dropped during a submission; the client's retry completes it once.

A player's result submission through the API is made to wait inside its transaction, after it has
locked the event and written the result, the card and the audit entries: a second connection holds
a row lock the submission needs next. Its server-side backend is then terminated
(`pg_terminate_backend`), so the client gets a 500 and the transaction is rolled back. The client
retries with the same Idempotency-Key: the submission completes once, and a second retry replays
the same answer.
"""

from __future__ import annotations

import time
from collections.abc import Iterator
from concurrent.futures import ThreadPoolExecutor
from typing import Any

import psycopg
import pytest
from django.conf import settings
from django.db import connections
from rest_framework.test import APIClient

from audit.export import audit_entries
from audit.models import AuditEntry
from audit.verify import check_chain
from cards.models import DealtCard
from events.models import Event, GameResult, IdempotencyRecord
from tests.factories import make_table
from tests.faults.processes import database_url, report
from tests.waiting import PATIENCE, wait_until

pytestmark = pytest.mark.django_db(transaction=True)

KEY = "result-game-1-attempt"


def footprint(event: Event, registration_id: int) -> dict[str, Any]:
    event.refresh_from_db()
    return {
        "version": event.version,
        "results": GameResult.objects.filter(registration_id=registration_id).count(),
        "dealt": DealtCard.objects.filter(registration_id=registration_id).count(),
        "audit": list(
            AuditEntry.objects.filter(event=event).order_by("seq").values_list("action", flat=True)
        ),
        "keys": IdempotencyRecord.objects.filter(key=KEY).count(),
    }


@pytest.fixture
def client_thread() -> Iterator[ThreadPoolExecutor]:
    """One thread for the client's requests, so its retry meets the connection that was killed;
    its database connection is closed afterwards (the test database is dropped at the end)."""
    thread = ThreadPoolExecutor(max_workers=1)
    try:
        yield thread
    finally:
        thread.submit(connections.close_all).result(timeout=10)
        thread.shutdown()


def test_a_submission_whose_connection_dies_completes_once_on_retry(
    client_thread: ThreadPoolExecutor,
) -> None:
    table = make_table("league", players=2, start=True)
    player = table.players[0]
    table.choose_start(player)
    event = table.event
    rid = table.rid(player)
    path = f"/api/registrations/{rid}/results/"
    body = {"game": 1, "outcome": "loss"}
    before = footprint(event, rid)
    dsn = database_url()
    assert settings.DATABASES["default"]["CONN_HEALTH_CHECKS"]

    client = APIClient()
    client.raise_request_exception = False  # a real client sees the 500, not the exception
    client.force_login(player)

    def submit() -> Any:
        return client.post(path, body, format="json", headers={"Idempotency-Key": KEY})

    with (
        psycopg.connect(dsn, autocommit=False) as blocker,
        psycopg.connect(dsn, autocommit=True) as admin,
    ):
        # FOR NO KEY UPDATE: the result's foreign-key check passes; the submission's later
        # UPDATE of the registration's live version waits.
        blocker.execute("SELECT 1 FROM events_registration WHERE id = %s FOR NO KEY UPDATE", [rid])
        (blocker_pid,) = blocker.execute("SELECT pg_backend_pid()").fetchone() or (0,)
        first = client_thread.submit(submit)

        waiting: dict[str, Any] = {}

        def blocked() -> bool:
            row = admin.execute(
                "SELECT pid, query FROM pg_stat_activity"
                " WHERE %s = ANY(pg_blocking_pids(pid)) AND wait_event_type = 'Lock'",
                [blocker_pid],
            ).fetchone()
            if row is not None:
                waiting["pid"], waiting["query"] = row
            return row is not None

        wait_until(blocked, "the submission to wait for the row lock")
        # What the doomed transaction had written by then (locks it holds on those tables).
        written = [
            name
            for (name,) in admin.execute(
                "SELECT c.relname FROM pg_locks l JOIN pg_class c ON c.oid = l.relation"
                " WHERE l.pid = %s AND l.mode = 'RowExclusiveLock' AND c.relkind = 'r'"
                " ORDER BY c.relname",
                [waiting["pid"]],
            ).fetchall()
        ]
        started = time.monotonic()
        admin.execute("SELECT pg_terminate_backend(%s)", [waiting["pid"]])
        failed = first.result(timeout=PATIENCE)
        failed_after = time.monotonic() - started
        blocker.rollback()

    assert failed.status_code == 500
    assert failed.json()["error"]["code"] == "server_error"
    assert footprint(event, rid) == before  # rolled back: nothing of it was kept

    # The client retries with the same key, from the same thread: Django must replace the dead
    # connection. Then once more, which replays the stored answer.
    retried = client_thread.submit(submit).result(timeout=PATIENCE)
    assert retried.status_code == 201, retried.content
    after = footprint(event, rid)
    again = client_thread.submit(submit).result(timeout=PATIENCE)
    assert again.status_code == 201
    assert again.json() == retried.json()
    assert footprint(event, rid) == after

    new_entries = after["audit"][len(before["audit"]) :]
    assert after["results"] == before["results"] + 1
    assert after["dealt"] == before["dealt"] + 1
    assert after["version"] == before["version"] + 1
    assert after["keys"] == 1
    assert sorted(new_entries) == ["card_kept", "result_submitted"]
    check_chain(audit_entries(event))  # the hash chain holds across the failure
    report(
        "database_dropped",
        blocked_on=waiting["query"],
        written_before_the_drop=written,
        client_saw=[failed.status_code, failed.json()["error"]["code"]],
        error_after_terminate_ms=round(failed_after * 1000),
        retry=retried.status_code,
        replay_equal=again.json() == retried.json(),
        results=after["results"],
        cards_dealt=after["dealt"] - before["dealt"],
        audit_entries_added=new_entries,
    )
