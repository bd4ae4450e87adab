"""The series as the scope above events: its staff hold their roles in each of its events, and a
change of the series itself runs through the engine's runner like an event's: the series locked,
its staff's roles guarded, its own audit chained. The engine asks through
`events.runner.use_scope_above` (installed in seasons/apps.py) and names nothing of this app."""

from __future__ import annotations

from datetime import datetime
from typing import Any

from django.db.models import QuerySet

from audit.writer import PendingEntry, chain
from seasons.models import Series, SeriesAuditEntry, SeriesStaff


class SeriesScope:
    """A series, the roles its staff hold, and its audit chain (`events.runner.ScopeAbove`)."""

    noun = "series"

    def exists(self, scope_id: int) -> bool:
        return Series.objects.filter(pk=scope_id).exists()

    def roles(self, user_id: int, scope_id: int) -> QuerySet[Any, tuple[str]]:
        return SeriesStaff.objects.filter(user_id=user_id, series_id=scope_id).values_list("role")

    def lock(self, scope_id: int) -> Series | None:
        """One lock order everywhere: a series before any of its events, no key update (the rows
        that name it are not held up)."""
        return Series.objects.select_for_update(no_key=True).filter(pk=scope_id).first()

    def record(self, scope: Any, entries: list[PendingEntry], moment: datetime) -> None:
        series: Series = scope
        rows = chain(series, entries, moment, model=SeriesAuditEntry, owner_field="series")
        SeriesAuditEntry.objects.bulk_create(rows)
        Series.objects.filter(pk=series.pk).update(
            audit_seq=series.audit_seq, audit_hash=series.audit_hash
        )
