"""Staff in a browser: the owner invites a cashier on the settings page, the cashier accepts on
the invitation's page and lands on a dashboard whose buttons are a cashier's, before and after the
live part is swapped by an action."""

from __future__ import annotations

from typing import Any
from urllib.parse import urlsplit

import pytest
from playwright.sync_api import expect

from staff.models import Membership
from tests.browser.test_event_flow import WAIT, sign_in
from tests.factories import make_table, make_user

PHONE = {"width": 390, "height": 844}


@pytest.mark.django_db(transaction=True)
def test_an_invited_cashier_accepts_and_sees_a_cashiers_buttons(server: str, browser: Any) -> None:
    table = make_table()
    for name in ("Ann", "Bob"):
        table.register(make_user(name))
    event_id = table.event.pk
    cashier = make_user("Cass")

    owner = browser.new_context(viewport=PHONE).new_page()
    sign_in(owner, server, table.house.email)
    owner.goto(f"{server}/house/events/{event_id}/edit")
    owner.fill("#invite-email", cashier.email)
    owner.select_option("select[aria-label='Role of the invitation']", "cashier")
    owner.click("form[action$='/staff/invitations'] button")
    # This server has no mail server (the venue's case): House is told where the link is.
    expect(owner.locator(".messages")).to_contain_text(
        "No mail server is set, so nothing was emailed: hand them its link, listed below.",
        timeout=WAIT,
    )
    link = owner.locator("input.invitation-link").first.input_value()

    page = browser.new_context(viewport=PHONE).new_page()
    sign_in(page, server, cashier.email)
    # The link names the site's address (SITE_URL); this server answers on a port of its own.
    page.goto(server + urlsplit(link).path)
    expect(page.locator("h1")).to_contain_text("Join the staff of", timeout=WAIT)
    page.click("button:has-text('Accept')")
    page.wait_for_url(f"**/house/events/{event_id}/", timeout=WAIT)
    assert Membership.objects.get(event=event_id, user=cashier).role == "cashier"
    expect(page.locator("[data-my-roles]")).to_contain_text("Your role: Cashier.")

    # A cashier checks players in (each player's button in the check-in list and the players'
    # table); closing registration and the start are a director's.
    check_in = page.locator("form[action$='/check-in'] button:visible")
    expect(check_in).to_have_count(4, timeout=WAIT)
    expect(page.locator("form[action$='/close'] button:visible")).to_have_count(0)
    expect(page.locator("form[action$='/start'] button:visible")).to_have_count(0)
    check_in.first.click()
    # The live part comes back from the server: still a cashier's buttons.
    expect(page.locator("form[action$='/undo'] button:visible")).to_have_count(2, timeout=WAIT)
    expect(page.locator("form[action$='/check-in'] button:visible")).to_have_count(2)
    expect(page.locator("form[action$='/close'] button:visible")).to_have_count(0)
    expect(page.locator("details.more:visible")).to_have_count(0)
