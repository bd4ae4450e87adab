"""A series and its season from House's pages on a phone (docs/decisions.md, "Series pages"): site
staff open a series with its defaults, put one of their events in it, make the next night with
Next event, open a season and widen its days, take the event out again; each page fits 390 px
and axe finds nothing on it."""

from __future__ import annotations

import datetime
import re
from typing import Any

import pytest
from playwright.sync_api import expect

from events import services as events
from events.models import Event
from seasons.models import Season, Series, series_id_of
from tests.browser.test_accessibility import Audit
from tests.browser.test_event_flow import WAIT, sign_in
from tests.factories import make_user

PHONE = {"width": 390, "height": 844}


def _fits(page: Any, name: str) -> None:
    """Nothing on the page is wider than the phone."""
    wide = page.evaluate("document.documentElement.scrollWidth")
    assert wide <= PHONE["width"], f"{name} is {wide} px wide"


@pytest.mark.django_db(transaction=True)
def test_house_runs_a_series_and_its_season_from_the_pages_on_a_phone(
    server: str, browser: Any
) -> None:
    organizer = make_user("Olive", staff=True)
    draft = events.event_create(
        by=organizer,
        name="Friday Switch",
        date=datetime.date(2026, 12, 4),
        format="switch",
        contribution=5,
        remainder_policy="Rolls over.",
    ).event_id
    audit = Audit()
    page = browser.new_context(viewport=PHONE).new_page()
    sign_in(page, server, organizer.email)

    page.goto(f"{server}/house/")
    page.click("a:has-text('New series')")
    expect(page.locator("h1")).to_have_text("New series", timeout=WAIT)
    audit.check(page, "new series")
    _fits(page, "new series")
    page.fill("input[name=name]", "Thursday League")
    page.fill("input[name=venue]", "The Dock")
    page.fill("input[name=time_zone]", "America/Chicago")
    page.check("input[name=entry_mode][value=sponsored]")
    page.check("input[name=asks_age]")
    page.click("button:has-text('Open the series')")
    expect(page.locator(".messages")).to_contain_text("The series is open", timeout=WAIT)
    series = Series.objects.get()
    assert (series.time_zone, series.entry_mode, series.minimum_age) == (
        "America/Chicago",
        "sponsored",
        21,
    )
    audit.check(page, "series page, no event")
    _fits(page, "series page")

    # Put the draft in; it takes the series' defaults.
    page.select_option("#event-in", str(draft))
    page.click("button:has-text('Put in the series')")
    expect(page.locator(".messages")).to_contain_text("is in Thursday League now", timeout=WAIT)
    expect(page.locator(f"[data-event='{draft}']")).to_contain_text("Friday Switch")
    assert Event.objects.get(pk=draft).minimum_age == 21

    # Next event: a week after it, named with its date.
    expect(page.locator("#next-date")).to_have_value("2026-12-11")
    page.click("button:has-text('Next event')")
    page.wait_for_url(re.compile(r".*/house/events/\d+/$"), timeout=WAIT)
    made = Event.objects.exclude(pk=draft).get(series=series)
    assert made.name == "Friday Switch · Dec 11, 2026" and made.date == datetime.date(2026, 12, 11)

    # A season, then its days widened from its own page.
    page.goto(f"{server}/house/series/{series.pk}/")
    page.fill("form[action$='/seasons/new'] input[name=name]", "Winter")
    page.fill("form[action$='/seasons/new'] input[name=starts_on]", "2026-12-01")
    page.fill("form[action$='/seasons/new'] input[name=ends_on]", "2026-12-31")
    page.click("button:has-text('Open the season')")
    expect(page.locator(".messages")).to_contain_text("The season is open", timeout=WAIT)
    audit.check(page, "season page")
    _fits(page, "season page")
    page.fill("input[name=ends_on]", "2027-02-28")
    page.click("form[action$='/rules'] button:has-text('Save')")
    expect(page.locator(".messages")).to_contain_text("The season is saved", timeout=WAIT)
    assert Season.objects.get().ends_on == datetime.date(2027, 2, 28)

    # The draft out again: it keeps its settings and leaves the list.
    page.goto(f"{server}/house/series/{series.pk}/")
    page.click(f"[data-event='{draft}'] button:has-text('Take out')")
    expect(page.locator(".messages")).to_contain_text("is out of Thursday League", timeout=WAIT)
    expect(page.locator(f"[data-event='{draft}']")).to_have_count(0)
    assert series_id_of(draft) is None
    audit.check(page, "series page, with events")
    _fits(page, "series page with events")
    audit.assert_clean()
