"""House members become staff with a role (staff/roles.py): the auto-created table of the
`Event.house` members is kept as the `EventStaff` model, with a role column. The event's creator
(its first `house_member_added` entry), or else its first member, becomes the owner; the others
are directors, who keep every power they had but changing the staff (docs/decisions.md)."""

from django.conf import settings
from django.db import migrations, models
import django.db.models.deletion


def owners_first(apps, schema_editor):
    EventStaff = apps.get_model("events", "EventStaff")
    AuditEntry = apps.get_model("audit", "AuditEntry")
    User = apps.get_model("accounts", "User")
    for event_id in EventStaff.objects.values_list("event_id", flat=True).distinct():
        members = EventStaff.objects.filter(event_id=event_id).order_by("pk")
        owner = None
        created = (
            AuditEntry.objects.filter(event_id=event_id, action="house_member_added")
            .order_by("seq")
            .first()
        )
        if created is not None:
            name = (created.details or {}).get("member")
            ids = User.objects.filter(display_name=name).values_list("pk", flat=True)
            owner = members.filter(user_id__in=list(ids)).first()
        owner = owner or members.first()
        if owner is not None:
            EventStaff.objects.filter(pk=owner.pk).update(role="owner")


class Migration(migrations.Migration):

    dependencies = [
        ("events", "0008_entry_mode"),
        ("audit", "0005_refuse_truncate"),
        migrations.swappable_dependency(settings.AUTH_USER_MODEL),
    ]

    operations = [
        migrations.SeparateDatabaseAndState(
            state_operations=[
                migrations.CreateModel(
                    name="EventStaff",
                    fields=[
                        ("id", models.BigAutoField(auto_created=True, primary_key=True, serialize=False, verbose_name="ID")),
                        ("event", models.ForeignKey(on_delete=django.db.models.deletion.CASCADE, to="events.event")),
                        ("user", models.ForeignKey(on_delete=django.db.models.deletion.CASCADE, related_name="event_roles", to=settings.AUTH_USER_MODEL)),
                    ],
                    options={"db_table": "events_event_house", "unique_together": {("event", "user")}},
                ),
                migrations.AlterField(
                    model_name="event",
                    name="house",
                    field=models.ManyToManyField(blank=True, related_name="house_events", through="events.EventStaff", through_fields=("event", "user"), to=settings.AUTH_USER_MODEL),
                ),
            ],
        ),
        migrations.AddField(
            model_name="eventstaff",
            name="role",
            field=models.CharField(choices=[("owner", "Owner"), ("director", "Director"), ("cashier", "Cashier"), ("scorer", "Scorer")], default="director", max_length=8),
        ),
        migrations.RunPython(owners_first, migrations.RunPython.noop),
    ]
