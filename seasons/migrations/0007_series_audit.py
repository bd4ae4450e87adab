"""A series keeps its own audit chain, with signed heads for its exports (docs/audit.md, "A series'
audit"). Its entries are append-only in the database as an event's are: the triggers of the audit
app's migrations 0002 and 0005 refuse every UPDATE, DELETE and TRUNCATE of them too."""

import django.db.models.deletion
from django.db import migrations, models


APPEND_ONLY = """
CREATE TRIGGER series_audit_entries_append_only
    BEFORE UPDATE OR DELETE ON seasons_seriesauditentry
    FOR EACH ROW EXECUTE FUNCTION audit_entries_are_append_only();
CREATE TRIGGER series_audit_entries_never_truncated
    BEFORE TRUNCATE ON seasons_seriesauditentry
    FOR EACH STATEMENT EXECUTE FUNCTION audit_entries_are_never_truncated();
"""
NOT_APPEND_ONLY = """
DROP TRIGGER IF EXISTS series_audit_entries_never_truncated ON seasons_seriesauditentry;
DROP TRIGGER IF EXISTS series_audit_entries_append_only ON seasons_seriesauditentry;
"""


class Migration(migrations.Migration):
    dependencies = [
        ("seasons", "0006_series_events_owned_by_the_series"),
        ("audit", "0005_refuse_truncate"),
    ]

    operations = [
        migrations.AddField(
            model_name="series",
            name="audit_hash",
            field=models.CharField(
                default="0000000000000000000000000000000000000000000000000000000000000000",
                max_length=64,
            ),
        ),
        migrations.AddField(
            model_name="series",
            name="audit_seq",
            field=models.PositiveIntegerField(default=0),
        ),
        migrations.CreateModel(
            name="SeriesAuditEntry",
            fields=[
                (
                    "id",
                    models.BigAutoField(
                        auto_created=True, primary_key=True, serialize=False, verbose_name="ID"
                    ),
                ),
                ("seq", models.PositiveIntegerField()),
                ("at", models.CharField(max_length=32)),
                ("actor", models.CharField(max_length=100)),
                (
                    "actor_kind",
                    models.CharField(
                        blank=True,
                        choices=[("system", "System"), ("house", "House"), ("player", "Player")],
                        max_length=8,
                        null=True,
                    ),
                ),
                ("actor_role", models.CharField(blank=True, max_length=8, null=True)),
                ("action", models.CharField(max_length=40)),
                ("player", models.CharField(blank=True, max_length=48, null=True)),
                ("details", models.JSONField(default=dict)),
                ("reason", models.TextField(blank=True, null=True)),
                ("prev_hash", models.CharField(max_length=64)),
                ("hash", models.CharField(max_length=64)),
                (
                    "series",
                    models.ForeignKey(
                        on_delete=django.db.models.deletion.PROTECT,
                        related_name="audit_entries",
                        to="seasons.series",
                    ),
                ),
            ],
            options={
                "verbose_name_plural": "series audit entries",
                "ordering": ["series_id", "seq"],
                "constraints": [
                    models.UniqueConstraint(
                        fields=("series", "seq"), name="one_series_entry_per_seq"
                    )
                ],
            },
        ),
        migrations.CreateModel(
            name="SeriesHeadSignature",
            fields=[
                (
                    "id",
                    models.BigAutoField(
                        auto_created=True, primary_key=True, serialize=False, verbose_name="ID"
                    ),
                ),
                ("seq", models.PositiveIntegerField()),
                ("hash", models.CharField(max_length=64)),
                ("key_id", models.CharField(max_length=16)),
                ("at", models.CharField(max_length=32)),
                ("signature", models.CharField(max_length=128)),
                ("series_block", models.CharField(max_length=64)),
                (
                    "series",
                    models.ForeignKey(
                        on_delete=django.db.models.deletion.CASCADE,
                        related_name="head_signatures",
                        to="seasons.series",
                    ),
                ),
            ],
            options={
                "constraints": [
                    models.UniqueConstraint(
                        fields=("series", "seq", "hash", "series_block", "key_id"),
                        name="one_signature_per_series_head",
                    )
                ],
            },
        ),
        migrations.RunSQL(APPEND_ONLY, NOT_APPEND_ONLY),
    ]
