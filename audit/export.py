"""The public audit of an event, as JSON and CSV (docs/audit.md)."""

from __future__ import annotations

import io
from collections.abc import Callable, Mapping
from typing import Any

from django.db import transaction

from audit.chain import canonical_json
from audit.heads import event_block, export_head
from audit.models import AuditEntry
from audit.spreadsheet import SpreadsheetWriter
from cards.stock import seed_hex
from events.models import Event, Phase, RegistrationStatus
from events.progress import hands

COLUMNS = (
    "seq",
    "at",
    "actor",
    "actor_kind",
    "action",
    "player",
    "details",
    "reason",
    "prev_hash",
    "hash",
    # Last, so every earlier column stays where it was (audit/verify.py reads both headers).
    "actor_role",
)
# The signed head (audit/anchor.py) rides on the row of the entry it signs, the last one.
HEAD_COLUMNS = ("head_signature", "head_key_id")


# The chains above events (a series'), by their owner's name: how the layer above exports each
# one, given its id (None when there is none). Installed by that layer (seasons/apps.py), so the
# engine's `export_audit` offers `--<owner> ID` without naming it.
_owner_exports: dict[str, Callable[[int], dict[str, Any] | None]] = {}


def use_owner_export(owner: str, export: Callable[[int], dict[str, Any] | None]) -> None:
    _owner_exports[owner] = export


def owner_exports() -> Mapping[str, Callable[[int], dict[str, Any] | None]]:
    return dict(_owner_exports)


def audit_entries(event: Event) -> list[dict[str, Any]]:
    return [entry.as_dict() for entry in AuditEntry.objects.filter(event=event).order_by("seq")]


def audit_document(event: Event) -> dict[str, Any]:
    """The JSON export: the event, every entry, the signed head, and after finalization the
    seed and the result, all read at one moment (under the event's row lock, which every change
    takes), so the head never signs a phase or event block its entries disagree with."""
    with transaction.atomic():
        event = Event.objects.select_for_update().get(pk=event.pk)
        finalized = event.phase == Phase.FINALIZED
        entries = audit_entries(event)
        block = event_block(event)
        return {
            "event": block,
            "entries": entries,
            "head": export_head(event, entries, block),
            "seed": seed_hex(event.pk) if finalized else None,
            "result": final_result(event) if finalized else None,
        }


def final_result(event: Event) -> dict[str, Any]:
    players = list(
        event.registrations.filter(
            status__in=[RegistrationStatus.CHECKED_IN, RegistrationStatus.WITHDRAWN]
        ).order_by("check_in_order")
    )
    held = hands(event, players)
    return {
        "pool": event.confirmed_pool,
        "adjustments": [
            {"amount": amount, "explanation": explanation}
            for amount, explanation in event.adjustments.order_by("id").values_list(
                "amount", "explanation"
            )
        ],
        "unallocated": event.unallocated,
        "players": [
            {
                "player": r.label,
                "status": "withdrawn" if r.status == RegistrationStatus.WITHDRAWN else "eligible",
                "cards": list(held[r.pk].cards),
                "wild_rank": r.wild_rank or None,
                "high_place": r.high_place,
                "low_place": r.low_place,
                "award": r.award or 0,
            }
            for r in players
        ],
    }


def audit_csv(event: Event) -> str:
    """One row per entry, the same fields, `details` as JSON text; every cell spreadsheet-safe."""
    out = io.StringIO()
    writer = SpreadsheetWriter(out)
    writer.writerow(COLUMNS + HEAD_COLUMNS)
    with transaction.atomic():  # one moment, as in audit_document: the same head for the same chain
        event = Event.objects.select_for_update().get(pk=event.pk)
        entries = audit_entries(event)
        head = export_head(event, entries, event_block(event))
    for entry in entries:
        entry["details"] = canonical_json(entry["details"])
        signs = entry["seq"] == head["seq"]
        row = [entry.get(column) for column in COLUMNS]
        writer.writerow(row + ([head["signature"], head["key_id"]] if signs else ["", ""]))
    return out.getvalue()
