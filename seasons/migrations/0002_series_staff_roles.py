"""A series' House members become staff with a role (staff/roles.py): the auto-created table of
the `Series.house` members is kept as the `SeriesStaff` model, with a role column. Each series'
first member becomes its owner, the others directors (docs/decisions.md)."""

from django.conf import settings
from django.db import migrations, models
import django.db.models.deletion


def owners_first(apps, schema_editor):
    SeriesStaff = apps.get_model("seasons", "SeriesStaff")
    for series_id in SeriesStaff.objects.values_list("series_id", flat=True).distinct():
        first = SeriesStaff.objects.filter(series_id=series_id).order_by("pk").first()
        SeriesStaff.objects.filter(pk=first.pk).update(role="owner")


class Migration(migrations.Migration):

    dependencies = [
        ("seasons", "0001_initial"),
        migrations.swappable_dependency(settings.AUTH_USER_MODEL),
    ]

    operations = [
        migrations.SeparateDatabaseAndState(
            state_operations=[
                migrations.CreateModel(
                    name="SeriesStaff",
                    fields=[
                        ("id", models.BigAutoField(auto_created=True, primary_key=True, serialize=False, verbose_name="ID")),
                        ("series", models.ForeignKey(on_delete=django.db.models.deletion.CASCADE, to="seasons.series")),
                        ("user", models.ForeignKey(on_delete=django.db.models.deletion.CASCADE, related_name="series_roles", to=settings.AUTH_USER_MODEL)),
                    ],
                    options={"db_table": "seasons_series_house", "unique_together": {("series", "user")}},
                ),
                migrations.AlterField(
                    model_name="series",
                    name="house",
                    field=models.ManyToManyField(blank=True, related_name="house_series", through="seasons.SeriesStaff", through_fields=("series", "user"), to=settings.AUTH_USER_MODEL),
                ),
            ],
        ),
        migrations.AddField(
            model_name="seriesstaff",
            name="role",
            field=models.CharField(choices=[("owner", "Owner"), ("director", "Director"), ("cashier", "Cashier"), ("scorer", "Scorer")], default="director", max_length=8),
        ),
        migrations.RunPython(owners_first, migrations.RunPython.noop),
    ]
