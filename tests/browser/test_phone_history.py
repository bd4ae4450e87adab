"""A player's history on a 390 px phone: every event's hand as cards, and its High and Low places,
award and points in view, named, without sliding the page sideways."""

from __future__ import annotations

from typing import Any

import pytest
from django.urls import reverse

from seasons.reads import public_id
from tests.browser.test_accessibility import Audit
from tests.browser.test_event_flow import PHONE, shot, sign_in
from tests.factories import make_user
from tests.seasons.support import make_league


@pytest.mark.django_db(transaction=True)
def test_a_players_history_fits_a_phone_with_cards_and_every_figure_in_view(
    server: str, browser: Any
) -> None:
    league = make_league(players=4)
    league.open_season()
    league.night(0, league.players, seed=41)
    league.night(1, league.players[::-1], seed=42)
    player = league.players[0]
    audit = Audit()
    for scheme in ("light", "dark"):
        context = browser.new_context(
            viewport=PHONE, device_scale_factor=2, is_mobile=True, color_scheme=scheme
        )
        page = context.new_page()
        sign_in(page, server, player.email)
        own = f"{server}{reverse('seasons:my_history')}"
        public = f"{server}{reverse('seasons:history', args=[public_id(player)])}"
        for name, address in (("own history", own), ("public history", public)):
            page.goto(address)
            assert page.evaluate("document.documentElement.scrollWidth") <= PHONE["width"]
            rows = page.locator("table.history tbody tr")
            assert rows.count() == 2
            for index in range(rows.count()):
                row = rows.nth(index)
                assert row.locator(".card").count() == 7  # a League hand, as cards
                for label in ("High", "Low", "Won", "Points"):
                    cell = row.locator(f'td[data-label="{label}"]')
                    assert cell.is_visible()
                    box = cell.bounding_box()
                    assert box is not None and box["x"] >= 0
                    assert box["x"] + box["width"] <= PHONE["width"], (name, label, box)
            shot(page, f"history-phone-{name.replace(' ', '-')}-{scheme}")
            audit.check(page, f"{name} on a phone ({scheme})")
        context.close()
    # Someone else's view of it fits as well, and so does the season's table it links from.
    context = browser.new_context(viewport=PHONE)
    page = context.new_page()
    sign_in(page, server, make_user("Nosy").email)
    for path in (
        reverse("seasons:history", args=[public_id(player)]),
        reverse("seasons:season", args=[league.season_id]),
    ):
        page.goto(f"{server}{path}")
        assert page.evaluate("document.documentElement.scrollWidth") <= PHONE["width"], path
    context.close()
    audit.assert_clean()
