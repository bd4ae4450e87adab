"""The audit chain's head moves onto the event row; default orderings stop joining the parent.

Existing events take their head from their last audit entry.
"""

from django.db import migrations, models


def copy_heads(apps, schema_editor):
    Event = apps.get_model("events", "Event")
    AuditEntry = apps.get_model("audit", "AuditEntry")
    for event in Event.objects.all().only("pk"):
        head = (
            AuditEntry.objects.filter(event_id=event.pk)
            .order_by("-seq")
            .values_list("seq", "hash")
            .first()
        )
        if head is not None:
            Event.objects.filter(pk=event.pk).update(audit_seq=head[0], audit_hash=head[1])


class Migration(migrations.Migration):
    dependencies = [
        ("events", "0002_registration_version"),
        ("audit", "0002_append_only"),
    ]

    operations = [
        migrations.AlterModelOptions(
            name="gameresult",
            options={"ordering": ["registration_id", "game"]},
        ),
        migrations.AlterModelOptions(
            name="pooladjustment",
            options={"ordering": ["event_id", "id"]},
        ),
        migrations.AlterModelOptions(
            name="registration",
            options={"ordering": ["event_id", "id"]},
        ),
        migrations.AlterModelOptions(
            name="review",
            options={"ordering": ["registration_id", "id"]},
        ),
        migrations.AddField(
            model_name="event",
            name="audit_hash",
            field=models.CharField(
                default="0000000000000000000000000000000000000000000000000000000000000000",
                max_length=64,
            ),
        ),
        migrations.AddField(
            model_name="event",
            name="audit_seq",
            field=models.PositiveIntegerField(default=0),
        ),
        migrations.RunPython(copy_heads, migrations.RunPython.noop),
    ]
