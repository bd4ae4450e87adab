"""Every event belongs to an organization: the ones already kept go to the laptop's
(docs/decisions.md, "Organizations"), and an event may name one of its organization's venues."""

import django.db.models.deletion
from django.db import migrations, models

import organizations.home

HOME_SLUG = "home"
HOME_NAME = "Our venue"


def into_the_home_organization(apps, schema_editor):
    Organization = apps.get_model("organizations", "Organization")
    Event = apps.get_model("events", "Event")
    if not Event.objects.filter(organization__isnull=True).exists():
        return
    home, _ = Organization.objects.get_or_create(slug=HOME_SLUG, defaults={"name": HOME_NAME})
    Event.objects.filter(organization__isnull=True).update(organization=home)


class Migration(migrations.Migration):
    dependencies = [
        ("events", "0014_event_language"),
        ("organizations", "0001_initial"),
    ]

    operations = [
        migrations.AddField(
            model_name="event",
            name="organization",
            field=models.ForeignKey(
                null=True,
                on_delete=django.db.models.deletion.PROTECT,
                related_name="events",
                to="organizations.organization",
            ),
        ),
        migrations.AddField(
            model_name="event",
            name="place",
            field=models.ForeignKey(
                blank=True,
                null=True,
                on_delete=django.db.models.deletion.PROTECT,
                related_name="events",
                to="organizations.venue",
            ),
        ),
        migrations.RunPython(into_the_home_organization, migrations.RunPython.noop),
        migrations.AlterField(
            model_name="event",
            name="organization",
            field=models.ForeignKey(
                default=organizations.home.home_organization_id,
                on_delete=django.db.models.deletion.PROTECT,
                related_name="events",
                to="organizations.organization",
            ),
        ),
    ]
