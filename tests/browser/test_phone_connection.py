"""A phone on venue Wi-Fi: a lost answer never strands the player, an offline tap is sent once.

The answer to a confirmation is dropped on its way back (the server gets the request, the page
gets nothing), the page's socket goes quiet, or the phone goes offline; each time the player ends
up looking at what the server saved, and each tap counts exactly once.
"""

from __future__ import annotations

import re
from typing import Any

import pytest
from django.conf import settings
from django.test import Client
from playwright.sync_api import expect

from accounts.models import User
from audit.models import AuditEntry
from cards.models import CardState, DealtCard, Offer
from events import services
from events.models import GameResult
from tests.browser.conftest import ARTIFACTS
from tests.browser.test_event_flow import PHONE, WAIT
from tests.factories import Table, make_table


def phone(browser: Any, server: str, user: User, **options: Any) -> Any:
    """A signed-in phone (390 x 844)."""
    client = Client()
    client.force_login(user)
    name = settings.SESSION_COOKIE_NAME
    context = browser.new_context(viewport=PHONE, is_mobile=True, has_touch=True, **options)
    context.add_cookies([{"name": name, "value": client.cookies[name].value, "url": server}])
    return context


class QuietSocket:
    """The page's socket, proxied to the real server; after quiet() no frame reaches the page
    (a socket that looks open but carries nothing, as on a flaky venue network)."""

    def __init__(self, context: Any) -> None:
        self.quiet_now = False
        context.route_web_socket(re.compile(r"/ws/"), self._route)

    def _route(self, ws: Any) -> None:
        server = ws.connect_to_server()
        server.on_message(lambda message: None if self.quiet_now else ws.send(message))

    def quiet(self) -> None:
        self.quiet_now = True

    def speak(self) -> None:
        self.quiet_now = False


def drop_answers(page: Any, path: str) -> list[str]:
    """Requests to `path` reach the server; their answers never reach the page."""
    bodies: list[str] = []

    def handle(route: Any) -> None:
        if route.request.method != "POST":
            route.continue_()
            return
        bodies.append(route.request.post_data or "")
        route.fetch()  # the server does the work and answers ...
        route.abort()  # ... and the answer is lost

    page.route(re.compile(rf"{re.escape(path)}$"), handle)
    return bodies


def open_live(context: Any, server: str, table: Table) -> Any:
    page = context.new_page()
    errors: list[str] = []
    page.on("pageerror", lambda error: errors.append(str(error)))
    page.script_errors = errors
    page.goto(f"{server}/events/{table.event.pk}/")
    expect(page.locator(".conn")).to_have_attribute("data-state", "live", timeout=WAIT)
    return page


def step(page: Any) -> Any:
    return page.locator(".next-step")


@pytest.mark.django_db(transaction=True)
def test_check_again_shows_the_kept_starting_cards_after_a_lost_answer(
    server: str, browser: Any
) -> None:
    table = make_table("switch", players=2, start=True)
    player = table.players[0]
    context = phone(browser, server, player)
    socket = QuietSocket(context)
    page = open_live(context, server, table)
    expect(step(page).locator(".what")).to_have_text("Choose 3 of 5 starting cards")
    socket.quiet()  # the push that follows the commit will not arrive either
    sent = drop_answers(page, f"/events/{table.event.pk}/start")

    for slot in (0, 2, 4):
        page.locator(".start-form .choice").nth(slot).click()
    page.get_by_role("button", name="Confirm and reveal").click()

    again = page.get_by_role("button", name="Check again")
    expect(again).to_be_visible(timeout=WAIT)
    expect(step(page)).to_contain_text("The answer was lost on the way")
    assert len(sent) == 1
    offer = Offer.objects.get(registration=table.registration(player), kind="starting")
    assert offer.resolved_at is not None, "the server never got the confirmation"
    # Still on screen: the picked cards. Tapping one neither changes nor breaks anything.
    page.locator(".start-form .choice").nth(0).click()
    expect(page.locator('.start-form .choice[aria-pressed="true"]')).to_have_count(3)
    assert page.script_errors == []

    again.click()
    expect(step(page)).to_have_attribute("data-step", "report", timeout=WAIT)
    expect(step(page).locator(".what")).to_have_text("Report game 1")
    expect(page.locator(".player-hand .card:not(.slot)")).to_have_count(3)
    kept = DealtCard.objects.filter(offer=offer, state=CardState.KEPT)
    assert sorted(kept.values_list("slot", flat=True)) == [0, 2, 4]
    assert page.script_errors == []
    context.close()


