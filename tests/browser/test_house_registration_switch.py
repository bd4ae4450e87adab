"""The House page's registration switch says why it cannot open, and where to fix it; the toast
that answers an action leaves the end of the page clear."""

from __future__ import annotations

import datetime
from typing import Any

import pytest
from playwright.sync_api import expect

from events import services
from tests.browser.test_event_flow import WAIT, sign_in
from tests.factories import make_user

TABLET = {"width": 820, "height": 1180}


@pytest.mark.django_db(transaction=True)
def test_a_paid_event_without_a_remainder_policy_says_why_registration_cannot_open(
    server: str, browser: Any
) -> None:
    house = make_user("Hattie House", staff=True)
    event_id = services.event_create(
        by=house,
        name="Paid Night",
        date=datetime.date(2026, 12, 4),
        format="league",
        contribution=10,
    ).event_id
    context = browser.new_context(viewport=TABLET)
    page = context.new_page()
    sign_in(page, server, house.email)
    page.goto(f"{server}/house/events/{event_id}/")
    switch = page.locator("#registration")
    expect(switch).to_contain_text("Registration cannot open yet")
    expect(switch).to_contain_text("remainder policy")
    expect(switch.locator("button:has-text('Open registration')")).to_have_count(0)

    switch.locator("a:has-text('Set the remainder policy')").click()
    policy = page.locator("#id_remainder_policy")
    expect(policy).to_be_visible()
    policy.fill("An indivisible High remainder rolls into next week's pool.")
    page.click("button:has-text('Save settings')")

    toast = page.locator(".messages .message")
    expect(toast).to_contain_text("Settings saved.")
    # Layout is measured once the page's stylesheets apply: a busy machine shows the text first.
    page.wait_for_load_state("load")
    # With the toast showing (it leaves by itself after a few seconds: measured at once), the end
    # of the page scrolls clear of it.
    clear = page.evaluate(
        """() => {
            window.scrollTo(0, document.documentElement.scrollHeight);
            const message = document.querySelector('.messages .message');
            if (!message) return 'no toast';
            const toast = message.getBoundingClientRect();
            const sections = document.querySelectorAll('main section');
            const last = sections[sections.length - 1].getBoundingClientRect();
            if (last.bottom <= toast.top) return true;
            // Not clear: what stood where, so a failure says why.
            return {
                last: [sections[sections.length - 1].id, last.bottom],
                toast: [toast.top, toast.height],
                messages: [...document.querySelectorAll('.messages .message')].map(
                    (m) => m.textContent.trim()),
                scroll: [window.scrollY, window.innerHeight,
                         document.documentElement.scrollHeight],
            };
        }"""
    )
    assert clear is True, clear
    expect(switch.locator("button:has-text('Open registration')")).to_be_enabled(timeout=WAIT)
    context.close()
