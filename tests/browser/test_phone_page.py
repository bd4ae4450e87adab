"""The player's page on a 390 px phone: the hand in words, a correction, reduced motion, card
and tap sizes, and cancelling a registration."""

from __future__ import annotations

import time
from typing import Any

import pytest
from playwright.sync_api import expect

from audit.models import AuditEntry
from cards.models import Offer
from events import services
from events.models import Registration, RegistrationStatus
from scoring.evaluator import evaluate_high, evaluate_low
from tests.browser.conftest import ARTIFACTS
from tests.browser.test_event_flow import WAIT
from tests.browser.test_phone_connection import open_live, phone, step
from tests.factories import Table, make_table, make_user


def shot(page: Any, name: str) -> None:
    page.screenshot(path=str(ARTIFACTS / f"{name}.png"), full_page=True)


@pytest.mark.django_db(transaction=True)
def test_the_hand_in_words_and_a_correction_that_changes_them(
    server: str, browser: Any, settings: Any
) -> None:
    settings.LIVE_UPDATES = "background"  # House's correction reaches the page's socket
    table = make_table("league", players=2, start=True)
    player, rival = table.players
    table.choose_start(player)
    table.choose_start(rival)
    table.report(player, 1, "win")
    context = phone(browser, server, player)
    page = open_live(context, server, table)
    held = table.kept(player)
    words = page.locator("[data-hand-words]")
    expect(words).to_contain_text(evaluate_high(held).description)
    expect(words).to_contain_text(evaluate_low(held).description)
    expect(page.locator("[data-place-line]")).to_contain_text("of 2 (provisional)")
    expect(step(page).locator(".what")).to_have_text("You won game 1: keep one card")

    services.result_correct(
        registration_id=table.rid(player),
        by=table.house,
        game=1,
        outcome="loss",
        reason="Scoreholio shows a loss",
    )
    expect(step(page).locator(".what")).to_have_text(
        "Game 1 is now a loss, but its choice stays: keep one card", timeout=WAIT
    )
    expect(step(page).locator("[data-review]")).to_have_text(
        "House corrected game 1 from a win to a loss and is reviewing it. "
        "Reason: Scoreholio shows a loss"
    )
    expect(page.locator(".game").first).to_contain_text("G1 L")
    page.locator(".game").first.click()
    expect(page.locator("#game-details")).to_have_text("Game 1: lost.")
    expect(page.locator(".standing")).to_contain_text("Out of the standings while House reviews")
    assert "You won game 1" not in page.locator("#player").inner_text()
    shot(page, "phone-corrected")
    context.close()


@pytest.mark.django_db(transaction=True)
def test_the_wild_and_its_effect_in_words(server: str, browser: Any) -> None:
    table = make_table("league", players=2, start=True)
    player = table.players[0]
    table.play_out(player, "llllll")
    registration = table.registration(player)
    assert registration.wild_rank
    context = phone(browser, server, player)
    page = open_live(context, server, table)
    held = table.kept(player)
    expect(page.locator("[data-hand-words]")).to_contain_text(
        evaluate_high(held, registration.wild_rank).description
    )
    expect(page.locator("[data-wild-effect]")).to_be_visible()
    shot(page, "phone-wild-words")
    context.close()


def _confirm(page: Any) -> None:
    page.locator(".start-form .choice").nth(0).click()
    page.get_by_role("button", name="Confirm and reveal").click()
    expect(page.locator(".reveal .not-kept")).to_have_count(2, timeout=WAIT)


def _seconds_since_the_confirmation_until_gone(page: Any, table: Table) -> float:
    """When the Not kept cards left, counted from the confirmation's commit (same clock)."""
    deadline = time.time() + 10
    while page.locator(".reveal .not-kept").count() and time.time() < deadline:
        page.wait_for_timeout(50)
    gone = time.time()
    offer = Offer.objects.get(
        registration__event=table.event, kind="starting", resolved_at__isnull=False
    )
    assert offer.resolved_at is not None
    return gone - offer.resolved_at.timestamp()


@pytest.mark.django_db(transaction=True)
def test_not_kept_cards_leave_after_three_seconds_with_reduced_motion(
    server: str, browser: Any
) -> None:
    table = make_table("league", players=2, start=True)
    player = table.players[0]
    context = phone(browser, server, player, reduced_motion="reduce")
    page = open_live(context, server, table)
    assert page.evaluate("matchMedia('(prefers-reduced-motion: reduce)').matches")
    _confirm(page)
    gone = _seconds_since_the_confirmation_until_gone(page, table)
    assert 2.9 <= gone <= 4.5, gone
    expect(page.locator(".reveal .kept-card")).to_have_count(1)
    assert page.script_errors == []
    context.close()


