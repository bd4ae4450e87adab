"""A phone open when House finalizes: the winners, its own result and the final page arrive over
its socket, and House's announcements are taken down, without a reload."""

from __future__ import annotations

from typing import Any

import pytest
from playwright.sync_api import expect

from events import services
from events.reads.final import final_results
from tests.browser.conftest import ARTIFACTS
from tests.browser.test_event_flow import PHONE, WAIT
from tests.browser.test_house_phone import OVERFLOW
from tests.browser.test_phone_connection import open_live, phone, step
from tests.events.support import complete_table
from tests.factories import make_table
from web.templatetags.player_page import ordinal


@pytest.mark.django_db(transaction=True)
def test_a_phone_open_when_house_finalizes_shows_the_winners_its_result_and_the_final_page(
    server: str, browser: Any, settings: Any
) -> None:
    # The test's own changes reach daphne's sockets through the background publisher and Redis.
    settings.LIVE_UPDATES = "background"
    table = complete_table("league", players=3)
    event_id = table.event.pk
    services.announcement_send(event_id=event_id, by=table.house, text="Prizes at the bar at 11")
    services.pool_confirm(event_id=event_id, by=table.house)
    player = table.players[0]
    context = phone(browser, server, player)
    page = open_live(context, server, table)
    expect(page.locator("#announcements")).to_contain_text("Prizes at the bar at 11")
    page.evaluate("window.__neverReloaded = true")
    fetched: list[str] = []
    page.on("request", lambda r: fetched.append(r.url) if r.resource_type != "websocket" else None)

    services.event_finalize(event_id=event_id, by=table.house)

    final = page.locator("[data-final-results]")
    expect(final).to_be_visible(timeout=WAIT)
    expect(step(page)).to_have_attribute("data-step", "final")
    registration = table.registration(player)
    own = final.locator("[data-own-result]")
    expect(own).to_contain_text(
        f"High {ordinal(registration.high_place)} · Low {ordinal(registration.low_place)} (final)"
    )
    expect(own).to_contain_text(
        f"Award: ${registration.award}" if registration.award else "No award"
    )
    results = final_results(table.refresh())
    assert results is not None
    for side in ("high", "low"):
        winners = final.locator(f'[data-winners="{side}"] .winner')
        side_winners = getattr(results.winners, side)
        expect(winners).to_have_count(len(side_winners))
        for index, winner in enumerate(side_winners):
            shown = winners.nth(index)
            expect(shown).to_contain_text(winner.player)
            expect(shown).to_contain_text(winner.description)
            if winner.prize:
                expect(shown).to_contain_text(f"${winner.prize}")
            expect(shown.locator(".card")).to_have_count(5)
    link = final.get_by_role("link", name="Every place, the pool and the shuffle's proof")
    expect(link).to_have_attribute("href", f"/board/{event_id}/final/")
    expect(page.locator("#announcements")).to_be_hidden()
    page.screenshot(path=str(ARTIFACTS / "phone-final.png"), full_page=True)
    assert page.evaluate("window.__neverReloaded") is True
    assert fetched == [], fetched  # all of it came over the socket
    assert page.script_errors == []

    link.click()
    expect(page).to_have_url(f"{server}/board/{event_id}/final/", timeout=WAIT)
    context.close()


@pytest.mark.django_db(transaction=True)
def test_the_final_results_page_fits_a_phone_whatever_the_winners_names(
    server: str, browser: Any
) -> None:
    table = make_table("league", contribution=10)
    for name in ("Featherstonehaugh", "Cholmondeley-Marjoribanks", "Wolfeschlegelstein"):
        table.join(name)
    table.start()
    for player in table.players:
        table.play_out(player, "wlwlwl")
    services.pool_confirm(event_id=table.event.pk, by=table.house)
    services.event_finalize(event_id=table.event.pk, by=table.house)
    context = browser.new_context(viewport=PHONE, is_mobile=True, has_touch=True)
    page = context.new_page()
    page.goto(f"{server}/board/{table.event.pk}/final/")
    expect(page.locator(".winner").first).to_be_visible(timeout=WAIT)
    found = page.evaluate(OVERFLOW)
    page.screenshot(path=str(ARTIFACTS / "phone-final-results.png"), full_page=True)
    assert found["scrollWidth"] <= PHONE["width"] and not found["past"], found
    context.close()
