"""`make run`'s demo has a series and a season (seasons/management/commands/seed_demo_series.py):
the demo event is in the series, the season's days hold it, and a second run adds nothing."""

from __future__ import annotations

from io import StringIO

import pytest
from django.core.management import call_command

from events.management.commands import seed_demo
from events.models import Event
from seasons.management.commands.seed_demo_series import SERIES_NAME, demo_series
from seasons.models import Season, Series, series_id_of

pytestmark = pytest.mark.django_db


def test_the_demo_event_is_in_a_demo_series_whose_season_holds_it_once() -> None:
    assert demo_series() == (None, None)
    call_command("seed_demo", stdout=StringIO())
    out = StringIO()
    call_command("seed_demo_series", stdout=out)
    call_command("seed_demo_series", stdout=StringIO())
    series, season = demo_series()
    assert series is not None and season is not None
    assert (Series.objects.count(), Season.objects.count()) == (1, 1)
    event = Event.objects.get(name=seed_demo.EVENT_NAME)
    assert series_id_of(event.pk) == series.pk and series.name == SERIES_NAME
    assert season.starts_on <= event.date <= season.ends_on
    assert series.staff.filter(user__email=seed_demo.HOUSE_EMAIL).exists()
    assert SERIES_NAME in out.getvalue()


def test_without_the_demo_event_it_makes_no_series() -> None:
    out = StringIO()
    call_command("seed_demo_series", stdout=out)
    assert "run seed_demo first" in out.getvalue() and not Series.objects.exists()
