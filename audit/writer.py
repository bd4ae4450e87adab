"""Writes audit entries inside the transaction of the change they record."""

from __future__ import annotations

from dataclasses import dataclass
from datetime import UTC, datetime
from typing import Any, Protocol, overload

from audit.chain import entry_hash
from audit.models import AuditEntry, ChainedEntry


class ChainOwner(Protocol):
    """What owns a chain (an event; a series in the layer above) and keeps its head."""

    audit_seq: int
    audit_hash: str


@dataclass(frozen=True, slots=True)
class PendingEntry:
    actor: str
    actor_kind: str  # ActorKind: "system", "house" or "player"
    action: str
    player: str | None
    details: dict[str, Any]
    reason: str | None
    actor_role: str | None = None  # the staff role of a House entry (staff/roles.py)


def timestamp(moment: datetime) -> str:
    """ISO 8601 UTC with microseconds and a Z, the form stored and hashed."""
    return moment.astimezone(UTC).strftime("%Y-%m-%dT%H:%M:%S.%fZ")


@overload
def chain(owner: ChainOwner, entries: list[PendingEntry], moment: datetime) -> list[AuditEntry]: ...


@overload
def chain[E: ChainedEntry](
    owner: ChainOwner,
    entries: list[PendingEntry],
    moment: datetime,
    *,
    model: type[E],
    owner_field: str,
) -> list[E]: ...


def chain(
    owner: ChainOwner,
    entries: list[PendingEntry],
    moment: datetime,
    *,
    model: type[ChainedEntry] | None = None,
    owner_field: str = "event",
) -> list[Any]:
    """Chain `entries` after the owner's last entry and move the head on `owner` (not saved):
    rows of `model` (an event's `AuditEntry` unless given), each naming its owner in
    `owner_field`.

    The caller holds the owner's row lock, then saves the entries with `owner.audit_seq` and
    `owner.audit_hash` in the same transaction.
    """
    make: type[Any] = AuditEntry if model is None else model
    seq, prev_hash = owner.audit_seq, owner.audit_hash
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
        rows.append(make(**{owner_field: owner}, hash=digest, **stored))
        prev_hash = digest
    owner.audit_seq, owner.audit_hash = seq, prev_hash
    return rows
