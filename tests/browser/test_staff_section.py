"""The one staff section in a browser: on a series' page and on an event's settings page, the
owner invites by email; the invitee opens the link on the one invitation page, accepts, and is
listed in the section the owner sees."""

from __future__ import annotations

from typing import Any
from urllib.parse import urlsplit

import pytest
from playwright.sync_api import expect

from seasons import services as seasons
from staff.models import Membership
from tests.browser.test_event_flow import WAIT, sign_in
from tests.factories import make_table, make_user

PHONE = {"width": 390, "height": 844}


@pytest.mark.parametrize("kind", ["series", "event"])
@pytest.mark.django_db(transaction=True)
def test_an_invitee_accepts_and_appears_in_the_staff_section(
    server: str, browser: Any, kind: str
) -> None:
    table = make_table()
    if kind == "series":
        series_id = seasons.series_create(by=table.house, name="Friday Series").series_id
        page_path = f"/house/series/{series_id}/"
        anchor = "#staff"
        landing = f"**/house/series/{series_id}/"
    else:
        page_path = f"/house/events/{table.event.pk}/edit"
        anchor = "#house"
        landing = f"**/house/events/{table.event.pk}/"
    invitee = make_user("Cass")

    owner = browser.new_context(viewport=PHONE).new_page()
    sign_in(owner, server, table.house.email)
    owner.goto(server + page_path)
    section = owner.locator(anchor)
    section.locator("#invite-email").fill(invitee.email)
    section.locator("select[aria-label='Role of the invitation']").select_option("cashier")
    section.locator("button:has-text('Invite')").click()
    expect(owner.locator(".messages")).to_contain_text(
        "No mail server is set, so nothing was emailed: hand them its link, listed below.",
        timeout=WAIT,
    )
    link = owner.locator(f"{anchor} input.invitation-link").first.input_value()
    assert urlsplit(link).path.startswith("/house/invitations/")

    page = browser.new_context(viewport=PHONE).new_page()
    sign_in(page, server, invitee.email)
    page.goto(server + urlsplit(link).path)
    expect(page.locator("h1")).to_contain_text("Join the staff of", timeout=WAIT)
    expect(page.locator("[data-role]")).to_have_text("cashier")
    page.click("button:has-text('Accept')")
    page.wait_for_url(landing, timeout=WAIT)
    expect(page.locator(".messages").first).to_contain_text("You are on the staff of", timeout=WAIT)
    assert Membership.objects.filter(user=invitee, role="cashier").count() == 1

    owner.goto(server + page_path)
    row = owner.locator(f"{anchor} [data-member='{invitee.pk}']")
    expect(row).to_contain_text("Cass", timeout=WAIT)
    expect(row.locator("[data-role]")).to_have_text("cashier")
    expect(owner.locator(f"{anchor} input.invitation-link")).to_have_count(0)
    # The newcomer sees the same section with their own Leave and nothing of the owner's.
    page.goto(server + page_path)
    mine = page.locator(f"{anchor} [data-member='{invitee.pk}']")
    expect(mine.locator("button")).to_have_text([f"Leave this {kind}"], timeout=WAIT)
    expect(page.locator(f"{anchor} #invite-email")).to_have_count(0)
