"""An event's staff, their invitations and its display links move to the staff layer's tables
(staff/models.py), which a series' join too: one membership, one invitation and one display link
model for both. Invitation and display link ids are kept: the audit names them. The display
links' table is left to seasons 0008, which moves a series' links out of it and then drops it."""

from django.db import migrations

MOVE = """
INSERT INTO staff_membership (scope_type_id, scope_id, user_id, role)
    SELECT %(event)s, event_id, user_id, role FROM events_event_house;
INSERT INTO staff_invitation
    (id, scope_type_id, scope_id, email, role, token, invited_by_id, created_at, accepted_at)
    SELECT id, %(event)s, event_id, email, role, token, invited_by_id, created_at, accepted_at
    FROM events_staffinvitation;
INSERT INTO staff_displaylink
    (id, scope_type_id, scope_id, label, token_hash, created_by_id, created_at, revoked_at,
     revoked_by_id, last_seen_at)
    SELECT id, %(event)s, event_id, label, token_hash, created_by_id, created_at, revoked_at,
           revoked_by_id, last_seen_at
    FROM events_displaylink WHERE event_id IS NOT NULL;
DELETE FROM events_displaylink WHERE event_id IS NOT NULL;
SELECT setval(pg_get_serial_sequence('staff_invitation', 'id'),
              GREATEST((SELECT MAX(id) FROM staff_invitation), 1));
SELECT setval(pg_get_serial_sequence('staff_displaylink', 'id'),
              GREATEST((SELECT MAX(id) FROM staff_displaylink), 1));
"""


def move(apps, schema_editor):
    content_type = apps.get_model("contenttypes", "ContentType")
    event, _ = content_type.objects.get_or_create(app_label="events", model="event")
    with schema_editor.connection.cursor() as cursor:
        cursor.execute(MOVE % {"event": int(event.pk)})


class Migration(migrations.Migration):
    dependencies = [
        ("events", "0011_display_link"),
        ("staff", "0001_initial"),
        ("contenttypes", "0002_remove_content_type_name"),
    ]

    operations = [
        migrations.RunPython(move, migrations.RunPython.noop),
        migrations.RemoveField(model_name="event", name="house"),
        migrations.DeleteModel(name="EventStaff"),
        migrations.DeleteModel(name="StaffInvitation"),
        migrations.SeparateDatabaseAndState(state_operations=[migrations.DeleteModel("DisplayLink")]),
    ]
