"""Open pages show each change from their socket alone: no HTTP request to show an update.

Phones (the player page) and a board stay open while players write; every request a page makes
after its first load is counted.
"""

from __future__ import annotations

import re
from typing import Any

import pytest
from django.conf import settings
from django.test import Client
from playwright.sync_api import expect

from tests.browser.test_event_flow import PHONE, WAIT
from tests.factories import make_table

PHONES = 4


def logged_in(browser: Any, server: str, user: Any) -> Any:
    client = Client()
    client.force_login(user)
    name = settings.SESSION_COOKIE_NAME
    context = browser.new_context(viewport=PHONE)
    context.add_cookies([{"name": name, "value": client.cookies[name].value, "url": server}])
    return context


def requests_of(page: Any) -> list[str]:
    """The HTTP requests a page makes from now on (its socket's frames are not requests)."""
    made: list[str] = []
    page.on("request", lambda request: made.append(request.url))
    return made


def board_places(page: Any) -> list[list[str]]:
    """Each board row's id and place as the page shows it, in the order of its column."""
    return list(
        page.locator(".board-row").evaluate_all(
            "rows => rows.map(r => [r.id, r.querySelector('[data-place]').textContent])"
        )
    )


@pytest.mark.django_db(transaction=True)
def test_player_pages_and_the_board_show_every_change_without_refetching(
    server: str, browser: Any, settings: Any
) -> None:
    # The test's own changes reach daphne's sockets through the background publisher and Redis
    # (Playwright keeps an event loop on this thread).
    settings.LIVE_UPDATES = "background"
    table = make_table("league", players=PHONES, start=True)
    contexts, phones = [], []
    for player in table.players:
        context = logged_in(browser, server, player)
        page = context.new_page()
        page.goto(f"{server}/events/{table.event.pk}/")
        expect(page.locator(".conn")).to_have_attribute("data-state", "live", timeout=WAIT)
        contexts.append(context)
        phones.append(page)
    board_context = browser.new_context()
    board = board_context.new_page()
    board.goto(f"{server}/board/{table.event.pk}/")
    expect(board.locator(".conn")).to_have_attribute("data-state", "live", timeout=WAIT)
    house_context = logged_in(browser, server, table.house)
    house = house_context.new_page()
    house.goto(f"{server}/house/events/{table.event.pk}/")
    expect(house.locator(".conn")).to_have_attribute("data-state", "live", timeout=WAIT)
    made = [requests_of(page) for page in [*phones, board, house]]

    # Each player confirms their starting card: their own panel, everyone's place line and the
    # board follow, from the socket.
    for n, player in enumerate(table.players, start=1):
        table.choose_start(player)
        mine = phones[n - 1]
        expect(mine.locator(".next-step")).to_have_attribute("data-step", "report", timeout=WAIT)
        expect(mine.locator(".player-hand .card:not(.slot)")).to_have_count(1, timeout=WAIT)
        expect(board.locator(".board-head .muted")).to_contain_text(
            re.compile(rf"^\s*{n} of \d+ cards kept"), timeout=WAIT
        )
        for page in phones[:n]:
            expect(page.locator("[data-place-line]")).to_contain_text(
                re.compile(
                    rf"High \d(st|nd|rd|th) of {n} · Low \d(st|nd|rd|th) of {n} \(provisional\)"
                ),
                timeout=WAIT,
            )
    # Each start moved the places of the rows it passed: the board shows the places a page
    # loaded now shows, in the same order.
    fresh = board_context.new_page()
    fresh.goto(f"{server}/board/{table.event.pk}/")
    assert board_places(board) == board_places(fresh)
    fresh.close()
    # A player's report moves their own panel (a pending win choice, two face-up cards).
    table.report(table.players[0], 1, "win")
    expect(phones[0].locator(".next-step")).to_have_attribute(
        "data-step", "choose_win", timeout=WAIT
    )
    expect(phones[0].locator(".keep-form .choice .card")).to_have_count(2, timeout=WAIT)
    # The pushed form posts through htmx (its CSRF token from the page): keeping a card works.
    phones[0].locator(".keep-form .choice").first.click()
    phones[0].locator(".keep-form button[type=submit]").click()
    expect(phones[0].locator(".player-hand .card:not(.slot)")).to_have_count(2, timeout=WAIT)
    expect(board.locator(".board-head .muted")).to_contain_text(
        re.compile(rf"^\s*{PHONES + 1} of"), timeout=WAIT
    )
    for page in phones[1:]:
        expect(page.locator("[data-place-line]")).to_contain_text(f"of {PHONES}", timeout=WAIT)
    # House's table follows too: the first player's row counts two kept cards.
    first_label = table.registration(table.players[0]).label
    row = house.locator("#players tbody tr").filter(
        has=house.get_by_role("rowheader", name=first_label)
    )
    expect(row.locator("td.num").nth(1)).to_have_text(f"2/{table.event.rules.kept}", timeout=WAIT)

    posts = [url for url in made[0] if url.endswith("/keep")]
    assert len(posts) == 1, made[0]
    refetched = [[url for url in urls if url not in posts] for urls in made]
    assert refetched == [[]] * (PHONES + 2), "a page fetched over HTTP to show an update"
    for context in [*contexts, board_context, house_context]:
        context.close()


