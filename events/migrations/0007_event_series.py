"""An event may belong to a series (seasons.Series), whose House also runs it; once the event has
started it stays in its series (docs/rules.md section 14.1): a trigger refuses the change."""

import django.db.models.deletion
from django.db import migrations, models

UP = """
CREATE FUNCTION events_event_series_stays() RETURNS trigger AS $$
BEGIN
    IF NEW.series_id IS DISTINCT FROM OLD.series_id
       AND OLD.phase IN ('started', 'finalized') THEN
        RAISE EXCEPTION 'event % has started: it cannot move between series', OLD.id
            USING ERRCODE = 'check_violation';
    END IF;
    RETURN NEW;
END;
$$ LANGUAGE plpgsql;
CREATE TRIGGER events_event_series_stays
    BEFORE UPDATE OF series_id ON events_event
    FOR EACH ROW EXECUTE FUNCTION events_event_series_stays();
"""
DOWN = """
DROP TRIGGER IF EXISTS events_event_series_stays ON events_event;
DROP FUNCTION IF EXISTS events_event_series_stays();
"""


class Migration(migrations.Migration):
    dependencies = [
        ("events", "0006_event_pool_first_confirmed_at"),
        ("seasons", "0001_initial"),
    ]

    operations = [
        migrations.AddField(
            model_name="event",
            name="series",
            field=models.ForeignKey(
                blank=True,
                null=True,
                on_delete=django.db.models.deletion.PROTECT,
                related_name="events",
                to="seasons.series",
            ),
        ),
        migrations.RunSQL(UP, DOWN),
    ]
