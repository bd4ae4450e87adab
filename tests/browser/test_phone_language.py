"""A player who chose Spanish or French reads the words the page's scripts write in that language
too: the connection dot, the offline note, the starting-cards button (web/js_catalog.py). A phone
whose browser reads Spanish, for a player who never chose a language, is pushed its panels in
Spanish (the socket carries the page's language)."""

from __future__ import annotations

from typing import Any

import pytest
from playwright.sync_api import expect

from accounts.models import User
from tests.browser.test_event_flow import WAIT
from tests.browser.test_phone_connection import open_live, phone, step
from tests.factories import make_table


@pytest.mark.django_db(transaction=True)
@pytest.mark.parametrize(
    ("language", "live", "offline", "more"),
    [
        ("es", "En vivo", "Sin conexión", "Elige 2 más"),
        ("fr", "En direct", "Hors ligne", "Encore 2 à choisir"),
    ],
)
def test_the_scripts_speak_the_accounts_language(
    server: str, browser: Any, language: str, live: str, offline: str, more: str
) -> None:
    table = make_table("switch", players=2, start=True)
    player = table.players[0]
    User.objects.filter(pk=player.pk).update(language=language)
    player.refresh_from_db()
    context = phone(browser, server, player)
    catalogs: list[str] = []
    context.on("request", lambda r: catalogs.append(r.url) if "/jsi18n/" in r.url else None)
    page = open_live(context, server, table)
    expect(page.locator("html")).to_have_attribute("lang", language)

    expect(page.locator(".conn")).to_have_text(live)
    page.locator(".start-form .choice").nth(0).click()
    expect(page.locator(".start-form button[type=submit]")).to_have_text(more)
    page.locator(".start-form .choice").nth(0).click()  # undone: nothing held back

    context.set_offline(True)
    expect(page.locator(".conn")).to_have_attribute("data-state", "offline", timeout=WAIT)
    expect(page.locator(".conn")).to_have_text(offline)
    expect(page.locator(".offline-note [data-connection-words]")).to_have_text(offline)

    # Back online, the page takes the server's snapshots again: its words are not fetched again.
    context.set_offline(False)
    expect(page.locator(".conn")).to_have_attribute("data-state", "live", timeout=WAIT)
    expect(page.locator(".conn")).to_have_text(live)
    assert len(catalogs) == 1 and f"/jsi18n/{language}.js?v=" in catalogs[0], catalogs
    assert page.script_errors == []
    context.close()


@pytest.mark.django_db(transaction=True)
def test_english_stays_english(server: str, browser: Any) -> None:
    table = make_table("switch", players=2, start=True)
    context = phone(browser, server, table.players[0])
    page = open_live(context, server, table)
    expect(page.locator(".conn")).to_have_text("Live")
    page.locator(".start-form .choice").nth(0).click()
    expect(page.locator(".start-form button[type=submit]")).to_have_text("Choose 2 more")
    assert page.script_errors == []
    context.close()


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