@pytest.mark.django_db(transaction=True)
def test_check_again_shows_the_kept_card_after_a_lost_keep_this_card(
    server: str, browser: Any
) -> None:
    table = make_table("league", players=2, start=True)
    player = table.players[0]
    table.choose_start(player)
    offered = table.win(player, 1)
    context = phone(browser, server, player)
    socket = QuietSocket(context)
    page = open_live(context, server, table)
    expect(step(page)).to_have_attribute("data-step", "choose_win")
    socket.quiet()
    drop_answers(page, f"/events/{table.event.pk}/keep")

    page.locator(".keep-form .choice").nth(1).click()
    page.get_by_role("button", name="Keep this card").click()
    again = page.get_by_role("button", name="Check again")
    expect(again).to_be_visible(timeout=WAIT)
    assert table.kept(player)[-1] == offered[1]

    again.click()
    expect(step(page)).to_have_attribute("data-step", "report", timeout=WAIT)
    expect(step(page).locator(".what")).to_have_text("Report game 2")
    expect(page.locator(".player-hand .card:not(.slot)")).to_have_count(2)
    assert page.script_errors == []
    context.close()


@pytest.mark.django_db(transaction=True)
def test_a_lost_answer_with_the_socket_alive_ends_on_the_saved_state(
    server: str, browser: Any
) -> None:
    """The push that follows the commit is not held back by the cards picked on the sent form."""
    table = make_table("switch", players=2, start=True)
    player = table.players[0]
    context = phone(browser, server, player)
    page = open_live(context, server, table)
    drop_answers(page, f"/events/{table.event.pk}/start")
    for slot in (1, 2, 3):
        page.locator(".start-form .choice").nth(slot).click()
    page.get_by_role("button", name="Confirm and reveal").click()
    expect(step(page)).to_have_attribute("data-step", "report", timeout=WAIT)
    expect(page.locator(".player-hand .card:not(.slot)")).to_have_count(3)
    assert page.script_errors == []
    context.close()


@pytest.mark.django_db(transaction=True)
def test_a_report_tapped_offline_is_sent_once_with_its_key_when_back_online(
    server: str, browser: Any
) -> None:
    table = make_table("league", players=2, start=True)
    player = table.players[0]
    table.choose_start(player)
    context = phone(browser, server, player)
    page = open_live(context, server, table)
    key = page.locator(".report-sheet input[name=idempotency_key]").input_value()
    posts: list[str] = []
    page.on(
        "request",
        lambda r: posts.append(r.post_data or "") if r.url.endswith("/report") else None,
    )

    context.set_offline(True)
    expect(page.locator(".conn")).to_have_attribute("data-state", "offline", timeout=WAIT)
    expect(page.locator(".offline-note")).to_be_visible()
    # The note names the state in the dot's own words.
    expect(page.locator(".offline-note [data-connection-words]")).to_have_text("Offline")
    page.get_by_role("button", name="I lost").click()
    page.fill("#opponent", "Rita Rival")
    page.locator("dialog.report-sheet button[type=submit]").click()
    expect(step(page)).to_contain_text(
        "Game 1: I lost — will be sent when you're back online.", timeout=WAIT
    )
    page.screenshot(path=str(ARTIFACTS / "phone-offline-tap-kept.png"))
    assert not GameResult.objects.filter(registration=table.registration(player)).exists()

    context.set_offline(False)
    expect(step(page)).to_have_attribute("data-step", "report", timeout=WAIT)
    expect(step(page).locator(".what")).to_have_text("Report game 2", timeout=WAIT)
    expect(page.locator(".player-hand .card:not(.slot)")).to_have_count(2)
    results = GameResult.objects.filter(registration=table.registration(player))
    assert [(r.game, r.outcome, r.opponent) for r in results] == [(1, "loss", "Rita Rival")]
    assert len(posts) == 1 and f"idempotency_key={key}" in posts[0], posts
    submitted = AuditEntry.objects.filter(event=table.event, action="result_submitted")
    assert submitted.count() == 1
    assert page.script_errors == []
    context.close()


@pytest.mark.django_db(transaction=True)
def test_a_confirmation_lost_as_the_phone_went_offline_is_replayed_with_the_same_key(
    server: str, browser: Any
) -> None:
    """The server saved it, the phone never heard: the replay repeats the key, nothing doubles."""
    table = make_table("league", players=2, start=True)
    player = table.players[0]
    context = phone(browser, server, player)
    socket = QuietSocket(context)
    page = open_live(context, server, table)
    socket.quiet()  # the push after the commit is lost with the answer
    keys: list[str] = []

    def lose_and_go_offline(route: Any) -> None:
        keys.append(re.findall(r"idempotency_key=(\w+)", route.request.post_data or "")[0])
        if len(keys) == 1:
            route.fetch()
            context.set_offline(True)
            route.abort("internetdisconnected")
        else:
            route.continue_()

    page.route(re.compile(r"/start$"), lose_and_go_offline)
    page.locator(".start-form .choice").nth(1).click()
    page.get_by_role("button", name="Confirm and reveal").click()
    expect(step(page)).to_contain_text(
        "Your starting cards (1 chosen) — will be sent when you're back online.", timeout=WAIT
    )
    assert len(table.kept(player)) == 1  # saved, though the phone does not know it
    socket.speak()
    context.set_offline(False)
    expect(step(page)).to_have_attribute("data-step", "report", timeout=WAIT)
    assert len(keys) == 2 and keys[0] == keys[1]
    assert len(table.kept(player)) == 1
    assert page.locator("[data-refusal]").count() == 0
    assert page.script_errors == []
    context.close()


