"""Which events are in which series is kept here, beside the series (`SeriesEvent`), no longer in
a column of the events' table: the engine names no series. A started or finalized event stays
in its series (docs/rules.md section 14.1): a trigger refuses putting it in one, moving it or
taking it out.

Databases migrated before have the old `series_id` column on `events_event`, and its trigger:
their links are copied here, then the trigger and the column go. A fresh database never had
them."""

import django.db.models.deletion
from django.db import migrations, models

MOVE = """
DO $$
BEGIN
    IF EXISTS (
        SELECT 1 FROM information_schema.columns
        WHERE table_name = 'events_event' AND column_name = 'series_id'
          AND table_schema = current_schema()
    ) THEN
        DROP TRIGGER IF EXISTS events_event_series_stays ON events_event;
        DROP FUNCTION IF EXISTS events_event_series_stays();
        INSERT INTO seasons_seriesevent (event_id, series_id)
            SELECT id, series_id FROM events_event WHERE series_id IS NOT NULL;
        ALTER TABLE events_event DROP COLUMN series_id;
    END IF;
END $$;
"""

STAYS = """
CREATE FUNCTION seasons_seriesevent_stays() RETURNS trigger AS $$
DECLARE
    moved bigint;
BEGIN
    IF TG_OP = 'UPDATE' AND NEW.event_id = OLD.event_id AND NEW.series_id = OLD.series_id THEN
        RETURN NEW;
    END IF;
    SELECT id INTO moved FROM events_event
        WHERE phase IN ('started', 'finalized')
          AND id IN (
              CASE WHEN TG_OP = 'DELETE' THEN NULL ELSE NEW.event_id END,
              CASE WHEN TG_OP = 'INSERT' THEN NULL ELSE OLD.event_id END
          )
        LIMIT 1;
    IF moved IS NOT NULL THEN
        RAISE EXCEPTION 'event % has started: it cannot move between series', moved
            USING ERRCODE = 'check_violation';
    END IF;
    IF TG_OP = 'DELETE' THEN
        RETURN OLD;
    END IF;
    RETURN NEW;
END;
$$ LANGUAGE plpgsql;
CREATE TRIGGER seasons_seriesevent_stays
    BEFORE INSERT OR UPDATE OR DELETE ON seasons_seriesevent
    FOR EACH ROW EXECUTE FUNCTION seasons_seriesevent_stays();
"""
GONE = """
DROP TRIGGER IF EXISTS seasons_seriesevent_stays ON seasons_seriesevent;
DROP FUNCTION IF EXISTS seasons_seriesevent_stays();
"""


class Migration(migrations.Migration):
    dependencies = [
        ("events", "0012_staff_moves_to_the_staff_layer"),
        ("seasons", "0008_staff_moves_to_the_staff_layer"),
    ]

    operations = [
        migrations.CreateModel(
            name="SeriesEvent",
            fields=[
                ("event", models.OneToOneField(on_delete=django.db.models.deletion.CASCADE, primary_key=True, related_name="series_link", serialize=False, to="events.event")),
                ("series", models.ForeignKey(on_delete=django.db.models.deletion.PROTECT, related_name="event_links", to="seasons.series")),
            ],
        ),
        migrations.AddField(
            model_name="series",
            name="events",
            field=models.ManyToManyField(related_name="+", related_query_name="series", through="seasons.SeriesEvent", to="events.event"),
        ),
        migrations.RunSQL(MOVE, migrations.RunSQL.noop),
        migrations.RunSQL(STAYS, GONE),
    ]
