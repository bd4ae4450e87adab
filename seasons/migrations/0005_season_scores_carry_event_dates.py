"""Each kept score carries its event's date, which orders equal event totals under `best_of`
(docs/rules.md section 14.3: the earlier event counts); totals and counted events are recomputed
with it."""

from typing import Any

from django.db import migrations

from seasons.points import Rules, Scored, season_total


def add_event_dates(apps: Any, schema_editor: Any) -> None:
    Event = apps.get_model("events", "Event")
    SeasonStanding = apps.get_model("seasons", "SeasonStanding")
    standings = list(SeasonStanding.objects.select_related("season"))
    wanted = {score[0] for standing in standings for score in standing.scores}
    dates = {
        pk: date.isoformat()
        for pk, date in Event.objects.filter(pk__in=wanted).values_list("pk", "date")
    }
    for standing in standings:
        played = [
            Scored(
                event_id=score[0],
                points=score[1],
                eligible=score[2],
                high_first=score[3],
                date=dates.get(score[0], ""),
            )
            for score in standing.scores
            if score
        ]
        total = season_total(Rules.from_dict(standing.season.rules), played)
        standing.scores = [
            [score.event_id, score.points, score.eligible, score.high_first, score.date]
            for score in played
        ]
        standing.total, standing.counted = total.total, list(total.counted)
        standing.save(update_fields=["scores", "total", "counted"])


class Migration(migrations.Migration):
    dependencies = [
        ("seasons", "0004_former_players_in_seasons"),
        ("events", "0001_initial"),
    ]

    operations = [migrations.RunPython(add_event_dates, migrations.RunPython.noop)]