def open_watched(context: Any, server: str, table: Table) -> Any:
    """`open_live`, recording every console error and every Content-Security-Policy violation
    (`page.console_errors`, and the page's own `window.__violations`) from the first byte on."""
    context.add_init_script(
        "window.__violations = [];"
        "document.addEventListener('securitypolicyviolation', (e) => window.__violations.push("
        "[e.violatedDirective, e.sourceFile, e.lineNumber, e.sample].join(' ')));"
    )
    console: list[str] = []

    def record(page: Any) -> None:
        page.on("console", lambda m: console.append(m.text) if m.type == "error" else None)

    context.on("page", record)
    page = open_live(context, server, table)
    page.console_errors = console
    return page


def violations(page: Any) -> list[str]:
    return list(page.evaluate("window.__violations")) + list(page.console_errors)


@pytest.mark.django_db(transaction=True)
def test_no_content_security_policy_violation_through_a_report_and_an_offline_replay(
    server: str, browser: Any
) -> None:
    """Starting cards revealed and faded, a win reported and its card kept, then a result
    tapped offline and replayed: nothing the page does breaks its strict CSP (no inline style)."""
    table = make_table("league", players=2, start=True)
    player = table.players[0]
    context = phone(browser, server, player)
    page = open_watched(context, server, table)

    page.locator(".start-form .choice").nth(0).click()
    page.get_by_role("button", name="Confirm and reveal").click()
    expect(step(page)).to_have_attribute("data-step", "report", timeout=WAIT)
    expect(page.locator(".not-kept")).to_have_count(0, timeout=WAIT)  # the fade ran out
    page.get_by_role("button", name="I won").click()
    page.locator("dialog.report-sheet button[type=submit]").click()
    expect(step(page)).to_have_attribute("data-step", "choose_win", timeout=WAIT)
    page.locator(".keep-form .choice").nth(0).click()
    page.get_by_role("button", name="Keep this card").click()
    expect(step(page).locator(".what")).to_have_text("Report game 2", timeout=WAIT)
    assert violations(page) == []

    context.set_offline(True)
    expect(page.locator(".conn")).to_have_attribute("data-state", "offline", timeout=WAIT)
    page.get_by_role("button", name="I lost").click()
    page.locator("dialog.report-sheet button[type=submit]").click()
    expect(step(page)).to_contain_text("Game 2: I lost — will be sent", timeout=WAIT)
    context.set_offline(False)
    expect(step(page).locator(".what")).to_have_text("Report game 3", timeout=WAIT)
    page.locator(".games .game").nth(1).click()
    expect(page.locator("#game-details")).to_have_text("Game 2: lost.")
    assert violations(page) == []
    assert page.script_errors == []
    context.close()


@pytest.mark.django_db(transaction=True)
def test_a_keep_tapped_offline_for_an_earlier_offer_is_refused_when_replayed(
    server: str, browser: Any
) -> None:
    """Game 1's two cards are on screen; the tap to keep the left one is kept offline; House
    settles game 1 and game 2 deals two other cards. The replay keeps nothing and says why."""
    table = make_table("league", players=2, start=True)
    player = table.players[0]
    table.choose_start(player)
    first = table.win(player, 1)
    context = phone(browser, server, player)
    page = open_watched(context, server, table)
    expect(step(page)).to_have_attribute("data-step", "choose_win")

    context.set_offline(True)
    expect(page.locator(".conn")).to_have_attribute("data-state", "offline", timeout=WAIT)
    left = page.locator(".keep-form .choice").nth(0)
    name = left.locator(".card").get_attribute("aria-label")
    left.click()
    page.get_by_role("button", name="Keep this card").click()
    expect(step(page)).to_contain_text(
        f"Game 1: keep the {name} — will be sent when you're back online.", timeout=WAIT
    )

    services.win_choice_confirm(
        registration_id=table.rid(player), by=table.house, slot=1, reason="Player stepped out"
    )
    second = table.win(player, 2)
    context.set_offline(False)

    refusal = step(page).locator("[data-refusal]")
    expect(refusal).to_contain_text(
        "That choice was for an earlier offer: look at your cards again.", timeout=WAIT
    )
    expect(step(page).locator(".what")).to_have_text("You won game 2: keep one card")
    expect(page.locator(".keep-form .choice .card")).to_have_count(2)
    assert table.kept(player)[-1] == first[1]  # House's choice for game 1, and nothing more
    assert len(table.kept(player)) == 2
    pending = Offer.objects.pending().get(registration=table.registration(player))
    assert sorted(pending.cards.values_list("card", flat=True)) == sorted(second)
    assert AuditEntry.objects.filter(event=table.event, action="win_choice_confirmed").count() == 1
    assert violations(page) == []
    assert page.script_errors == []
    context.close()
