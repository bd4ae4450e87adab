"""The heads the deployment signs (audit/anchor.py): an export's, and the finalizing entry's.

An export's head signs its last entry, the phase (`final` once the event is finalized, else
`running`), the time and the export's event block. The head `event_finalized` records signs the
chain up to the entry before it as `final`, with the event block the final export shows: so no
head taken from a finalized event can present it as running (docs/audit.md, "What a signature
proves").

A finalized event's export may later sign a longer chain, still `final`: the payouts, refunds and
relabellings docs/rules.md section 10.8 allows after finalization. Each head signed before stays
true of its seq, and the later chain extends it (docs/audit.md, "Earlier heads").
"""

from __future__ import annotations

from collections.abc import Callable, Mapping, Sequence
from datetime import datetime
from typing import Any

from django.db.models import Manager
from django.utils import timezone

from audit.anchor import FINAL, RUNNING, event_digest, key_id
from audit.chain import GENESIS
from audit.signing import SignedHead, sign_head, signing_key
from audit.writer import timestamp
from events.models import Event, Phase


def event_block(event: Event) -> dict[str, Any]:
    """The export's `event` object, as the heads sign it."""
    return {
        "id": event.pk,
        "name": event.name,
        "format": event.format,
        "contribution": event.contribution,
        "venue": event.venue,
        "date": event.date.isoformat(),
        "phase": event.phase,
        "commitment": event.commitment or None,
    }


def head_phase(event: Event) -> str:
    return FINAL if event.phase == Phase.FINALIZED else RUNNING


def export_head(
    event: Event, entries: Sequence[Mapping[str, Any]], block: Mapping[str, Any]
) -> SignedHead:
    """The signed head of an export: its last entry (seq 0 and the genesis hash for none).

    The caller holds the event's row lock, so the entries, the phase and the block are one
    moment's. A head already signed for the same chain, phase, block and key is given again.
    """
    seq, digest = chain_end(entries)
    phase, block_digest = head_phase(event), event_digest(block)
    signed = kept_head(
        event.head_signatures,
        {"seq": seq, "hash": digest, "phase": phase, "event_block": block_digest},
        lambda at: dict(
            sign_head(event.pk, seq, digest, phase=phase, at=at, event_block=block_digest)
        ),
    )
    return {
        "seq": signed["seq"],
        "hash": signed["hash"],
        "phase": signed["phase"],
        "at": signed["at"],
        "event_block": signed["event_block"],
        "signature": signed["signature"],
        "key_id": signed["key_id"],
    }


def chain_end(entries: Sequence[Mapping[str, Any]]) -> tuple[int, str]:
    """The seq and hash an export's head signs: its last entry's (seq 0 and the genesis hash
    for none)."""
    return (entries[-1]["seq"], entries[-1]["hash"]) if entries else (0, GENESIS)


def kept_head(
    kept: Manager[Any], fields: Mapping[str, Any], sign: Callable[[str], dict[str, Any]]
) -> dict[str, Any]:
    """A head of a chain (an event's, a series'), signed once and kept: one kept before for the
    same `fields` (the chain's end and the block it signs) under the key in force is given again,
    so downloading twice gives the same file; else `sign` signs it at this moment, and it is
    kept. `kept` is the owner's kept heads (its `head_signatures` manager, which
    names the owner in what it creates)."""
    signer = key_id(signing_key().public_key())
    same = kept.filter(key_id=signer, **fields).first()
    if same is not None:
        head = {name: getattr(same, name) for name in fields}
        return head | {"at": same.at, "signature": same.signature, "key_id": same.key_id}
    head = sign(timestamp(timezone.now()))
    kept.create(**head)
    return head


def finalizing_head(event: Event, moment: datetime) -> SignedHead:
    """The head `event_finalized` records: the chain up to the entry before it, signed as final
    with the event block of the final export. Called while finalizing, after the event's phase
    became finalized and before the finalizing entry is chained."""
    if event.phase != Phase.FINALIZED:
        raise ValueError("The finalizing head is signed once the event's phase is finalized.")
    return sign_head(
        event.pk,
        event.audit_seq,
        event.audit_hash,
        phase=FINAL,
        at=timestamp(moment),
        event_block=event_digest(event_block(event)),
    )