@pytest.mark.django_db(transaction=True)
def test_a_reload_does_not_restart_the_not_kept_cards_stay(server: str, browser: Any) -> None:
    table = make_table("league", players=2, start=True)
    player = table.players[0]
    context = phone(browser, server, player, reduced_motion="reduce")
    page = open_live(context, server, table)
    _confirm(page)
    page.wait_for_timeout(1500)
    page.reload()
    gone = _seconds_since_the_confirmation_until_gone(page, table)
    # Three seconds from the confirmation, not three more from the reload.
    assert gone <= 4.5, gone
    page.wait_for_timeout(1000)
    expect(page.locator(".reveal .not-kept")).to_have_count(0)
    context.close()


def _too_small(page: Any, selector: str, width: float, height: float) -> list[str]:
    """The visible elements smaller than width x height CSS px, measured in one go (a pushed
    panel cannot swap them away between two measurements)."""
    boxes = page.evaluate(
        """(selector) => [...document.querySelectorAll(selector)]
            .map((e) => [e.outerHTML.slice(0, 80), e.getBoundingClientRect(), e.checkVisibility()])
            .filter(([, , visible]) => visible)
            .map(([html, r]) => [html, r.width, r.height])""",
        selector,
    )
    assert boxes, f"nothing matches {selector}"
    return [f"{html} {w}x{h}" for html, w, h in boxes if w < width or h < height]


TAPPABLE = "#player button, #player a, #player label.choice, header a, header button"


@pytest.mark.django_db(transaction=True)
def test_cards_and_tap_targets_are_phone_sized(server: str, browser: Any) -> None:
    table = make_table("league", players=2, start=True)
    player = table.players[0]
    context = phone(browser, server, player)
    page = open_live(context, server, table)
    assert page.evaluate("document.documentElement.clientWidth") == 390
    # Starting cards, then the report buttons, then a win's choice: every tap target is real.
    assert _too_small(page, TAPPABLE, 44, 44) == []
    shot(page, "phone-starting-offer")
    page.locator(".start-form .choice").nth(0).click()
    page.get_by_role("button", name="Confirm and reveal").click()
    expect(step(page)).to_have_attribute("data-step", "report", timeout=WAIT)
    assert _too_small(page, TAPPABLE, 44, 44) == []
    page.get_by_role("button", name="I won").click()
    page.locator("dialog.report-sheet button[type=submit]").click()
    expect(step(page)).to_have_attribute("data-step", "choose_win", timeout=WAIT)
    assert _too_small(page, TAPPABLE, 44, 44) == []
    shot(page, "phone-win-choice")
    # The hand, full slots and empty ones, readable at arm's length.
    assert page.locator(".player-hand .card").count() == 7
    assert _too_small(page, ".player-hand .card", 56, 80) == []
    # Nothing runs off the side of the screen, at 390 px nor on a 360 px phone
    # (docs/rules.md section 1.2).
    assert page.evaluate("document.documentElement.scrollWidth") <= 390
    page.set_viewport_size({"width": 360, "height": 740})
    assert _too_small(page, ".player-hand .card", 56, 80) == []
    assert _too_small(page, TAPPABLE, 44, 44) == []
    assert page.evaluate("document.documentElement.scrollWidth") <= 360
    context.close()


@pytest.mark.django_db(transaction=True)
def test_a_player_cancels_their_registration_before_check_in(server: str, browser: Any) -> None:
    table = make_table("league", players=2)
    player = make_user("Pat Phone")
    table.register(player)
    context = phone(browser, server, player)
    page = context.new_page()
    page.goto(f"{server}/events/{table.event.pk}/")
    expect(step(page).locator(".what")).to_have_text("Check in with House before playing.")
    page.get_by_role("link", name="Not coming? Cancel your registration").click()
    expect(page.locator("h1")).to_have_text("Cancel your registration?")
    shot(page, "phone-cancel")
    page.get_by_role("button", name="Cancel my registration").click()
    expect(page.locator(".messages")).to_contain_text("Your registration is cancelled")
    expect(page.get_by_role("button", name="Register")).to_be_visible()
    registration = Registration.objects.get(event=table.event, player=player)
    assert registration.status == RegistrationStatus.CANCELLED
    cancelled = AuditEntry.objects.filter(event=table.event, action="registration_cancelled")
    assert cancelled.count() == 1

    # Registering again works while registration is open.
    page.get_by_role("button", name="Register").click()
    expect(step(page).locator(".what")).to_have_text("Check in with House before playing.")
    registration.refresh_from_db()
    assert registration.status == RegistrationStatus.REGISTERED
    context.close()


@pytest.mark.django_db(transaction=True)
def test_a_checked_in_player_is_not_offered_a_cancel(server: str, browser: Any) -> None:
    table = make_table("league", players=2)
    player = table.players[0]
    context = phone(browser, server, player)
    page = context.new_page()
    page.goto(f"{server}/events/{table.event.pk}/")
    expect(step(page)).to_have_attribute("data-step", "wait_start")
    expect(page.get_by_role("link", name="Not coming? Cancel your registration")).to_have_count(0)
    page.goto(f"{server}/events/{table.event.pk}/cancel")
    expect(step(page)).to_have_attribute("data-step", "wait_start")  # back to the event page
    context.close()
