"""A season's export, JSON and CSV (docs/rules.md section 14.7): the season and its rules, each
finalized event with its signed audit head and its players' public ids, and the table."""

from __future__ import annotations

import csv
import io
from typing import Any

from audit.heads import event_block, export_head
from audit.models import AuditEntry
from audit.spreadsheet import spreadsheet_cell
from events.models import Event
from seasons.models import Season, SeasonResult
from seasons.points import Rules
from seasons.reads import season_table

CSV_COLUMNS = ("player_id", "display_name", "events", "counted", "total", "rank", "qualified")


def event_head(event: Event) -> dict[str, Any]:
    """The signed head the event's audit export carries (audit.export.audit_document): a
    finalized event's chain never grows, so its last entry gives the same head."""
    last = AuditEntry.objects.filter(event=event).order_by("-seq").values("seq", "hash").first()
    return dict(export_head(event, [last] if last else [], event_block(event)))


def season_document(season: Season) -> dict[str, Any]:
    view = season_table(season)
    head = view.season
    labels: dict[int, dict[str, str]] = {}
    for event_id, label, public in (
        SeasonResult.objects.filter(season=season)
        .order_by("event_id", "label")
        .values_list("event_id", "label", "player__player_key__public_id")
    ):
        labels.setdefault(event_id, {})[label] = public
    events = Event.objects.in_bulk(view.events)
    return {
        "season": {
            "id": head.id,
            "name": head.name,
            "series": {
                "id": head.series_id,
                "name": head.series,
                "venue": head.venue,
                "time_zone": head.time_zone,
            },
            "starts_on": head.starts_on,
            "ends_on": head.ends_on,
            "rules": Rules.from_dict(season.rules).as_dict(),
        },
        "events": [
            {
                "event_id": event_id,
                "date": events[event_id].date.isoformat(),
                "head": event_head(events[event_id]),
                "players": labels.get(event_id, {}),
            }
            for event_id in view.events
        ],
        "standings": [
            {
                "player_id": row.player_id,
                "display_name": row.display_name,
                "events": row.events,
                "counted": row.counted,
                "total": row.total,
                "rank": row.rank,
                "qualified": row.qualified,
            }
            for row in view.rows
        ],
    }


def season_csv(season: Season) -> str:
    """The table, one row per player; `counted` as event ids joined by spaces."""
    out = io.StringIO()
    writer = csv.writer(out)
    writer.writerow(CSV_COLUMNS)
    for row in season_table(season).rows:
        writer.writerow(
            [
                spreadsheet_cell(row.player_id),
                spreadsheet_cell(row.display_name),
                row.events,
                " ".join(str(event_id) for event_id in row.counted),
                row.total,
                row.rank,
                "yes" if row.qualified else "no",
            ]
        )
    return out.getvalue()
