"""A series' staff, their invitations and its display links move to the staff layer's tables
(staff/models.py), beside an event's (events 0012): one membership, one invitation and one
display link model for both. A series' display links were kept in the events' old table, in a
`series` column that only databases migrated before the staff layer have; its ids are kept,
and the old table goes."""

from django.db import migrations

MOVE = """
INSERT INTO staff_membership (scope_type_id, scope_id, user_id, role)
    SELECT %(series)s, series_id, user_id, role FROM seasons_series_house;
INSERT INTO staff_invitation
    (scope_type_id, scope_id, email, role, token, invited_by_id, created_at, accepted_at)
    SELECT %(series)s, series_id, email, role, token, invited_by_id, created_at, accepted_at
    FROM seasons_seriesstaffinvitation ORDER BY id;
DO $$
BEGIN
    IF EXISTS (
        SELECT 1 FROM information_schema.columns
        WHERE table_name = 'events_displaylink' AND column_name = 'series_id'
          AND table_schema = current_schema()
    ) THEN
        INSERT INTO staff_displaylink
            (id, scope_type_id, scope_id, label, token_hash, created_by_id, created_at,
             revoked_at, revoked_by_id, last_seen_at)
            SELECT id, %(series)s, series_id, label, token_hash, created_by_id, created_at,
                   revoked_at, revoked_by_id, last_seen_at
            FROM events_displaylink WHERE series_id IS NOT NULL;
    END IF;
END $$;
DROP TABLE IF EXISTS events_displaylink;
SELECT setval(pg_get_serial_sequence('staff_displaylink', 'id'),
              GREATEST((SELECT MAX(id) FROM staff_displaylink), 1));
"""


def move(apps, schema_editor):
    content_type = apps.get_model("contenttypes", "ContentType")
    series, _ = content_type.objects.get_or_create(app_label="seasons", model="series")
    with schema_editor.connection.cursor() as cursor:
        cursor.execute(MOVE % {"series": int(series.pk)})


class Migration(migrations.Migration):
    dependencies = [
        ("seasons", "0007_series_audit"),
        ("events", "0012_staff_moves_to_the_staff_layer"),
        ("staff", "0001_initial"),
    ]

    operations = [
        migrations.RunPython(move, migrations.RunPython.noop),
        migrations.RemoveField(model_name="series", name="house"),
        migrations.DeleteModel(name="SeriesStaff"),
        migrations.DeleteModel(name="SeriesStaffInvitation"),
    ]
