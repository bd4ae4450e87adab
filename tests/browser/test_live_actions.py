"""Actions that need the server render disabled and live.js enables them once its socket is live.

A click in the first moments of a page load must not land on a button that live.js is about to
disable, so the server renders them disabled; a page with no socket (a draft's dashboard) must not
wait for one.
"""

from __future__ import annotations

import datetime
import re
import time
from typing import Any

import pytest
from django.test import Client
from django.urls import reverse
from playwright.sync_api import expect

from events import services
from tests.browser.test_event_flow import PHONE, WAIT, sign_in
from tests.factories import make_table, make_user


class HeldSocket:
    """The page's socket, proxied to the real server; the server's frames wait for release()."""

    def __init__(self, context: Any) -> None:
        self.frames: list[str | bytes] = []
        self.page_side: Any = None
        self.released = False
        context.route_web_socket(re.compile(r"/ws/"), self._route)

    def _route(self, ws: Any) -> None:
        self.page_side = ws
        ws.connect_to_server().on_message(self._from_server)

    def _from_server(self, message: str | bytes) -> None:
        if self.released:
            self.page_side.send(message)
        else:
            self.frames.append(message)

    def release(self) -> None:
        self.released = True
        for message in self.frames:
            self.page_side.send(message)


def wait_for_frames(page: Any, socket: HeldSocket) -> None:
    """Until the server has answered the page's socket (its frames held back)."""
    deadline = time.monotonic() + WAIT / 1000
    while not socket.frames and time.monotonic() < deadline:
        page.wait_for_timeout(50)
    assert socket.frames, "the server never answered the socket"


@pytest.mark.django_db(transaction=True)
def test_the_report_buttons_wait_for_the_live_socket(
    server: str, browser: Any, client: Client
) -> None:
    table = make_table("league", players=2, start=True)
    player = table.players[0]
    table.choose_start(player)

    # The server renders them disabled, before any script runs.
    client.force_login(player)
    html = client.get(reverse("web:event", args=[table.event.pk])).content.decode()
    for label in ("I won", "I lost"):
        assert re.search(rf"<button[^>]* disabled data-live-disabled>{label}</button>", html)

    context = browser.new_context(viewport=PHONE)
    socket = HeldSocket(context)
    page = context.new_page()
    sign_in(page, server, player.email)
    page.goto(f"{server}/events/{table.event.pk}/")
    wait_for_frames(page, socket)

    # Connected, the server's snapshot on its way: not live yet, so still disabled.
    won = page.locator("button[data-report=win]")
    expect(page.locator(".conn")).to_have_text("Connecting…")
    expect(won).to_be_disabled()
    expect(page.locator("button[data-report=loss]")).to_be_disabled()

    page.evaluate("document.querySelector('button[data-report=win]').dataset.early = ''")
    socket.release()
    expect(page.locator(".conn")).to_have_attribute("data-state", "live", timeout=WAIT)
    # The snapshot's version is the one the page was rendered at: nothing is refetched, and
    # live.js enables the very buttons the server rendered.
    won = page.locator("button[data-report=win][data-early]")
    expect(won).to_be_enabled(timeout=WAIT)
    expect(page.locator("button[data-report=loss]")).to_be_enabled()
    won.click()
    expect(page.locator("dialog.report-sheet")).to_be_visible()
    expect(page.locator("dialog.report-sheet button[type=submit]")).to_be_enabled()
    context.close()


@pytest.mark.django_db(transaction=True)
def test_a_draft_dashboard_works_without_a_socket(
    server: str, browser: Any, client: Client
) -> None:
    house = make_user("Hattie House", staff=True)
    event_id = services.event_create(
        by=house, name="Draft Night", date=datetime.date(2026, 12, 4), format="league"
    ).event_id
    client.force_login(house)
    html = client.get(reverse("house:dashboard", args=[event_id])).content.decode()
    assert "data-live-socket" not in html
    (opener_tag,) = re.findall(r"<button[^>]*>Open registration", html)
    assert "disabled" not in opener_tag

    context = browser.new_context()
    socket = HeldSocket(context)
    page = context.new_page()
    sign_in(page, server, house.email)
    page.goto(f"{server}/house/events/{event_id}/")
    opener = page.locator("button:has-text('Open registration')")
    expect(opener).to_be_enabled()
    opener.click()

    # Open now: the dashboard has its socket, and its actions wait for it.
    wait_for_frames(page, socket)
    expect(page.locator("button:has-text('Close registration')")).to_be_disabled()
    page.evaluate("document.getElementById('registration').dataset.early = ''")
    socket.release()
    expect(page.locator(".conn")).to_have_attribute("data-state", "live", timeout=WAIT)
    # The snapshot's version is the one the page was rendered at: live.js enables the button the
    # server rendered, without refetching the live part.
    closer = page.locator("#registration[data-early] button:has-text('Close registration')")
    expect(closer).to_be_enabled(timeout=WAIT)
    context.close()
