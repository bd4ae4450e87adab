"""A House page read in Spanish (the browser's language, the account chose none) is pushed its
dashboard's parts in Spanish: the socket carries the page's language (docs/decisions.md,
"House's pushed parts in each member's language")."""

from __future__ import annotations

from typing import Any

import pytest
from django.conf import settings as django_settings
from django.test import Client
from playwright.sync_api import expect

from tests.browser.test_event_flow import WAIT
from tests.factories import make_table


@pytest.mark.django_db(transaction=True)
def test_a_spanish_house_page_is_pushed_its_dashboard_in_spanish(
    server: str, browser: Any, settings: Any
) -> None:
    settings.LIVE_UPDATES = "background"  # the change reaches the page's socket
    table = make_table(players=2, start=True)
    player = table.players[0]
    assert table.house.language == ""
    client = Client()
    client.force_login(table.house)
    name = django_settings.SESSION_COOKIE_NAME
    context = browser.new_context(locale="es-ES")
    context.add_cookies([{"name": name, "value": client.cookies[name].value, "url": server}])
    page = context.new_page()
    errors: list[str] = []
    page.on("pageerror", lambda error: errors.append(str(error)))
    page.goto(f"{server}/house/events/{table.event.pk}/")
    expect(page.locator("html")).to_have_attribute("lang", "es")
    expect(page.locator(".conn")).to_have_attribute("data-state", "live", timeout=WAIT)
    row = page.locator(f"#house-row-{table.rid(player)}")
    expect(row).to_contain_text("Elegir cartas iniciales")

    table.choose_start(player)  # from elsewhere (the player's phone): pushed, not reloaded

    expect(row).to_contain_text("Enviar partida 1", timeout=WAIT)
    expect(row.locator(".status")).to_have_text("Presente")
    expect(row).not_to_contain_text("Submit game")
    assert errors == []
    context.close()
