"""Next event over the API on a series with no event yet (docs/rules.md section 14.1): its first
event, from the series' own settings, dated today in its time zone; a bad date changes nothing."""

from __future__ import annotations

import zoneinfo

import pytest
from django.utils import timezone

from events.models import Event
from seasons.models import series_id_of
from tests.api.support import Api, error
from tests.factories import make_user
from tests.seasons.support import seasons_unchanged

pytestmark = pytest.mark.django_db


def test_next_event_on_an_empty_series_makes_its_first_dated_today_at_the_venue() -> None:
    staff = Api(make_user("Staff", staff=True))
    series = staff.post(
        "/api/series/",
        {"name": "Thursday League", "venue": "The Dock", "time_zone": "Asia/Tokyo"},
        key="s1",
    ).json()["series_id"]
    path = f"/api/series/{series}/next-event/"
    with seasons_unchanged():
        assert error(staff.post(path, {"date": "tomorrow"}, key="n0")) == (400, "invalid")
    assert not Event.objects.exists()
    made = staff.post(path, {}, key="n1")
    assert made.status_code == 201, made.json()
    today = timezone.localdate(timezone=zoneinfo.ZoneInfo("Asia/Tokyo"))
    assert made.json()["date"] == today.isoformat()
    event = Event.objects.get(pk=made.json()["event_id"])
    assert (series_id_of(event.pk), event.venue, event.time_zone, event.phase) == (
        series,
        "The Dock",
        "Asia/Tokyo",
        "draft",
    )
    assert event.name == f"Thursday League · {today:%b} {today.day}, {today.year}"
