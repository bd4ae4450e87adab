"""`manage.py grant_app_role ROLE`: give the app's runtime role what it needs, and no more.

Run by the owner of the tables (the `migrate` service, after `migrate`), every deploy, so new
tables are covered. The runtime role (web, worker, beat) owns nothing: it cannot TRUNCATE, ALTER
or DROP a table or its triggers, nor switch `session_replication_role` to skip them. It reads and
writes the app's rows, but only adds and reads audit entries and migration records.
"""

from __future__ import annotations

from typing import Any

from django.core.management.base import BaseCommand, CommandError, CommandParser
from django.db import connection
from psycopg import sql

# Tables the runtime role may only INSERT into and SELECT from.
APPEND_ONLY = ("audit_auditentry", "seasons_seriesauditentry")
READ_ONLY = ("django_migrations",)


def grant_statements(role: str, database: str, tables: list[str]) -> list[sql.Composable]:
    """The statements, in order: everything revoked, then exactly what the app needs."""
    who = sql.Identifier(role)
    statements: list[sql.Composable] = [
        sql.SQL("REVOKE ALL ON SCHEMA public FROM {}").format(who),
        sql.SQL("GRANT CONNECT ON DATABASE {} TO {}").format(sql.Identifier(database), who),
        sql.SQL("GRANT USAGE ON SCHEMA public TO {}").format(who),
        sql.SQL("REVOKE ALL ON ALL TABLES IN SCHEMA public FROM {}").format(who),
        sql.SQL("REVOKE ALL ON ALL SEQUENCES IN SCHEMA public FROM {}").format(who),
        sql.SQL("GRANT USAGE, SELECT ON ALL SEQUENCES IN SCHEMA public TO {}").format(who),
    ]
    for table in tables:
        if table in APPEND_ONLY:
            rights = "SELECT, INSERT"
        elif table in READ_ONLY:
            rights = "SELECT"
        else:
            rights = "SELECT, INSERT, UPDATE, DELETE"
        statements.append(
            sql.SQL("GRANT " + rights + " ON TABLE {} TO {}").format(sql.Identifier(table), who)
        )
    return statements


class Command(BaseCommand):
    help = (
        "Grant the app's runtime database role exactly what it needs (run as the tables' owner, "
        "after migrate). The audit tables: INSERT and SELECT only."
    )

    def add_arguments(self, parser: CommandParser) -> None:
        parser.add_argument("role", help="the runtime role, e.g. syndicate_app")

    def handle(self, *args: Any, **options: Any) -> None:
        role: str = options["role"]
        with connection.cursor() as cursor:
            cursor.execute("SELECT rolsuper FROM pg_roles WHERE rolname = %s", [role])
            found = cursor.fetchone()
            if found is None:
                raise CommandError(
                    f"There is no database role {role!r}: create it first (docs/deploy.md)."
                )
            if found[0]:
                raise CommandError(
                    f"The role {role!r} is a superuser: the app must not run as one."
                )
            cursor.execute("SELECT current_user")
            (owner,) = cursor.fetchone() or ("",)
            if owner == role:
                raise CommandError("Run this as the tables' owner, not as the runtime role.")
            cursor.execute(
                "SELECT count(*) FROM pg_class c JOIN pg_roles r ON r.oid = c.relowner "
                "WHERE r.rolname = %s",
                [role],
            )
            (owned,) = cursor.fetchone() or (0,)
            if owned:
                raise CommandError(
                    f"The role {role!r} owns {owned} tables or sequences: the runtime role must "
                    "own nothing (reassign them to the owner with REASSIGN OWNED)."
                )
            tables = connection.introspection.table_names(cursor)
            for statement in grant_statements(role, connection.settings_dict["NAME"], tables):
                cursor.execute(statement)
        self.stdout.write(f"Granted {role}: {len(tables)} tables; audit entries insert-only.")
