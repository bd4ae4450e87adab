"""Writes audit entries inside the transaction of the change they record."""

from __future__ import annotations

from dataclasses import dataclass
from datetime import UTC, datetime
from typing import Any

from audit.chain import entry_hash
from audit.models import AuditEntry
from events.models import Event


@dataclass(frozen=True, slots=True)
class PendingEntry:
    actor: str
    actor_kind: str  # ActorKind: "system", "house" or "player"
    action: str
    player: str | None
    details: dict[str, Any]
    reason: str | None
    actor_role: str | None = None  # the staff role of a House entry (events/staff.py)


def timestamp(moment: datetime) -> str:
    """ISO 8601 UTC with microseconds and a Z, the form stored and hashed."""
    return moment.astimezone(UTC).strftime("%Y-%m-%dT%H:%M:%S.%fZ")


def chain(event: Event, entries: list[PendingEntry], moment: datetime) -> list[AuditEntry]:
    """Chain `entries` after the event's last entry and move the head on `event` (not saved).

    The caller holds the event's row lock, then saves the entries with `event.audit_seq` and
    `event.audit_hash` in the same transaction.
    """
    seq, prev_hash = event.audit_seq, event.audit_hash
    at = timestamp(moment)
    rows = []
    for pending in entries:
        seq += 1
        stored: dict[str, Any] = {
            "seq": seq,
            "at": at,
            "actor": pending.actor,
            "actor_kind": pending.actor_kind,
            # Only a House entry names a role: other entries hash as they always have.
            **({"actor_role": pending.actor_role} if pending.actor_role is not None else {}),
            "action": pending.action,
            "player": pending.player,
            "details": pending.details,
            "reason": pending.reason,
            "prev_hash": prev_hash,
        }
        digest = entry_hash(stored)
        rows.append(AuditEntry(event=event, hash=digest, **stored))
        prev_hash = digest
    event.audit_seq, event.audit_hash = seq, prev_hash
    return rows
