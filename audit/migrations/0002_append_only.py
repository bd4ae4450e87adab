"""The database itself refuses to change or remove an audit entry."""

from django.db import migrations

POSTGRES_UP = """
CREATE OR REPLACE FUNCTION audit_entries_are_append_only() RETURNS trigger AS $$
BEGIN
    RAISE EXCEPTION USING MESSAGE = 'audit entries are append-only: ' || TG_OP || ' refused';
END;
$$ LANGUAGE plpgsql;
CREATE TRIGGER audit_entries_append_only
    BEFORE UPDATE OR DELETE ON audit_auditentry
    FOR EACH ROW EXECUTE FUNCTION audit_entries_are_append_only();
"""
POSTGRES_DOWN = """
DROP TRIGGER IF EXISTS audit_entries_append_only ON audit_auditentry;
DROP FUNCTION IF EXISTS audit_entries_are_append_only();
"""
SQLITE_UP = [
    """CREATE TRIGGER audit_entries_no_update BEFORE UPDATE ON audit_auditentry
       BEGIN SELECT RAISE(ABORT, 'audit entries are append-only: UPDATE refused'); END;""",
    """CREATE TRIGGER audit_entries_no_delete BEFORE DELETE ON audit_auditentry
       BEGIN SELECT RAISE(ABORT, 'audit entries are append-only: DELETE refused'); END;""",
]
SQLITE_DOWN = [
    "DROP TRIGGER IF EXISTS audit_entries_no_update;",
    "DROP TRIGGER IF EXISTS audit_entries_no_delete;",
]


def install(apps, schema_editor):
    _run(schema_editor, [POSTGRES_UP], SQLITE_UP)


def remove(apps, schema_editor):
    _run(schema_editor, [POSTGRES_DOWN], SQLITE_DOWN)


def _run(schema_editor, postgres, sqlite):
    vendor = schema_editor.connection.vendor
    statements = {"postgresql": postgres, "sqlite": sqlite}.get(vendor)
    if statements is None:
        raise RuntimeError(f"No append-only trigger for the {vendor} database.")
    for statement in statements:
        schema_editor.execute(statement)


class Migration(migrations.Migration):
    dependencies = [("audit", "0001_initial")]

    operations = [migrations.RunPython(install, remove)]