@pytest.mark.django_db(transaction=True)
def test_board_and_house_replace_only_what_changed_and_catch_up_after_being_offline(
    server: str, browser: Any, settings: Any
) -> None:
    settings.LIVE_UPDATES = "background"
    table = make_table("league", players=4, start=True)
    first, second, third, fourth = table.players
    table.choose_start(first)  # the board's lists have rows from here on
    board_context = browser.new_context()
    board = board_context.new_page()
    board.goto(f"{server}/board/{table.event.pk}/")
    house_context = logged_in(browser, server, table.house)
    house = house_context.new_page()
    house.goto(f"{server}/house/events/{table.event.pk}/")
    for page in (board, house):
        expect(page.locator(".conn")).to_have_attribute("data-state", "live", timeout=WAIT)
    made = [requests_of(page) for page in (board, house)]
    # Elements a targeted update leaves alone stay the very same nodes.
    untouched = f"house-row-{table.rid(fourth)}"
    house.evaluate(f"document.getElementById('{untouched}').dataset.seen = 'before'")
    board.evaluate("document.getElementById('board-high').dataset.seen = 'before'")
    kept = table.event.rules.kept

    table.choose_start(second)
    changed = house.locator(f"#house-row-{table.rid(second)} td.num").nth(1)
    expect(changed).to_have_text(f"1/{kept}", timeout=WAIT)
    expect(board.locator(".board-head .muted")).to_contain_text(
        re.compile(r"^\s*2 of \d+ cards kept"), timeout=WAIT
    )
    expect(board.locator(f"#board-row-{table.rid(second)}")).to_have_count(1, timeout=WAIT)
    assert house.evaluate(f"document.getElementById('{untouched}').dataset.seen") == "before"
    assert board.evaluate("document.getElementById('board-high').dataset.seen") == "before"
    assert made == [[], []], "a page fetched over HTTP to show an update"

    # Both pages go offline; two changes happen; back online, each shows them.
    for context, page in ((board_context, board), (house_context, house)):
        context.set_offline(True)
        expect(page.locator(".conn")).not_to_have_attribute("data-state", "live", timeout=WAIT)
    table.choose_start(third)
    table.choose_start(fourth)
    for context in (board_context, house_context):
        context.set_offline(False)
    for page in (board, house):
        expect(page.locator(".conn")).to_have_attribute("data-state", "live", timeout=WAIT)
    expect(board.locator(".board-head .muted")).to_contain_text(
        re.compile(r"^\s*4 of \d+ cards kept"), timeout=WAIT
    )
    for player in (third, fourth):
        row = house.locator(f"#house-row-{table.rid(player)} td.num").nth(1)
        expect(row).to_have_text(f"1/{kept}", timeout=WAIT)
        expect(board.locator(f"#board-row-{table.rid(player)}")).to_have_count(1, timeout=WAIT)
    # And the next change is shown as before.
    table.report(first, 1, "loss")
    row = house.locator(f"#house-row-{table.rid(first)} td.num").nth(0)
    expect(row).to_contain_text(f"1/{table.event.rules.games}", timeout=WAIT)
    expect(board.locator(".board-head .muted")).to_contain_text(
        re.compile(r"^\s*5 of \d+ cards kept"), timeout=WAIT
    )
    for context in (board_context, house_context):
        context.close()
