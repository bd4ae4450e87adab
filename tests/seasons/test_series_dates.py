"""Dates at the series' venue and the names "Next event" gives (docs/rules.md sections 14.1 and
14.2; docs/decisions.md, "Series pages"): a series' first event from its own settings, dated today
where it plays; each night named with its date; a season whose days widen counts at once."""

from __future__ import annotations

import datetime
import zoneinfo

import pytest
from django.utils import timezone

from events import limits
from events import services as events
from events.errors import Invalid, NotAllowed, WrongState
from events.models import Event
from seasons import services
from seasons.models import SeasonResult, Series
from staff.scopes import Scope
from tests.factories import make_user
from tests.seasons.support import FIRST, WEEK, make_league, refused_season

pytestmark = pytest.mark.django_db


def _zone_whose_today_is_not_utcs() -> str:
    """A zone where it is another day than in UTC right now: +14 h from 10:00 UTC, -12 h before
    noon UTC, so one of them always is."""
    utc = timezone.now().date()
    return next(
        zone
        for zone in ("Pacific/Kiritimati", "Etc/GMT+12")
        if timezone.localdate(timezone=zoneinfo.ZoneInfo(zone)) != utc
    )


def test_a_series_first_event_takes_the_series_settings_and_today_at_its_venue() -> None:
    zone = _zone_whose_today_is_not_utcs()
    house = make_user("House", staff=True)
    series_id = services.series_create(
        by=house, name="Thursday League", venue="The Dock", time_zone=zone
    ).series_id
    services.series_defaults_set(
        series_id=series_id, by=house, entry_mode="sponsored", minimum_age=21
    )
    made = services.series_next_event(series_id=series_id, by=house, idempotency_key="first")
    event = Event.objects.get(pk=made.event_id)
    today = timezone.localdate(timezone=zoneinfo.ZoneInfo(zone))
    assert event.date == today != timezone.now().date()
    assert made.date == today.isoformat()
    assert (event.venue, event.time_zone, event.format, event.phase) == (
        "The Dock",
        zone,
        "league",
        "draft",
    )
    assert (event.entry_mode, event.minimum_age, event.contribution) == ("sponsored", 21, 0)
    assert event.name == f"Thursday League · {today:%b} {today.day}, {today.year}"
    # The next one copies it, a week later, under its own date.
    again = services.series_next_event(series_id=series_id, by=house)
    second = Event.objects.get(pk=again.event_id)
    week = today + datetime.timedelta(days=7)
    assert second.date == week
    assert second.name == f"Thursday League · {week:%b} {week.day}, {week.year}"


def test_a_series_first_event_is_refused_to_whoever_may_not_make_its_events() -> None:
    league = make_league(0)
    scorer = make_user("Scorer")
    events.house_member_add(
        scope=Scope(Series, league.series_id), by=league.house, member=scorer, role="scorer"
    )
    before = Event.objects.count()
    refused_season(
        NotAllowed,
        lambda: services.series_next_event(series_id=league.series_id, by=scorer),
    )
    refused_season(
        Invalid,
        lambda: services.series_next_event(
            series_id=league.series_id,
            by=league.house,
            date="next thursday",  # type: ignore[arg-type]
        ),
    )
    assert Event.objects.count() == before


def test_a_night_name_keeps_one_date_and_fits_the_name_limit() -> None:
    when = datetime.date(2026, 12, 10)
    assert services.night_name("Thursday League", when) == "Thursday League · Dec 10, 2026"
    assert (
        services.night_name("Thursday League · Dec 3, 2026", when)
        == "Thursday League · Dec 10, 2026"
    )
    long = services.night_name("x" * 120, when)
    assert len(long) == limits.NAME_LENGTH and long.endswith(" · Dec 10, 2026")


def test_a_finalized_event_the_widened_days_hold_counts_at_once() -> None:
    league = make_league(4)
    league.open_season(weeks=2)  # FIRST and the week after
    outside = league.night(3, league.players, seed=5)
    assert not SeasonResult.objects.filter(event_id=outside).exists()
    saved = services.season_update(
        season_id=league.season.pk, by=league.house, ends_on=FIRST + 4 * WEEK
    )
    assert saved.counted_events == 1
    assert SeasonResult.objects.filter(season=league.season, event_id=outside).count() == 4
    assert league.season.locked_at is not None


def test_days_that_would_leave_out_a_started_event_are_refused_and_change_nothing() -> None:
    league = make_league(4)
    league.open_season(weeks=3)
    league.night(2, league.players, seed=6)
    refused_season(
        WrongState,
        lambda: services.season_update(
            season_id=league.season.pk, by=league.house, ends_on=FIRST + WEEK
        ),
    )
