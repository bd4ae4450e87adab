"""The audit is append-only at the database, against the app's own runtime role.

A role is made the way production makes it (`manage.py grant_app_role`), and the test connects
as it and tries everything an attacker holding the app's database password would try.
"""

from __future__ import annotations

import uuid
from collections.abc import Iterator

import psycopg
import pytest
from django.core.management import call_command
from django.core.management.base import CommandError
from django.db import connection

from audit.models import AuditEntry
from tests.factories import make_table

pytestmark = pytest.mark.django_db(transaction=True)


# The runtime roles made here sign in with a password, as production's does (a server with
# password authentication, such as make run's, refuses a role without one).
APP_PASSWORD = "runtime-role-password"


def connect(user: str) -> psycopg.Connection:
    params = connection.settings_dict
    owner = user == params["USER"]
    return psycopg.connect(
        host=params["HOST"] or "127.0.0.1",
        port=params["PORT"] or 5432,
        dbname=params["NAME"],
        user=user,
        password=(params["PASSWORD"] or None) if owner else APP_PASSWORD,
        autocommit=True,
    )


@pytest.fixture
def app_role() -> Iterator[str]:
    role = f"test_app_{uuid.uuid4().hex[:12]}"
    with connection.cursor() as cursor:
        cursor.execute(f"CREATE ROLE \"{role}\" LOGIN PASSWORD '{APP_PASSWORD}'")
    try:
        call_command("grant_app_role", role)
        yield role
    finally:
        with connection.cursor() as cursor:
            cursor.execute(f'DROP OWNED BY "{role}"')
            cursor.execute(f'DROP ROLE "{role}"')


def refused(db: psycopg.Connection, statement: str) -> str:
    with pytest.raises(psycopg.Error) as caught:
        db.execute(statement)
    return str(caught.value)


ATTACKS = [
    "UPDATE audit_auditentry SET actor = 'nobody'",
    "DELETE FROM audit_auditentry",
    "TRUNCATE audit_auditentry",
    "TRUNCATE audit_auditentry CASCADE",
    "ALTER TABLE audit_auditentry DISABLE TRIGGER audit_entries_append_only",
    "ALTER TABLE audit_auditentry DISABLE TRIGGER ALL",
    "DROP TRIGGER audit_entries_append_only ON audit_auditentry",
    "DROP TRIGGER audit_entries_never_truncated ON audit_auditentry",
    "CREATE OR REPLACE FUNCTION audit_entries_are_append_only() RETURNS trigger AS "
    "$$ BEGIN RETURN NEW; END; $$ LANGUAGE plpgsql",
    "DROP TABLE audit_auditentry",
    "ALTER TABLE audit_auditentry RENAME TO old_audit",
    "SET session_replication_role = replica",
    "SET SESSION AUTHORIZATION postgres",
    "CREATE TABLE public.audit_copy (id int)",
    "INSERT INTO django_migrations (app, name, applied) VALUES ('audit', 'x', now())",
]


@pytest.mark.parametrize("attack", ATTACKS)
def test_the_runtime_role_cannot_change_or_remove_audit_entries(app_role: str, attack: str) -> None:
    table = make_table("league", players=2, start=True)
    before = list(AuditEntry.objects.filter(event=table.event).values_list("seq", "hash"))
    assert before
    with connect(app_role) as db:
        refused(db, attack)
        # Even with the switch the test suite uses: it only works for a superuser.
        db.execute("SET syndicate.audit_truncate = 'allowed'")
        refused(db, "TRUNCATE audit_auditentry")
    after = list(AuditEntry.objects.filter(event=table.event).values_list("seq", "hash"))
    assert after == before


def test_the_runtime_role_adds_and_reads_entries(app_role: str) -> None:
    table = make_table("league", players=2, start=True)
    last = AuditEntry.objects.filter(event=table.event).order_by("seq").last()
    assert last is not None
    with connect(app_role) as db:
        db.execute(
            "INSERT INTO audit_auditentry (event_id, seq, at, actor, action, player, details,"
            " reason, prev_hash, hash) VALUES (%s, %s, 'now', 'House', 'note', NULL, '{}', NULL,"
            " %s, %s)",
            [table.event.pk, last.seq + 1, last.hash, "f" * 64],
        )
        rows = db.execute(
            "SELECT count(*) FROM audit_auditentry WHERE event_id = %s", [table.event.pk]
        ).fetchone()
    assert rows == (last.seq + 1,)


def test_the_app_plays_an_event_as_the_runtime_role(app_role: str) -> None:
    """Everything the services do (locks, hand-written SQL, the audit) works with the grants."""
    owner = connection.settings_dict["USER"], connection.settings_dict["PASSWORD"]
    connection.close()
    connection.settings_dict["USER"], connection.settings_dict["PASSWORD"] = app_role, APP_PASSWORD
    try:
        table = make_table("league", players=3, start=True)
        for player in table.players:
            table.play_out(player)
        with connection.cursor() as cursor:
            cursor.execute("SELECT current_user")
            assert cursor.fetchone() == (app_role,)
        assert AuditEntry.objects.filter(event=table.event).count() > 10
    finally:
        connection.close()
        connection.settings_dict["USER"], connection.settings_dict["PASSWORD"] = owner


def test_even_the_owner_cannot_truncate_the_audit_without_saying_so() -> None:
    make_table("league", players=2, start=True)
    count = AuditEntry.objects.count()
    with connect(connection.settings_dict["USER"]) as db:
        message = refused(db, "TRUNCATE audit_auditentry CASCADE")
    assert "append-only: TRUNCATE refused" in message
    assert AuditEntry.objects.count() == count


def test_the_grants_refuse_a_superuser_or_a_missing_role() -> None:
    with pytest.raises(CommandError, match="no database role"):
        call_command("grant_app_role", f"missing_{uuid.uuid4().hex[:8]}")
    with pytest.raises(CommandError, match="superuser"):
        call_command("grant_app_role", connection.settings_dict["USER"])
