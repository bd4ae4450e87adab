"""A season's export, JSON and CSV (docs/rules.md section 14.7): the season and its rules, each
finalized event with its signed audit head and its players' public ids, and the table."""

from __future__ import annotations

import io
from collections.abc import Iterable
from dataclasses import dataclass

from audit.anchor import FINAL, event_digest, key_id
from audit.heads import event_block, export_head
from audit.models import AuditEntry, HeadSignature
from audit.signing import signing_key
from audit.spreadsheet import SpreadsheetWriter
from events.models import Event
from events.reads.common import to_json
from seasons.models import Season, SeasonResult
from seasons.reads import SeasonRules, holder_public_id, season_rules, season_table

CSV_COLUMNS = ("player_id", "display_name", "events", "counted", "total", "rank", "qualified")


@dataclass(frozen=True, slots=True)
class ExportedSeries:
    id: int
    name: str
    venue: str
    time_zone: str


@dataclass(frozen=True, slots=True)
class ExportedSeason:
    id: int
    name: str
    series: ExportedSeries
    starts_on: str
    ends_on: str
    rules: SeasonRules


@dataclass(frozen=True, slots=True)
class EventHead:
    """The signed head of the event's audit export (docs/audit.md)."""

    seq: int
    hash: str
    phase: str
    at: str
    event_block: str
    signature: str
    key_id: str


@dataclass(frozen=True, slots=True)
class ExportedEvent:
    event_id: int
    date: str
    head: EventHead
    players: dict[str, str]  # audit label: player_id


@dataclass(frozen=True, slots=True)
class ExportedStanding:
    player_id: str
    display_name: str
    events: int
    counted: list[int]
    total: int
    rank: int
    qualified: bool


@dataclass(frozen=True, slots=True)
class SeasonExport:
    """A season as anyone may check it against its events' audits."""

    season: ExportedSeason
    events: list[ExportedEvent]
    standings: list[ExportedStanding]


def event_heads(events: Iterable[Event]) -> dict[int, EventHead]:
    """The signed head each finalized event's audit export carries (audit.export.audit_document),
    by event id, at its last entry. A payout, refund or relabelling after finalization
    (docs/rules.md section 10.8) moves it on; a season exported before keeps an earlier head,
    which the later audit's chain extends (seasons/verify.py).

    Heads signed before (every export's, and the first season export's) are read in two queries
    for all the events; a head not signed yet is signed as an audit export signs it.
    """
    by_id = {event.pk: event for event in events}
    last = {
        row["event_id"]: row
        for row in AuditEntry.objects.filter(event_id__in=by_id)
        .order_by("event_id", "-seq")
        .distinct("event_id")
        .values("event_id", "seq", "hash")
    }
    signer = key_id(signing_key().public_key())
    blocks = {pk: event_digest(event_block(event)) for pk, event in by_id.items()}
    signed = {
        (row.event_id, row.seq, row.hash, row.event_block): row
        for row in HeadSignature.objects.filter(event_id__in=by_id, phase=FINAL, key_id=signer)
    }
    heads = {}
    for pk, event in by_id.items():
        entry = last.get(pk)
        found = entry and signed.get((pk, entry["seq"], entry["hash"], blocks[pk]))
        if found:
            heads[pk] = EventHead(
                seq=found.seq,
                hash=found.hash,
                phase=found.phase,
                at=found.at,
                event_block=found.event_block,
                signature=found.signature,
                key_id=found.key_id,
            )
        else:
            entries = [{"seq": entry["seq"], "hash": entry["hash"]}] if entry else []
            heads[pk] = EventHead(**export_head(event, entries, event_block(event)))
    return heads


def season_export(season: Season) -> SeasonExport:
    view = season_table(season)
    head = view.season
    labels: dict[int, dict[str, str]] = {}
    for event_id, label, public in (
        SeasonResult.objects.filter(season=season)
        .order_by("event_id", "label")
        .values_list("event_id", "label", holder_public_id())
    ):
        labels.setdefault(event_id, {})[label] = public
    events = Event.objects.in_bulk(view.events)
    heads = event_heads(events.values())
    return SeasonExport(
        season=ExportedSeason(
            id=head.id,
            name=head.name,
            series=ExportedSeries(
                id=head.series_id, name=head.series, venue=head.venue, time_zone=head.time_zone
            ),
            starts_on=head.starts_on,
            ends_on=head.ends_on,
            rules=season_rules(season),
        ),
        events=[
            ExportedEvent(
                event_id=event_id,
                date=events[event_id].date.isoformat(),
                head=heads[event_id],
                players=labels.get(event_id, {}),
            )
            for event_id in view.events
        ],
        standings=[
            ExportedStanding(
                player_id=row.player_id,
                display_name=row.display_name,
                events=row.events,
                counted=row.counted,
                total=row.total,
                rank=row.rank,
                qualified=row.qualified,
            )
            for row in view.rows
        ],
    )


def season_document(season: Season) -> dict[str, object]:
    """The JSON export."""
    document: dict[str, object] = to_json(season_export(season))
    return document


def season_csv(season: Season) -> str:
    """The table, one row per player; `counted` as event ids joined by spaces."""
    out = io.StringIO()
    writer = SpreadsheetWriter(out)
    writer.writerow(CSV_COLUMNS)
    for row in season_table(season).rows:
        writer.writerow(
            [
                row.player_id,
                row.display_name,
                row.events,
                " ".join(str(event_id) for event_id in row.counted),
                row.total,
                row.rank,
                "yes" if row.qualified else "no",
            ]
        )
    return out.getvalue()
