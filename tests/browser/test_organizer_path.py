"""An organizer's path from House's pages (docs/decisions.md, "Organizations"): a player with no
site staff role makes an organization, adds its venue, opens a series there, makes an event there
and opens its registration."""

from __future__ import annotations

import datetime
import re
from typing import Any

import pytest
from playwright.sync_api import expect

from events.models import Event
from organizations.models import Organization
from seasons.models import Series
from tests.browser.test_event_flow import WAIT, sign_in
from tests.factories import make_user


@pytest.mark.django_db(transaction=True)
def test_an_organizer_signs_up_an_organization_and_opens_an_events_registration(
    server: str, browser: Any
) -> None:
    organizer = make_user("Olive")
    assert not organizer.is_staff
    page = browser.new_context().new_page()
    sign_in(page, server, organizer.email)

    page.goto(f"{server}/house/")
    page.click("a:has-text('New organization')")
    expect(page.locator("h1")).to_have_text("New organization", timeout=WAIT)
    page.fill("input[name=name]", "Harbour League")
    page.click("button:has-text('Make the organization')")
    expect(page.locator("h1")).to_have_text("Harbour League", timeout=WAIT)
    organization = Organization.objects.get(name="Harbour League")

    page.fill("[data-venue-add] input[name=name]", "The Dock")
    page.fill("[data-venue-add] input[name=time_zone]", "America/Chicago")
    page.click("button:has-text('Add the venue')")
    expect(page.locator("#venues")).to_contain_text("The Dock", timeout=WAIT)

    # A series of the organization at its venue, from its page.
    page.click("a:has-text('New series')")
    expect(page.locator("h1")).to_have_text("New series", timeout=WAIT)
    page.fill("input[name=name]", "Harbour Thursdays")
    page.select_option("select[name=venue]", "The Dock")
    page.click("button:has-text('Open the series')")
    expect(page.locator("h1")).to_contain_text("Harbour Thursdays", timeout=WAIT)
    series = Series.objects.get(name="Harbour Thursdays")
    assert (series.organization_id, series.venue, series.time_zone) == (
        organization.pk,
        "The Dock",
        "America/Chicago",
    )
    page.goto(f"{server}/house/organizations/{organization.pk}/")
    expect(page.locator("#series")).to_contain_text("Harbour Thursdays", timeout=WAIT)

    page.click("a:has-text('New event')")
    page.fill("input[name=name]", "Friday Night")
    page.select_option("select[name=venue]", "The Dock")
    page.fill("input[name=date]", (datetime.date.today() + datetime.timedelta(days=3)).isoformat())
    policy = page.locator("[name=remainder_policy]")
    if policy.count():
        policy.fill("Rolls into next week's pool.")
    page.click("button:has-text('Create event')")
    page.wait_for_url(re.compile(r".*/house/events/\d+/$"), timeout=WAIT)
    event = Event.objects.get(name="Friday Night")
    assert (event.organization_id, event.venue, event.time_zone) == (
        organization.pk,
        "The Dock",
        "America/Chicago",
    )

    page.click("button:has-text('Open registration')")
    expect(page.locator(".switch.on").first).to_be_visible(timeout=WAIT)
    assert Event.objects.get(pk=event.pk).registration_open

    # The House list shows the organization and its event.
    page.goto(f"{server}/house/")
    expect(page.locator("#event-table")).to_contain_text("Friday Night", timeout=WAIT)
    expect(page.locator(".title-links")).to_contain_text("Harbour League")
