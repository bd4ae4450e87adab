"""The board on a 1920 x 1080 projector: every player within one paging cycle, readable cards,
no sign-in link, the QR code, prizes in their columns, kiosk mode, and the final results."""

from __future__ import annotations

import re
from typing import Any

import pytest
from playwright.sync_api import expect

from events.models import Event, RegistrationStatus
from tests.browser.conftest import ARTIFACTS
from tests.browser.test_event_flow import WAIT
from tests.events.support import finalized_table, last
from tests.factories import Table, make_table

PROJECTOR = {"width": 1920, "height": 1080}
PLAYERS = 42


def shot(page: Any, name: str) -> None:
    page.screenshot(path=str(ARTIFACTS / f"{name}.png"))


def crowded_table() -> Table:
    """A started League event of 42 players holding their starting card; four hands complete."""
    table = make_table("league", players=PLAYERS, start=True)
    for index, player in enumerate(table.players):
        if index < 4:
            table.play_out(player, "wlwlwl"[index:] + "l" * index)
        else:
            table.choose_start(player)
    table.refresh()
    return table


def board_page(browser: Any, url: str, **options: Any) -> Any:
    context = browser.new_context(viewport=PROJECTOR, **options)
    page = context.new_page()
    page.goto(url)
    expect(page.locator(".board-list").first).to_be_visible(timeout=WAIT)
    return page


def visible(page: Any, column: str) -> list[str]:
    return list(page.locator(f"#board-{column} .board-row:not([hidden]) .who").all_inner_texts())


def places(page: Any) -> dict[str, str]:
    """Each row's place as the page shows it, by row id (both columns)."""
    return dict(
        page.locator(".board-row").evaluate_all(
            "rows => rows.map(r => [r.id, r.querySelector('[data-place]').textContent])"
        )
    )


def pager(page: Any) -> tuple[int, int]:
    found = re.fullmatch(r"Page (\d+) of (\d+)", page.locator(".pager").inner_text())
    assert found, page.locator(".pager").inner_text()
    return int(found[1]), int(found[2])


def labels(table: Table) -> set[str]:
    return set(
        table.event.registrations.filter(status=RegistrationStatus.CHECKED_IN).values_list(
            "label", flat=True
        )
    )


@pytest.mark.django_db(transaction=True)
def test_a_projector_shows_every_player_readably(server: str, browser: Any) -> None:
    """One 42-player event (its setup is the slow part) for what a projector must show."""
    table = crowded_table()
    every_player_within_one_paging_cycle(server, browser, table)
    readable_with_no_sign_in_link(server, browser, table)
    pages_turn_without_animation_when_motion_is_reduced(server, browser, table)


def every_player_within_one_paging_cycle(server: str, browser: Any, table: Table) -> None:
    page = board_page(browser, f"{server}/board/{table.event.pk}/?seconds=2")
    expect(page.locator(".pager")).to_be_visible()
    first, pages = pager(page)
    assert pages > 1
    seen: dict[str, set[str]] = {"high": set(), "low": set()}
    pinned = visible(page, "high")[:3]
    for _ in range(pages):
        current = pager(page)[0]
        for column in seen:
            shown = visible(page, column)
            assert 3 < len(shown) < PLAYERS
            seen[column].update(shown)
            # Everything shown fits on the screen: no row below the bottom edge.
            boxes = page.locator(f"#board-{column} .board-row:not([hidden])").evaluate_all(
                "cells => cells.map(c => c.getBoundingClientRect().bottom)"
            )
            assert max(boxes) <= PROJECTOR["height"]
        assert visible(page, "high")[:3] == pinned  # the top places stay
        if current == 1:
            shot(page, "board-1920-long-list")
        page.wait_for_function(
            "n => !document.querySelector('.pager').textContent.startsWith('Page ' + n + ' ')",
            arg=current,
            timeout=WAIT,
        )
    assert seen["high"] == seen["low"] == labels(table)
    assert first == 1


def readable_with_no_sign_in_link(server: str, browser: Any, table: Table) -> None:
    url = f"{server}/board/{table.event.pk}/"
    page = board_page(browser, url)
    # Each card's top corner, its rank over its suit, is drawn by its ::before (cards/card.html).
    corners = page.locator(".board-row:not([hidden]) .card").evaluate_all(
        "cards => cards.map(c => getComputedStyle(c, '::before'))"
        "  .map(s => [s.content, parseFloat(s.fontSize), parseFloat(s.height)])"
    )
    assert corners and all(content not in ("none", "normal", "") for content, _, _ in corners)
    sizes = [size for _, size, _ in corners]
    assert min(sizes) >= 32
    heights = [height for _, _, height in corners]
    assert min(heights) >= 32  # rank and suit, each line at least 32 px
    assert page.locator("a[href*='login'], a[href*='signup']").count() == 0
    assert page.get_by_text("Sign in").count() == 0
    shot(page, "board-1920")
    # Opened at a loopback address (and no SITE_URL), the board names the problem instead of a
    # QR no phone could open (the QR itself: tests/browser/test_board_venue.py).
    expect(page.locator(".follow .qr-missing")).to_have_text(
        "Phones cannot reach 127.0.0.1: start with HOST=0.0.0.0 or set SITE_URL"
    )
    expect(page.locator(".follow .qr svg")).to_have_count(0)
    # Which card each wild stands for, beside the complete hands.
    assert page.locator("#board-high .wild-note").count() >= 1
    kiosk = board_page(browser, url + "?kiosk=1")
    expect(kiosk.locator(".board-bar")).to_be_hidden()
    assert kiosk.locator("a[href*='login']").count() == 0
    shot(kiosk, "board-1920-kiosk")
    page.click("[data-kiosk]")
    expect(page.locator("body")).to_have_class(re.compile(r"\bkiosk\b"))
    assert "kiosk=1" in page.url


