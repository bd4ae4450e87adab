"""The venue's display in Chromium at 1920 x 1080: the kiosk opened by House shows the check-in
code and its QR, pushed as House switches self check-in; readable across a bar; gone at the
start and at finalization. The display link does the same on a laptop that is not signed in, and
the board anyone opens never shows the code."""

from __future__ import annotations

import re
from collections.abc import Iterator
from typing import Any

import pytest
from django.conf import settings
from django.test import Client
from playwright.sync_api import expect

from events import services
from events.venue import display_path
from tests.browser.test_board import PROJECTOR, shot
from tests.browser.test_event_flow import WAIT
from tests.factories import Table, make_table
from web.follow import qr_svg

# The address House configures (a documentation address, RFC 5737): phones open it.
SITE_URL = "http://192.0.2.10:8000"


@pytest.fixture
def venue_server(monkeypatch: pytest.MonkeyPatch, request: pytest.FixtureRequest) -> Iterator[str]:
    """daphne, started with SITE_URL set as House would set it."""
    monkeypatch.setenv("SITE_URL", SITE_URL)
    yield request.getfixturevalue("server")


def kiosk_of(browser: Any, url: str, user: Any = None) -> Any:
    context = browser.new_context(viewport=PROJECTOR)
    if user is not None:
        client = Client()
        client.force_login(user)
        name = settings.SESSION_COOKIE_NAME
        site = re.match(r"https?://[^/]+", url)
        assert site
        cookie = {"name": name, "value": client.cookies[name].value, "url": site[0]}
        context.add_cookies([cookie])
    page = context.new_page()
    page.goto(url)
    expect(page.locator(".conn")).to_have_attribute("data-state", "live", timeout=WAIT)
    return page


def qr_path(url: str) -> str:
    found = re.search(r'<path class="qrline"[^>]* d="([^"]+)"', str(qr_svg(url)))
    assert found
    return found[1]


def switch(table: Table, enabled: bool) -> str:
    services.self_check_in_switch(event_id=table.event.pk, by=table.house, enabled=enabled)
    return table.refresh().check_in_code


def shows_the_code(page: Any, table: Table, code: str) -> None:
    expect(page.locator("[data-check-in-code]")).to_have_text(code, timeout=WAIT)
    here = f"{SITE_URL}/events/{table.event.pk}/check-in"
    expect(page.locator(".follow .qr svg path.qrline")).to_have_attribute(
        "d", qr_path(f"{here}?code={code}"), timeout=WAIT
    )
    expect(page.locator(".follow .address")).to_have_text(here.split("://")[1])


def shows_no_code(page: Any) -> None:
    expect(page.locator("[data-check-in-code]")).to_have_count(0, timeout=WAIT)
    expect(page.locator(".follow")).not_to_contain_text("Scan to check in")


@pytest.mark.django_db(transaction=True)
def test_the_kiosk_opened_by_house_follows_self_check_in_to_the_end(
    venue_server: str, browser: Any, settings: Any
) -> None:
    # The test's own changes reach daphne's sockets through the background publisher and Redis.
    settings.LIVE_UPDATES = "background"
    table = make_table("league", players=2)
    kiosk = kiosk_of(browser, f"{venue_server}/board/{table.event.pk}/?kiosk=1", table.house)
    public = kiosk_of(browser, f"{venue_server}/board/{table.event.pk}/?kiosk=1")
    made: list[str] = []
    kiosk.on("request", lambda request: made.append(request.url))
    shows_no_code(kiosk)
    expect(kiosk.locator(".follow")).to_contain_text("Scan to follow the event")

    first = switch(table, True)
    shows_the_code(kiosk, table, first)
    shot(kiosk, "board-1920-kiosk-check-in")
    # Readable from 10 m on a 1080p projector: the QR at least 300 px, the code at least 64 px.
    qr = kiosk.locator(".follow .qr svg").bounding_box()
    assert qr and qr["width"] >= 300 and qr["height"] >= 300, qr
    code_box = kiosk.locator("[data-check-in-code]").bounding_box()
    assert code_box and code_box["height"] >= 64, code_box
    size = kiosk.locator("[data-check-in-code]").evaluate(
        "el => parseFloat(getComputedStyle(el).fontSize)"
    )
    assert size >= 64
    # All of it on the screen.
    assert qr["x"] + qr["width"] <= PROJECTOR["width"] and qr["y"] >= 0
    assert code_box["x"] + code_box["width"] <= PROJECTOR["width"]
    assert code_box["y"] + code_box["height"] <= PROJECTOR["height"]

    switch(table, False)
    shows_no_code(kiosk)
    second = switch(table, True)
    shows_the_code(kiosk, table, second)

    # The start: a late entrant checks in with House.
    table.start()
    shows_no_code(kiosk)
    expect(kiosk.locator(".follow")).to_contain_text("Late arrivals: see House", timeout=WAIT)
    for player in table.players:
        table.play_out(player)
    services.pool_confirm(event_id=table.event.pk, by=table.house)
    services.event_finalize(event_id=table.event.pk, by=table.house)
    expect(kiosk.locator(".follow")).not_to_contain_text("Late arrivals", timeout=WAIT)
    shows_no_code(kiosk)
    expect(kiosk.locator(".follow")).to_contain_text("Scan to follow the event")
    # Every change came over the socket: the page fetched nothing to show it.
    assert made == []

    # The board anyone opens showed none of it, on the page or over its socket.
    for code in (first, second):
        assert code not in public.content()
    expect(public.locator(".follow")).to_contain_text("Scan to follow the event")
    # Its QR is segno's encoding of the event's page at the address House configured, shown in
    # words beside it.
    event_url = f"{SITE_URL}/events/{table.event.pk}/"
    expect(public.locator(".follow .qr svg path.qrline")).to_have_attribute("d", qr_path(event_url))
    expect(public.locator(".follow .address")).to_have_text(event_url.split("://")[1].rstrip("/"))
    kiosk.context.close()
    public.context.close()


@pytest.mark.django_db(transaction=True)
def test_the_display_link_shows_the_code_on_a_laptop_that_is_not_signed_in(
    venue_server: str, browser: Any, settings: Any
) -> None:
    settings.LIVE_UPDATES = "background"
    table = make_table("league", players=2)
    code = switch(table, True)
    link = display_path(table.refresh())
    assert link is not None
    projector = kiosk_of(browser, f"{venue_server}{link}")
    shows_the_code(projector, table, code)
    expect(projector.locator(".board-bar")).to_be_hidden()
    # A new code ends the link: the projector stops showing any code and says why.
    switch(table, False)
    new = switch(table, True)
    shows_no_code(projector)
    expect(projector.locator(".follow")).to_contain_text(
        "This display link is out of date", timeout=WAIT
    )
    assert new not in projector.content()
    projector.context.close()


@pytest.mark.django_db(transaction=True)
def test_a_kiosk_at_a_loopback_address_says_phones_cannot_reach_it(
    server: str, browser: Any
) -> None:
    table = make_table("league", players=2)
    code = switch(table, True)
    kiosk = kiosk_of(browser, f"{server}/board/{table.event.pk}/?kiosk=1", table.house)
    expect(kiosk.locator(".follow .qr-missing")).to_have_text(
        "Phones cannot reach 127.0.0.1: start with HOST=0.0.0.0 or set SITE_URL"
    )
    expect(kiosk.locator(".follow .qr svg")).to_have_count(0)
    expect(kiosk.locator("[data-check-in-code]")).to_have_text(code)
    kiosk.context.close()
