"""A whole League event as people live it: a phone, House's laptop and the projector board."""

from __future__ import annotations

import datetime
import json
import re
from pathlib import Path
from typing import Any

import pytest
from playwright.sync_api import expect

from audit.verify import verify
from events import services
from events.models import Event, Registration
from tests.browser.conftest import ARTIFACTS, ROOT
from tests.factories import Table, make_user

PASSWORD = "correct horse battery staple"
PHONE = {"width": 390, "height": 844}
# ms: live updates cross daphne, Redis and the page; generous, as `make test` runs beside other work
WAIT = 60_000
LAPTOP = {"width": 1366, "height": 900}


def shot(page: Any, name: str) -> None:
    page.screenshot(path=str(ARTIFACTS / f"{name}.png"), full_page=True)


def sign_in(page: Any, base: str, email: str) -> None:
    page.goto(f"{base}/accounts/login/")
    page.fill("input[name=login]", email)
    page.fill("input[name=password]", PASSWORD)
    page.click("form button[type=submit]")
    page.wait_for_url(re.compile(r".*/$"))


def emailed_code(address: str) -> str:
    """The verification code in the last email to `address` that daphne's console mailer printed."""
    log = (ROOT / "artifacts" / "daphne.log").read_text(errors="replace")
    sent = log[log.rindex(f"To: {address}") :]
    found = re.search(r"^\s*([A-Z0-9]{4}-[A-Z0-9]{4})\s*$", sent, re.MULTILINE)
    assert found is not None, sent[:2000]
    return found[1]


def confirm(page: Any) -> None:
    """House's "Are you sure?" dialog: confirm it."""
    dialog = page.locator("dialog[open]")
    expect(dialog).to_be_visible()
    dialog.locator("button.primary").click()
    expect(dialog).to_have_count(0, timeout=WAIT)


def next_step(page: Any) -> str:
    return str(page.locator(".next-step .what").inner_text())


@pytest.mark.django_db(transaction=True)
def test_a_league_event_from_sign_up_to_the_audit(
    server: str, browser: Any, settings: Any, tmp_path: Path
) -> None:
    # Playwright keeps an event loop on this thread: the test's own changes reach daphne's
    # sockets through the background publisher and Redis.
    settings.LIVE_UPDATES = "background"
    house = make_user("Hattie House", staff=True)
    event_id = services.event_create(
        by=house,
        name="Friday League",
        venue="Syndicate Taproom",
        date=datetime.date(2026, 12, 4),
        format="league",
        contribution=10,
        remainder_policy="An indivisible High remainder rolls into next week's pool.",
    ).event_id
    services.registration_open(event_id=event_id, by=house)
    rival = make_user("Rita Rival")
    services.player_register(event_id=event_id, by=rival)

    phone = browser.new_context(viewport=PHONE, device_scale_factor=2, is_mobile=True)
    laptop = browser.new_context(viewport=LAPTOP)
    projector = browser.new_context(viewport={"width": 1600, "height": 900})
    player = phone.new_page()
    desk = laptop.new_page()
    board = projector.new_page()

    # The player signs up on their phone and registers.
    player.goto(f"{server}/accounts/signup/")
    player.fill("input[name=email]", "pat@example.com")
    player.fill("input[name=display_name]", "Pat Phone")
    player.fill("input[name=password1]", PASSWORD)
    player.fill("input[name=password2]", PASSWORD)
    shot(player, "01-sign-up")
    player.click("form button[type=submit]")
    # Sign-up confirms the address with a code sent by email (the console mailer, in the log).
    player.fill("input[name=code]", emailed_code("pat@example.com"))
    player.click("form button[type=submit]")
    player.goto(f"{server}/events/{event_id}/")
    assert "Prize contribution" in player.content()
    shot(player, "02-register")
    player.click("text=Register")
    assert next_step(player) == "Check in with House before playing."

    # The board is open on the projector from the start; it is never reloaded.
    board.goto(f"{server}/board/{event_id}/")
    board.evaluate("window.__neverReloaded = true")

    # House checks both players in from the laptop and starts the event.
    sign_in(desk, server, house.email)
    desk.goto(f"{server}/house/events/{event_id}/")
    shot(desk, "03-house-check-in")
    for label in ("Pat Phone", "Rita Rival"):
        check_in = desk.locator(f"form:has(button:has-text('Check in {label}'))")
        check_in.first.locator("button").click()
        expect(check_in).to_have_count(0, timeout=WAIT)  # the answer replaced the entry
    desk.click("form[action$='/start'] button[type=submit]")
    confirm(desk)
    shot(desk, "04-house-started")

    # The phone follows without a reload: the starting selection appears.
    expect(player.locator(".next-step .what")).to_contain_text("Choose 1 of 3", timeout=WAIT)
    shot(player, "05-starting-offer")
    player.locator(".start-form .choice").nth(1).click()
    assert player.locator(".counter").inner_text() == "1 of 1 chosen"
    player.click("text=Confirm and reveal")
    player.wait_for_selector(".reveal .not-kept")
    shot(player, "06-revealed")

    # Every game: losses deal a card, wins offer two face-up cards to choose from.
    for game, outcome in enumerate("wlwllw", start=1):
        expect(player.locator(".next-step .what")).to_have_text(f"Report game {game}")
        player.click("text=I won" if outcome == "w" else "text=I lost")
        player.fill("#opponent", "Rita Rival")
        player.click("dialog button[type=submit]")
        if outcome == "w":
            player.wait_for_selector(".keep-form")
            if game == 1:
                shot(player, "07-win-choice")
            player.locator(".keep-form .choice").first.click()
            player.click("text=Keep this card")
        expect(player.locator(".player-hand .card:not(.slot)")).to_have_count(game + 1)
    # The rival plays out through the services; their cards reach the board live.
    table = Table(event=Event.objects.get(pk=event_id), house=house, players=[rival])
    table.play_out(rival, "lwlwlw")

    expect(player.locator(".next-step .what")).to_contain_text("All done", timeout=WAIT)
    assert "is wild for your High hand" in player.content()
    shot(player, "08-wild-revealed")

    expect(board.locator(".board-grid section:first-child .board-row")).to_have_count(
        2, timeout=WAIT
    )
    assert board.evaluate("window.__neverReloaded") is True
    assert "Pat Phone" in board.content() and "Rita Rival" in board.content()
    assert "pat@example.com" not in board.content()
    shot(board, "09-board")

    # House confirms the pool, finalizes and downloads the audit.
    desk.reload()
    desk.click("text=Confirm the pool")
    # The confirmation reloads the dashboard: act on the new page, once its socket is live.
    expect(desk.locator("body")).to_contain_text("Pool confirmed", timeout=WAIT)
    finalize = desk.locator("form[action$='/finalize'] button[type=submit]")
    expect(finalize).to_be_enabled(timeout=WAIT)
    finalize.click()
    confirm(desk)
    expect(desk.locator("body")).to_contain_text("Finalized", timeout=WAIT)
    shot(desk, "10-finalized")
    assert Event.objects.get(pk=event_id).phase == "finalized"
    with desk.expect_download() as download:
        desk.click("text=Download JSON")
    path = tmp_path / "audit.json"
    download.value.save_as(path)
    verdict = verify(json.loads(path.read_text()))
    assert verdict.ok, verdict

    awarded = sum(r.award or 0 for r in Registration.objects.filter(event_id=event_id))
    assert awarded + (Event.objects.get(pk=event_id).unallocated or 0) == 20
    player.reload()
    assert "(final)" in player.content()
    shot(player, "11-final")
