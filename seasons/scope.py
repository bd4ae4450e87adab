"""The series as the scope above events: its staff hold their roles in each of its events. The
engine asks through `events.runner.use_scope_above` (installed in seasons/apps.py) and names
nothing of this app."""

from __future__ import annotations

from typing import Any

from django.db.models import QuerySet

from seasons.models import Series, SeriesStaff


class SeriesScope:
    """A series and the roles its staff hold (`events.runner.ScopeAbove`)."""

    def exists(self, scope_id: int) -> bool:
        return Series.objects.filter(pk=scope_id).exists()

    def roles(self, user_id: int, scope_id: int) -> QuerySet[Any, tuple[str]]:
        return SeriesStaff.objects.filter(user_id=user_id, series_id=scope_id).values_list("role")
