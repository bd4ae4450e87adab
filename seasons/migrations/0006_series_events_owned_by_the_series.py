"""An event of a series is owned by the series' owner and has no owner of its own
(docs/decisions.md, "An event's owner in a series"): an own owner who is the series' owner goes
(their series role holds in it), any other stays on as director.

An event's staff are in `events_event_house`, or already in the staff layer's table when events
0012 ran first (the two apps' migrations do not wait on each other): the same change either way.
The events' series are read from the old `series_id` column of the events' table, which only
databases migrated before seasons 0009 have."""

from django.db import migrations

# The event owners whose event is in a series, as (row's table, its where clause).
OLD = """
DELETE FROM events_event_house AS own USING events_event AS e, seasons_series_house AS s
    WHERE own.event_id = e.id AND own.role = 'owner' AND s.series_id = e.series_id
      AND s.role = 'owner' AND s.user_id = own.user_id;
UPDATE events_event_house AS own SET role = 'director' FROM events_event AS e
    WHERE own.event_id = e.id AND own.role = 'owner' AND e.series_id IS NOT NULL;
"""
MOVED = """
DELETE FROM staff_membership AS own USING events_event AS e, seasons_series_house AS s
    WHERE own.scope_type_id = %(event)s AND own.scope_id = e.id AND own.role = 'owner'
      AND s.series_id = e.series_id AND s.role = 'owner' AND s.user_id = own.user_id;
UPDATE staff_membership AS own SET role = 'director' FROM events_event AS e
    WHERE own.scope_type_id = %(event)s AND own.scope_id = e.id AND own.role = 'owner'
      AND e.series_id IS NOT NULL;
"""
SERIES_COLUMN = """
SELECT 1 FROM information_schema.columns
    WHERE table_name = 'events_event' AND column_name = 'series_id'
      AND table_schema = current_schema()
"""


def owned_by_the_series(apps, schema_editor):
    connection = schema_editor.connection
    tables = connection.introspection.table_names()
    with connection.cursor() as cursor:
        # Only a database migrated before seasons 0009 keeps an event's series on the events'
        # table; on a fresh one no event is in a series yet, and nothing changes.
        cursor.execute(SERIES_COLUMN)
        if cursor.fetchone() is None:
            return
        if "events_event_house" in tables:
            cursor.execute(OLD)
        else:
            content_type = apps.get_model("contenttypes", "ContentType")
            event, _ = content_type.objects.get_or_create(app_label="events", model="event")
            cursor.execute(MOVED % {"event": int(event.pk)})


class Migration(migrations.Migration):
    dependencies = [
        ("seasons", "0005_season_scores_carry_event_dates"),
        ("events", "0011_display_link"),
        ("contenttypes", "0002_remove_content_type_name"),
    ]

    operations = [migrations.RunPython(owned_by_the_series, migrations.RunPython.noop)]
