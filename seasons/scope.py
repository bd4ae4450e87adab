"""The series as the scope above events: its staff hold their roles in each of its events, and a
change of the series itself runs through the engine's runner like an event's: the series locked,
its staff's roles guarded, its own audit chained. The engine asks through
`events.runner.use_scope_above` (installed in seasons/apps.py) and names nothing of this app."""

from __future__ import annotations

import zoneinfo
from datetime import datetime
from typing import Any

from django.db.models import Model, QuerySet
from django.utils import timezone

from accounts import revocation
from accounts.models import User
from audit.writer import PendingEntry, chain
from events.models import Event, Phase
from events.runner import Change
from seasons.models import Series, SeriesAuditEntry, SeriesEvent, series_of


class SeriesScope:
    """A series, the roles its staff hold, and its audit chain (`events.runner.ScopeAbove`)."""

    noun = "series"
    rank = 1

    @property
    def model(self) -> type[Series]:
        return Series

    def exists(self, scope_id: int) -> bool:
        return Series.objects.filter(pk=scope_id).exists()

    def of_event(self, event_id: int) -> Series | None:
        return series_of(event_id)

    def place(self, event: Event, scope_id: int) -> None:
        SeriesEvent.objects.create(event=event, series_id=scope_id)

    def containing(self, model: type[Model], scope_id: int) -> QuerySet[Any, Any]:
        """The series an event is in (none for a series or anything above it)."""
        if model is Event:
            return SeriesEvent.objects.filter(event_id=scope_id).values("series_id")
        return Series.objects.none().values("pk")

    def events(self, scope_id: int) -> QuerySet[Any, Any]:
        return SeriesEvent.objects.filter(series_id=scope_id).values("event_id")

    def refused(self, model: type[Model], scope_id: int) -> QuerySet[Any, Any]:
        return Series.objects.none().values("pk")  # a series' House is never refused alone

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

    def member_left(
        self, change: Change, member: User, scope_id: int, leaving_as: str | None
    ) -> None:
        """Take `member` off the staff of each of the series' events not yet finalized (a
        finalized event changes no more), each event locked after the series, in id order, its
        removal in its own audit chain, with their pending invitations to it; their open sockets
        check their access after the commit (docs/decisions.md, "Removal from a series")."""
        from events.staffing import remove_member

        reached = (
            Event.objects.filter(series=scope_id, staff__user=member)
            .exclude(phase=Phase.FINALIZED)
            .order_by("pk")
            .values_list("pk", flat=True)
        )

        def remove(part: Change) -> None:
            if leaving_as is not None:
                part.act_as(leaving_as)
            remove_member(part, member, series=scope_id)

        for event_id in list(reached):
            change.reach(event_id, "house_member_remove", remove)
        # Every socket of theirs in the series' events checks its access again.
        change.after_commit(lambda: revocation.revoke(member.pk, series_id=scope_id))

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
