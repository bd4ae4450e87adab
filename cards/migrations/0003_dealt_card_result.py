import django.db.models.deletion
from django.db import migrations, models

# Cards dealt before the link existed: a win's two cards through their offer, a loss card through
# the audit entry that recorded it kept for that game (same event, player, stock position).
LINK_DEALT_CARDS = """
UPDATE cards_dealtcard c SET result_id = o.result_id
FROM cards_offer o
WHERE c.offer_id = o.id AND o.result_id IS NOT NULL AND c.result_id IS NULL;

UPDATE cards_dealtcard c SET result_id = g.id
FROM audit_auditentry a
JOIN events_registration r ON r.event_id = a.event_id AND r.label = a.player
JOIN events_gameresult g
    ON g.registration_id = r.id AND g.game = (a.details ->> 'game')::integer
JOIN cards_shoe s ON s.event_id = a.event_id AND s.kind = 'stock'
WHERE a.action = 'card_kept' AND jsonb_typeof(a.details -> 'game') = 'number'
    AND c.shoe_id = s.id AND c.position = (a.details -> 'card' ->> 'position')::integer
    AND c.offer_id IS NULL AND c.result_id IS NULL;
"""


class Migration(migrations.Migration):
    dependencies = [
        ("audit", "0001_initial"),
        ("cards", "0002_order_by_columns"),
        ("events", "0003_event_audit_head"),
    ]

    operations = [
        migrations.AddField(
            model_name="dealtcard",
            name="result",
            field=models.ForeignKey(
                blank=True,
                null=True,
                on_delete=django.db.models.deletion.PROTECT,
                related_name="dealt_cards",
                to="events.gameresult",
            ),
        ),
        migrations.RunSQL(LINK_DEALT_CARDS, reverse_sql=migrations.RunSQL.noop),
    ]
