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

from collections.abc import Mapping, Sequence
from datetime import datetime
from typing import Any

from django.utils import timezone

from audit.anchor import FINAL, RUNNING, event_digest, key_id
from audit.chain import GENESIS
from audit.models import HeadSignature
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
    seq, digest = (entries[-1]["seq"], entries[-1]["hash"]) if entries else (0, GENESIS)
    phase, block_digest = head_phase(event), event_digest(block)
    signer = key_id(signing_key().public_key())
    same = HeadSignature.objects.filter(
        event=event,
        seq=seq,
        hash=digest,
        phase=phase,
        event_block=block_digest,
        key_id=signer,
    ).first()
    if same is not None:
        return {
            "seq": same.seq,
            "hash": same.hash,
            "phase": same.phase,
            "at": same.at,
            "event_block": same.event_block,
            "signature": same.signature,
            "key_id": same.key_id,
        }
    head = sign_head(
        event.pk,
        seq,
        digest,
        phase=phase,
        at=timestamp(timezone.now()),
        event_block=block_digest,
    )
    HeadSignature.objects.create(event=event, **head)
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
