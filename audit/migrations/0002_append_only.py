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


class Migration(migrations.Migration):
    dependencies = [("audit", "0001_initial")]

    operations = [migrations.RunSQL([POSTGRES_UP], [POSTGRES_DOWN])]
