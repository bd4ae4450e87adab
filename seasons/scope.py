"""The series as the scope above events: its staff hold their roles in each of its events, and a
change of the series itself runs through the engine's runner like an event's: the series locked,
its staff's roles guarded, its own audit chained. The engine asks through
`events.runner.use_scope_above` (installed in seasons/apps.py) and names nothing of this app."""

from __future__ import annotations

import zoneinfo
from datetime import datetime
from typing import Any

from django.db.models import QuerySet
from django.utils import timezone

from audit.writer import PendingEntry, chain
from events.models import Event, Phase
from seasons.models import Series, SeriesAuditEntry
from staff.models import Membership, scope_type


class SeriesScope:
    """A series, the roles its staff hold, and its audit chain (`events.runner.ScopeAbove`)."""

    noun = "series"

    def exists(self, scope_id: int) -> bool:
        return Series.objects.filter(pk=scope_id).exists()

    def roles(self, user_id: int, scope_id: int) -> QuerySet[Any, tuple[str]]:
        return (
            Membership.objects.filter(
                scope_type=scope_type(Series), scope_id=scope_id, user_id=user_id
            )
            .order_by()
            .values_list("role")
        )

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

    def shown_event(self, scope_id: int) -> Event | None:
        """The series' current event: the one in play (started, else open and dated today in
        the series' time zone), else the next one open for registration, else the latest
        finalized; None when the series has none of those."""
        series = Series.objects.filter(pk=scope_id).first()
        if series is None:
            return None
        events = Event.objects.filter(series=series)
        started = events.filter(phase=Phase.STARTED).order_by("-date", "-pk").first()
        if started is not None:
            return started
        today = timezone.now().astimezone(_zone(series.time_zone)).date()
        tonight = events.filter(phase=Phase.OPEN, date=today).order_by("pk").first()
        if tonight is not None:
            return tonight
        upcoming = (
            events.filter(phase=Phase.OPEN, registration_open=True, date__gte=today)
            .order_by("date", "pk")
            .first()
        )
        if upcoming is not None:
            return upcoming
        return events.filter(phase=Phase.FINALIZED).order_by("-date", "-pk").first()


def _zone(name: str) -> zoneinfo.ZoneInfo:
    try:
        return zoneinfo.ZoneInfo(name)
    except (zoneinfo.ZoneInfoNotFoundError, ValueError):
        return zoneinfo.ZoneInfo("UTC")
