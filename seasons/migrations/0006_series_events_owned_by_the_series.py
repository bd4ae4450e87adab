"""An event of a series is owned by the series' owner and has no owner of its own
(docs/decisions.md, "An event's owner in a series"): an own owner who is the series' owner goes
(their series role holds in it), any other stays on as director."""

from django.apps.registry import Apps
from django.db import migrations
from django.db.backends.base.schema import BaseDatabaseSchemaEditor


def owned_by_the_series(apps: Apps, schema_editor: BaseDatabaseSchemaEditor) -> None:
    event_staff = apps.get_model("events", "EventStaff")
    series_staff = apps.get_model("seasons", "SeriesStaff")
    owners = set(series_staff.objects.filter(role="owner").values_list("series_id", "user_id"))
    rows = event_staff.objects.filter(role="owner", event__series__isnull=False)
    for row in rows.select_related("event"):
        if (row.event.series_id, row.user_id) in owners:
            row.delete()
        else:
            row.role = "director"
            row.save(update_fields=["role"])


class Migration(migrations.Migration):
    dependencies = [
        ("seasons", "0005_season_scores_carry_event_dates"),
        ("events", "0011_display_link"),
    ]

    operations = [migrations.RunPython(owned_by_the_series, migrations.RunPython.noop)]
