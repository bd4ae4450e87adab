"""A display link in Chromium (events/display.py): House adds one on the dashboard, copies it into
a laptop that is not signed in, which shows the board live with the check-in code; House revokes
it, and the display says so by itself, with no board and no code left on screen."""

from __future__ import annotations

import re
from typing import Any

import pytest
from django.conf import settings
from django.test import Client
from playwright.sync_api import expect

from events import services
from tests.browser.test_board import PROJECTOR
from tests.browser.test_event_flow import WAIT
from tests.factories import make_table

REVOKED = "This display link was revoked by House."


def signed_in(browser: Any, server: str, user: Any) -> Any:
    context = browser.new_context()
    client = Client()
    client.force_login(user)
    name = settings.SESSION_COOKIE_NAME
    context.add_cookies([{"name": name, "value": client.cookies[name].value, "url": server}])
    return context.new_page()


@pytest.mark.django_db(transaction=True)
def test_house_adds_a_display_link_and_revoking_it_clears_the_projector(
    server: str, browser: Any
) -> None:
    table = make_table("league", players=2)
    services.self_check_in_switch(event_id=table.event.pk, by=table.house, enabled=True)
    code = table.refresh().check_in_code
    house = signed_in(browser, server, table.house)
    house.goto(f"{server}/house/events/{table.event.pk}/")
    house.locator("#displays input[name=label]").fill("Projector by the bar")
    house.locator("#displays button", has_text="Add a display link").click()
    copied = house.locator("[data-fresh-display-link]")
    expect(copied).to_have_value(re.compile(r"/display/[^/]+/$"), timeout=WAIT)
    link = copied.input_value()

    # The projector's laptop: a context of its own, not signed in.
    projector = browser.new_context(viewport=PROJECTOR).new_page()
    projector.goto(link)
    expect(projector.locator(".conn")).to_have_attribute("data-state", "live", timeout=WAIT)
    expect(projector.locator("#board")).to_be_visible()
    expect(projector.locator("[data-check-in-code]")).to_have_text(code)
    expect(projector.locator(".board-bar")).to_be_hidden()  # kiosk mode
    expect(projector.locator("#board")).to_contain_text("2 players")

    # House revokes it from the dashboard (confirming), and the projector says so by itself.
    house.locator("#displays button", has_text="Revoke").click()
    house.locator("#dlg-confirm [data-confirm-yes]").click()
    expect(house.locator("#displays")).to_contain_text("Revoked", timeout=WAIT)
    expect(projector.locator(".display-words")).to_have_text(REVOKED, timeout=WAIT)
    expect(projector.locator("#board")).to_have_count(0)
    assert code not in projector.content()
    house.context.close()
    projector.context.close()