def pages_turn_without_animation_when_motion_is_reduced(
    server: str, browser: Any, table: Table
) -> None:
    page = board_page(browser, f"{server}/board/{table.event.pk}/?seconds=60")
    page.emulate_media(reduced_motion="reduce")
    page.keyboard.press("ArrowRight")
    names = page.locator(".board-row:not([hidden])").evaluate_all(
        "cells => cells.map(c => getComputedStyle(c).animationName)"
    )
    assert set(names) == {"none"}
    moving = board_page(browser, f"{server}/board/{table.event.pk}/?seconds=60")
    moving.keyboard.press("ArrowRight")
    animated = moving.locator(".board-row:not([hidden]):not(.pinned)").evaluate_all(
        "cells => cells.map(c => getComputedStyle(c).animationName)"
    )
    assert set(animated) == {"page-in"}


@pytest.mark.django_db(transaction=True)
def test_a_live_update_while_paging_keeps_the_page_and_every_row(
    server: str, browser: Any, settings: Any
) -> None:
    settings.LIVE_UPDATES = "background"
    table = crowded_table()
    page = board_page(browser, f"{server}/board/{table.event.pk}/?seconds=60")
    expect(page.locator(".conn")).to_have_attribute("data-state", "live", timeout=WAIT)
    page.keyboard.press("ArrowRight")
    page.keyboard.press("ArrowRight")
    at, pages = pager(page)
    assert at == 3
    before = page.locator(".board-facts.muted").first.inner_text()
    shown_before = visible(page, "high")
    # Someone low on the list keeps a card: the board gets a frame while on page 3.
    table.report(table.players[-1], 1, "loss")
    expect(page.locator(".board-facts.muted").first).not_to_have_text(before, timeout=WAIT)
    assert pager(page) == (at, pages)
    for column in ("high", "low"):
        assert page.locator(f"#board-{column} .board-row").count() == PLAYERS
    shown = visible(page, "high")
    assert len(shown) == len(shown_before)
    assert shown[:3] == shown_before[:3]
    indexes = page.locator("#board-high .board-row").evaluate_all(
        "rows => rows.flatMap((r, i) => r.hidden ? [] : [i])"
    )
    per = len(indexes) - 3
    assert indexes[3:] == sorted(indexes[3:])
    assert indexes[3] == 3 + per * (at - 1)
    # The places the update set are those a page loaded now shows, row by row.
    fresh = board_page(browser, f"{server}/board/{table.event.pk}/?seconds=60")
    assert places(page) == places(fresh)
    assert all(place.isdigit() for place in places(page).values())
    order = "rows => rows.map(r => r.id)"
    for column in ("high", "low"):
        rows = f"#board-{column} .board-row"
        assert page.locator(rows).evaluate_all(order) == fresh.locator(rows).evaluate_all(order)


@pytest.mark.django_db(transaction=True)
def test_the_final_board_shows_each_prize_in_its_column(server: str, browser: Any) -> None:
    table = finalized_table("switch", players=6, contribution=10)
    event = table.refresh()
    page = board_page(browser, f"{server}/board/{event.pk}/")
    for r in event.registrations.filter(status=RegistrationStatus.CHECKED_IN):
        high = page.locator(f"#board-row-{r.pk} .prize")
        low = page.locator(f"#board-row-{r.pk}-low .prize")
        assert high.count() == (1 if r.high_place == 1 else 0)
        assert low.count() == (1 if r.low_place == 1 else 0)
    total = sum(
        int(text.removeprefix("won $"))
        for text in page.locator(".board-row .prize").all_inner_texts()
    )
    assert total + (event.unallocated or 0) == event.confirmed_pool
    expect(page.locator(".unallocated")).to_have_text(f"Unallocated ${event.unallocated}")
    shot(page, "board-1920-final")


@pytest.mark.django_db(transaction=True)
def test_the_final_results_view(server: str, browser: Any) -> None:
    table = finalized_table("league", players=5, contribution=10)
    event: Event = table.refresh()
    page = board_page_plain(browser, f"{server}/board/{event.pk}/final/")
    seed = last(event, "event_finalized").details["seed"]
    expect(page.locator("code.seed")).to_have_text(seed)
    expect(page.locator("code.commitment")).to_have_text(event.commitment)
    expect(page.locator(".proof .ok")).to_have_text("SHA-256 of the seed equals the commitment.")
    winners = event.registrations.filter(high_place=1) | event.registrations.filter(low_place=1)
    for r in winners:
        expect(page.locator(".winners")).to_contain_text(r.label)
    rows = page.locator(".payouts tbody tr")
    expect(rows).to_have_count(5)
    paid = sum(int(t.removeprefix("$")) for t in page.locator(".payouts td.num").all_inner_texts())
    assert paid + (event.unallocated or 0) == 50
    expect(page.locator(".arithmetic")).to_contain_text("$10 \u00d7 5 participants")
    expect(page.locator(".arithmetic")).to_contain_text("$50 \u00f7 5, whole dollars")
    assert page.locator("a[href*='login']").count() == 0
    shot(page, "board-1920-final-results")


def board_page_plain(browser: Any, url: str) -> Any:
    page = browser.new_context(viewport=PROJECTOR).new_page()
    page.goto(url)
    return page
