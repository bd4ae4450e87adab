"""Every series belongs to an organization: the ones already kept go to the laptop's
(docs/decisions.md, "Organizations"), and its staff hold their roles under the organization's."""

import django.db.models.deletion
from django.db import migrations, models

import organizations.home

HOME_SLUG = "home"
HOME_NAME = "Our venue"


def into_the_home_organization(apps, schema_editor):
    Organization = apps.get_model("organizations", "Organization")
    Series = apps.get_model("seasons", "Series")
    if not Series.objects.filter(organization__isnull=True).exists():
        return
    home, _ = Organization.objects.get_or_create(slug=HOME_SLUG, defaults={"name": HOME_NAME})
    Series.objects.filter(organization__isnull=True).update(organization=home)


class Migration(migrations.Migration):
    dependencies = [
        ("seasons", "0011_series_language"),
        ("organizations", "0001_initial"),
    ]

    operations = [
        migrations.AddField(
            model_name="series",
            name="organization",
            field=models.ForeignKey(
                null=True,
                on_delete=django.db.models.deletion.PROTECT,
                related_name="series",
                to="organizations.organization",
            ),
        ),
        migrations.RunPython(into_the_home_organization, migrations.RunPython.noop),
        migrations.AlterField(
            model_name="series",
            name="organization",
            field=models.ForeignKey(
                default=organizations.home.home_organization_id,
                on_delete=django.db.models.deletion.PROTECT,
                related_name="series",
                to="organizations.organization",
            ),
        ),
    ]
