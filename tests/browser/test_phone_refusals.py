"""Refusals and failures show where they happen: next to the action, at once, never later.

Two tabs of one player, a server error, a timeout, and registration's message that must not
linger on the screens after it.
"""

from __future__ import annotations

import re
from typing import Any

import pytest
from playwright.sync_api import expect

from events import services
from events.models import GameResult
from tests.browser.conftest import ARTIFACTS
from tests.browser.test_event_flow import WAIT
from tests.browser.test_phone_connection import open_live, phone, step
from tests.factories import make_table, make_user


@pytest.mark.django_db(transaction=True)
def test_a_choice_made_in_another_tab_is_refused_next_to_the_action(
    server: str, browser: Any
) -> None:
    table = make_table("switch", players=2, start=True)
    player = table.players[0]
    context = phone(browser, server, player)
    first, second = open_live(context, server, table), open_live(context, server, table)

    # The second tab has picked its cards (so the pushed panel waits) when the first confirms.
    for slot in (0, 1, 2):
        second.locator(".start-form .choice").nth(slot).click()
    for slot in (2, 3, 4):
        first.locator(".start-form .choice").nth(slot).click()
    first.get_by_role("button", name="Confirm and reveal").click()
    expect(step(first)).to_have_attribute("data-step", "report", timeout=WAIT)
    second.wait_for_timeout(500)  # the pushed panel reaches the second tab, which holds it
    expect(step(second)).to_have_attribute("data-step", "choose_start")

    second.get_by_role("button", name="Confirm and reveal").click()
    refusal = step(second).locator("[data-refusal]")
    expect(refusal).to_be_visible(timeout=WAIT)
    expect(refusal).to_contain_text("already made, in another tab or by House")
    expect(step(second)).to_have_attribute("data-step", "report")
    expect(second.locator(".player-hand .card:not(.slot)")).to_have_count(3)
    assert len(table.kept(player)) == 3  # the first tab's three, nothing more
    second.screenshot(path=str(ARTIFACTS / "phone-refused-in-second-tab.png"))

    # Nothing piled up for the next full page load.
    second.reload()
    expect(step(second)).to_have_attribute("data-step", "report")
    assert second.locator(".messages").count() == 0
    assert first.script_errors == [] and second.script_errors == []
    context.close()


@pytest.mark.django_db(transaction=True)
def test_a_server_error_shows_a_retry_note_not_a_blank_sheet(server: str, browser: Any) -> None:
    table = make_table("league", players=2, start=True)
    player = table.players[0]
    table.choose_start(player)
    context = phone(browser, server, player)
    page = open_live(context, server, table)
    page.route(
        re.compile(r"/report$"),
        lambda route: route.fulfill(status=502, body="<html><body></body></html>"),
    )

    page.get_by_role("button", name="I won").click()
    page.locator("dialog.report-sheet button[type=submit]").click()
    expect(step(page)).to_contain_text("The server could not answer (error 502)", timeout=WAIT)
    expect(page.locator("dialog.report-sheet")).not_to_be_visible()
    expect(step(page).locator(".what")).to_have_text("Report game 1")
    page.screenshot(path=str(ARTIFACTS / "phone-server-error.png"))

    page.unroute(re.compile(r"/report$"))
    page.get_by_role("button", name="Check again").click()
    expect(step(page).get_by_role("button", name="I won")).to_be_visible(timeout=WAIT)
    expect(step(page).locator("[data-trouble]")).to_have_count(0)
    assert not GameResult.objects.filter(registration=table.registration(player)).exists()
    assert page.script_errors == []
    context.close()


@pytest.mark.django_db(transaction=True)
def test_a_timeout_shows_a_retry_note(server: str, browser: Any) -> None:
    table = make_table("league", players=2, start=True)
    player = table.players[0]
    table.choose_start(player)
    context = phone(browser, server, player)
    page = open_live(context, server, table)
    page.evaluate("window.htmx.config.timeout = 1500")
    waiting: list[Any] = []
    page.route(re.compile(r"/report$"), lambda route: waiting.append(route))  # never answered

    page.get_by_role("button", name="I lost").click()
    page.locator("dialog.report-sheet button[type=submit]").click()
    expect(step(page)).to_contain_text("No answer from the server yet", timeout=WAIT)
    expect(page.get_by_role("button", name="Check again")).to_be_visible()
    expect(page.locator("dialog.report-sheet")).not_to_be_visible()
    assert page.script_errors == []
    context.close()


@pytest.mark.django_db(transaction=True)
def test_registrations_message_does_not_linger_after_check_in(
    server: str, browser: Any, settings: Any
) -> None:
    settings.LIVE_UPDATES = "background"  # House's check-in below reaches the page's socket
    table = make_table("league", players=2)
    player = make_user("Pat Phone")
    context = phone(browser, server, player)
    page = context.new_page()
    page.goto(f"{server}/events/{table.event.pk}/")
    page.get_by_role("button", name="Register").click()
    expect(step(page).locator(".what")).to_have_text("Check in with House before playing.")
    expect(page.locator(".conn")).to_have_attribute("data-state", "live", timeout=WAIT)
    assert page.locator(".messages").count() == 0

    services.player_check_in(registration_id=table.rid(player), by=table.house)
    expect(step(page)).to_have_attribute("data-step", "wait_start", timeout=WAIT)
    expect(page.locator("body")).not_to_contain_text("Check in with House")
    context.close()
