"""House sees the standby copy change live, on the dashboard and on Tonight, without a reload."""

from __future__ import annotations

from collections.abc import Iterator
from concurrent.futures import ThreadPoolExecutor
from datetime import UTC, datetime
from typing import Any

import pytest
from django.urls import reverse
from playwright.sync_api import expect

from standby import state
from standby.state import Copy
from tests.browser.test_event_flow import WAIT, sign_in
from tests.factories import make_table
from tests.standby.support import forget_everything


@pytest.fixture(autouse=True)
def no_copies() -> Iterator[None]:
    forget_everything()
    yield
    forget_everything()


def folder(copy_state: state.State, reason: str = "") -> Copy:
    return Copy(
        name="folder",
        where="/media/usb/night",
        state=copy_state,
        synchronous=copy_state == "in_step",
        seconds_behind=None,
        reason=reason,
        reported_at=datetime.now(UTC),
    )


def publish(copy: Copy) -> None:
    """As the keeper does, from a thread of its own (Playwright's loop runs in this one)."""
    with ThreadPoolExecutor(1) as pool:
        pool.submit(state.publish, copy).result()


def test_house_sees_the_copy_turn_lost_without_a_reload(server: str, browser: Any) -> None:
    table = make_table(players=2, start=True)
    context = browser.new_context()
    dashboard = context.new_page()
    sign_in(dashboard, server, table.house.email)
    dashboard.goto(f"{server}/house/events/{table.event.pk}/")
    expect(dashboard.locator(".conn")).to_have_attribute("data-state", "live", timeout=WAIT)
    expect(dashboard.locator("#standby-panel")).to_contain_text("this laptop holds the only copy")
    dashboard.evaluate("window.notReloaded = true")

    publish(folder("in_step"))
    panel = dashboard.locator("#standby-panel")
    expect(panel).to_contain_text("In step", timeout=WAIT)
    expect(panel).to_contain_text("/media/usb/night")
    expect(panel).not_to_contain_text("only copy")

    # Tonight's own socket sends the copies on connect: once it is live, it hears changes.
    tonight = context.new_page()
    tonight.goto(f"{server}{reverse('house:tonight')}")
    expect(tonight.locator("#standby-panel")).to_contain_text("In step")
    tonight.wait_for_function(
        "() => window.syndicateLive && window.syndicateLive.state === 'live'", timeout=WAIT
    )
    tonight.evaluate("window.notReloaded = true")

    publish(folder("lost", "The folder is gone."))
    for page in (dashboard, tonight):
        warning = page.locator("#standby-panel [role=alert]")
        expect(warning).to_contain_text("Lost: The folder is gone.", timeout=WAIT)
        assert page.evaluate("window.notReloaded") is True
    context.close()
