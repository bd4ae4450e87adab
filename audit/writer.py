"""Writes audit entries inside the transaction of the change they record."""

from __future__ import annotations

from dataclasses import dataclass
from datetime import UTC, datetime
from typing import Any

from audit.chain import GENESIS, entry_hash
from audit.models import AuditEntry
from events.models import Event


@dataclass(frozen=True, slots=True)
class PendingEntry:
    actor: str
    action: str
    player: str | None
    details: dict[str, Any]
    reason: str | None


def timestamp(moment: datetime) -> str:
    """ISO 8601 UTC with microseconds and a Z, the form stored and hashed."""
    return moment.astimezone(UTC).strftime("%Y-%m-%dT%H:%M:%S.%fZ")


def append(event: Event, entries: list[PendingEntry], moment: datetime) -> list[AuditEntry]:
    """Chain `entries` after the event's last entry. The caller holds the event's row lock."""
    if not entries:
        return []
    head = (
        AuditEntry.objects.filter(event=event).order_by("-seq").values_list("seq", "hash").first()
    )
    seq, prev_hash = head if head else (0, GENESIS)
    at = timestamp(moment)
    rows = []
    for pending in entries:
        seq += 1
        stored: dict[str, Any] = {
            "seq": seq,
            "at": at,
            "actor": pending.actor,
            "action": pending.action,
            "player": pending.player,
            "details": pending.details,
            "reason": pending.reason,
            "prev_hash": prev_hash,
        }
        digest = entry_hash(stored)
        rows.append(AuditEntry(event=event, hash=digest, **stored))
        prev_hash = digest
    return AuditEntry.objects.bulk_create(rows)
