"""TRUNCATE of the audit table is refused too (0002 refuses UPDATE and DELETE row by row).

Only a superuser session that says so first (`SET syndicate.audit_truncate = 'allowed'`) may
empty it: the test suite, which flushes its own database between tests. The app's runtime role
is no superuser and holds no TRUNCATE privilege either (`manage.py grant_app_role`).
"""

from django.db import migrations

UP = """
CREATE OR REPLACE FUNCTION audit_entries_are_never_truncated() RETURNS trigger AS $$
BEGIN
    IF current_setting('is_superuser') = 'on'
       AND current_setting('syndicate.audit_truncate', true) = 'allowed' THEN
        RETURN NULL;
    END IF;
    RAISE EXCEPTION USING MESSAGE = 'audit entries are append-only: TRUNCATE refused';
END;
$$ LANGUAGE plpgsql;
CREATE TRIGGER audit_entries_never_truncated
    BEFORE TRUNCATE ON audit_auditentry
    FOR EACH STATEMENT EXECUTE FUNCTION audit_entries_are_never_truncated();
"""
DOWN = """
DROP TRIGGER IF EXISTS audit_entries_never_truncated ON audit_auditentry;
DROP FUNCTION IF EXISTS audit_entries_are_never_truncated();
"""


class Migration(migrations.Migration):
    dependencies = [("audit", "0004_actor_kind")]

    operations = [migrations.RunSQL(UP, DOWN)]
