"""Put the demo event (events' `seed_demo`) in a demo series with a season, so `make run` shows
the series and season pages too (idempotent)."""

from __future__ import annotations

import datetime
from typing import Any

from django.core.management.base import BaseCommand

from accounts.models import User
from events.management.commands import seed_demo
from events.models import Event, Phase
from seasons import services
from seasons.models import Season, Series, series_id_of

SERIES_NAME = "Demo Thursday League"
SEASON_NAME = "Demo Season"
SEASON_LENGTH = datetime.timedelta(weeks=13)


def demo_series() -> tuple[Series | None, Season | None]:
    """The demo series and its first season, once seeded."""
    series = Series.objects.filter(name=SERIES_NAME).order_by("pk").first()
    season = series.seasons.order_by("starts_on", "pk").first() if series else None
    return series, season


class Command(BaseCommand):
    help = "Put the demo event in a demo series with a season (after seed_demo)."

    def handle(self, *args: Any, **options: Any) -> None:
        house = User.objects.filter(email=seed_demo.HOUSE_EMAIL).first()
        event = Event.objects.filter(name=seed_demo.EVENT_NAME).order_by("pk").first()
        if house is None or event is None:
            self.stdout.write("No demo event: run seed_demo first.")
            return
        series, season = demo_series()
        if series is None:
            made = services.series_create(
                by=house, name=SERIES_NAME, venue=event.venue, time_zone=event.time_zone
            )
            series = Series.objects.get(pk=made.series_id)
            if series_id_of(event.pk) is None and event.phase in (Phase.DRAFT, Phase.OPEN):
                services.event_series_set(event_id=event.pk, series_id=series.pk, by=house)
        if season is None:
            first = min(event.date, services.series_today(series)).replace(day=1)
            services.season_create(
                series_id=series.pk,
                by=house,
                name=SEASON_NAME,
                starts_on=first,
                ends_on=first + SEASON_LENGTH,
            )
        self.stdout.write(f"Demo series: {series.name}, with the season {SEASON_NAME}")
