"""A series' own audit, exported as JSON with its signed head (docs/audit.md, "A series' audit"):
the same chain, hashes and signing as an event's (audit/), owned by the series."""

from __future__ import annotations

from typing import Any

from django.db import transaction

from audit.anchor import event_digest
from audit.heads import chain_end, kept_head
from audit.signing import sign_owner_head
from seasons.models import Series, SeriesAuditEntry

OWNER = "series"
HEAD_FIELDS = ("seq", "hash", "at", "series_block", "signature", "key_id")


def series_block(series: Series) -> dict[str, Any]:
    """The export's `series` object, as its head signs it."""
    return {
        "id": series.pk,
        "name": series.name,
        "venue": series.venue,
        "time_zone": series.time_zone,
    }


def series_audit_document(series: Series) -> dict[str, Any]:
    """The JSON export: the series, every entry of its chain and the signed head, read at one
    moment (under the series' row lock, which every change of it takes)."""
    with transaction.atomic():
        series = Series.objects.select_for_update(no_key=True).get(pk=series.pk)
        entries = [
            entry.as_dict()
            for entry in SeriesAuditEntry.objects.filter(series=series).order_by("seq")
        ]
        block = series_block(series)
        seq, digest = chain_end(entries)
        block_digest = event_digest(block)
        signed = kept_head(
            series.head_signatures,
            {"seq": seq, "hash": digest, "series_block": block_digest},
            lambda at: sign_owner_head(OWNER, series.pk, seq, digest, at=at, block=block_digest),
        )
        # In one order, signed now or kept: downloading twice gives the same file.
        head = {name: signed[name] for name in HEAD_FIELDS}
        return {"series": block, "entries": entries, "head": head}


def export(series_id: int) -> dict[str, Any] | None:
    """`manage.py export_audit --series ID` (installed in seasons/apps.py)."""
    series = Series.objects.filter(pk=series_id).first()
    return None if series is None else series_audit_document(series)
