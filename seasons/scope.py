"""The series as the scope above events: its staff hold their roles in each of its events. The
engine asks through `events.runner.use_scope_above` (installed in seasons/apps.py) and names
nothing of this app."""

from __future__ import annotations

import zoneinfo
from typing import Any

from django.db.models import QuerySet
from django.utils import timezone

from events.models import Event, Phase
from seasons.models import Series, SeriesEvent, series_of
from staff.models import Membership, scope_type


class SeriesScope:
    """A series and the roles its staff hold (`events.runner.ScopeAbove`)."""

    def exists(self, scope_id: int) -> bool:
        return Series.objects.filter(pk=scope_id).exists()

    def of_event(self, event_id: int) -> Series | None:
        return series_of(event_id)

    def place(self, event: Event, scope_id: int) -> None:
        SeriesEvent.objects.create(event=event, series_id=scope_id)

    def roles(self, user_id: int, scope_id: int) -> QuerySet[Any, tuple[str]]:
        return (
            Membership.objects.filter(
                scope_type=scope_type(Series), scope_id=scope_id, user_id=user_id
            )
            .order_by()
            .values_list("role")
        )

    def roles_over(self, user_id: int, event_id: int) -> QuerySet[Any, tuple[str]]:
        return (
            Membership.objects.filter(
                scope_type=scope_type(Series),
                scope_id__in=SeriesEvent.objects.filter(event_id=event_id).values("series_id"),
                user_id=user_id,
            )
            .order_by()
            .values_list("role")
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
