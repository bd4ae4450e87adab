"""A phone whose browser reads Spanish, for a player who never chose a language: the page and the
panels pushed to it after a change are in Spanish (the socket carries the page's language)."""

from __future__ import annotations

from typing import Any

import pytest
from playwright.sync_api import expect

from tests.browser.test_event_flow import WAIT
from tests.browser.test_phone_connection import open_live, phone, step
from tests.factories import make_table


@pytest.mark.django_db(transaction=True)
def test_a_spanish_phone_is_pushed_its_panel_in_spanish(
    server: str, browser: Any, settings: Any
) -> None:
    settings.LIVE_UPDATES = "background"  # the change reaches the page's socket
    table = make_table("league", players=2, start=True)
    player = table.players[0]
    assert player.language == ""
    context = phone(browser, server, player, locale="es-ES")
    page = open_live(context, server, table)
    expect(step(page).locator(".what")).to_have_text("Elige 1 de 3 cartas iniciales")

    table.choose_start(player)  # from elsewhere (House's assisted choice): pushed, not reloaded

    expect(step(page).locator(".what")).to_have_text("Informa de la partida 1", timeout=WAIT)
    assert page.script_errors == []
    context.close()
