"""A player with season results deletes their account from their phone: the page says it is
done (no error page), they are signed out, and the season's page names them neutrally."""

from __future__ import annotations

from typing import Any

from playwright.sync_api import expect

from accounts.models import User
from tests.browser.conftest import ARTIFACTS
from tests.browser.test_event_flow import PHONE, WAIT, sign_in
from tests.seasons.support import make_league


def test_a_player_with_season_results_deletes_their_account_from_the_phone(
    server: str, browser: Any
) -> None:
    league = make_league(players=3)
    ann = league.players[0]
    league.open_season()
    league.night(0, league.players, seed=6)
    season_id = league.season.pk
    page = browser.new_page(viewport=PHONE)
    try:
        sign_in(page, server, ann.email)
        page.goto(f"{server}/settings/")
        form = page.locator("#delete-account")
        form.locator("input[name=confirm]").fill("delete")
        form.locator("button[type=submit]").click()
        expect(page.get_by_text("Your account is deleted.")).to_be_visible(timeout=WAIT)
        page.screenshot(path=str(ARTIFACTS / "account-deleted.png"), full_page=True)
        assert not User.objects.filter(pk=ann.pk).exists()

        page.goto(f"{server}/seasons/{season_id}/")
        table = page.locator("table")
        expect(table.get_by_text("Former player ")).to_be_visible(timeout=WAIT)
        expect(table.get_by_text(ann.display_name, exact=True)).to_have_count(0)
        page.screenshot(path=str(ARTIFACTS / "season-former-player.png"), full_page=True)
        page.goto(f"{server}/settings/")
        expect(page).to_have_url(f"{server}/accounts/login/?next=/settings/", timeout=WAIT)
    finally:
        page.close()
