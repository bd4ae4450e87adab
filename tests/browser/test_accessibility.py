"""axe finds no violation on any page: the player's, the board's, House's (the standby panel in
every state), a display link's (revoked and unknown too), the error page and the accounts', in
the states people meet them in, in the light and the dark theme where colours differ."""

from __future__ import annotations

import json
from datetime import UTC, datetime
from typing import Any

import pytest
from axe_playwright_python.sync_playwright import Axe
from django.core.cache import cache
from django.utils import timezone
from playwright.sync_api import expect

from events import services
from events.models import Event
from staff.scopes import Scope
from standby import snapshots, state
from standby.state import Copy
from tests.browser.test_event_flow import PHONE, WAIT, sign_in
from tests.factories import Table, make_table
from tests.standby.support import forget_everything

TABLET = {"width": 820, "height": 1180}
AXE = Axe()


class Audit:
    """Runs axe on each page visited and keeps every violation, so one run names them all."""

    def __init__(self) -> None:
        self.found: list[str] = []
        self.pages: list[str] = []

    def check(self, page: Any, name: str, context: dict[str, Any] | None = None) -> None:
        page.wait_for_load_state("load")
        results = AXE.run(page, context=context)
        self.pages.append(name)
        for violation in results.response["violations"]:
            targets = [node["target"] for node in violation["nodes"]]
            self.found.append(
                f"{name}: {violation['id']} ({violation['impact']}): {violation['help']}"
                f" at {targets}"
            )

    def assert_clean(self) -> None:
        assert not self.found, "axe violations:\n" + "\n".join(self.found)


def live(page: Any) -> None:
    """The page's socket is live (its words and colours settled)."""
    expect(page.locator(".conn").first).to_have_attribute("data-state", "live", timeout=WAIT)


def finish(table: Table) -> None:
    """Every player plays every game; the pool is confirmed and the event finalized."""
    for player in table.players:
        table.play_out(player)
    services.pool_confirm(event_id=table.event.pk, by=table.house)
    services.event_finalize(event_id=table.event.pk, by=table.house)


@pytest.mark.django_db(transaction=True)
def test_the_accounts_board_and_api_pages_have_no_axe_violation(server: str, browser: Any) -> None:
    table = make_table(players=2, start=True)
    audit = Audit()
    for scheme in ("light", "dark"):
        context = browser.new_context(viewport=PHONE, color_scheme=scheme)
        page = context.new_page()
        page.goto(f"{server}/accounts/login/")
        audit.check(page, f"sign-in ({scheme})")
        page.goto(f"{server}/accounts/signup/")
        audit.check(page, f"sign-up ({scheme})")
        page.goto(f"{server}/rules/")
        audit.check(page, f"rules ({scheme})")
        context.close()
        context = browser.new_context(viewport={"width": 1920, "height": 1080}, color_scheme=scheme)
        page = context.new_page()
        page.goto(f"{server}/board/{table.event.pk}/")
        live(page)
        audit.check(page, f"board ({scheme})")
        page.goto(f"{server}/board/{table.event.pk}/?kiosk=1")
        live(page)
        audit.check(page, f"kiosk board ({scheme})")
        context.close()
    context = browser.new_context()
    page = context.new_page()
    page.goto(f"{server}/api/docs/")
    expect(page.locator(".swagger-ui .info")).to_be_visible(timeout=WAIT)
    # The page is ours; the Swagger UI viewer inside it is not (its own markup nests controls and
    # colours its method badges below 4.5:1), so axe checks the page around it.
    audit.check(page, "API docs", {"exclude": [["#swagger-ui > .swagger-ui"]]})
    context.close()
    audit.assert_clean()


@pytest.mark.django_db(transaction=True)
def test_the_players_pages_have_no_axe_violation_from_the_start_to_the_final(
    server: str, browser: Any
) -> None:
    table = make_table(players=2, start=True)
    player = table.players[0]
    audit = Audit()
    contexts = {
        scheme: browser.new_context(viewport=PHONE, color_scheme=scheme)
        for scheme in ("light", "dark")
    }
    pages = {scheme: context.new_page() for scheme, context in contexts.items()}
    for page in pages.values():
        sign_in(page, server, player.email)

    def visit(name: str) -> None:
        for scheme, page in pages.items():
            page.goto(f"{server}/events/{table.event.pk}/")
            live(page)
            audit.check(page, f"player page, {name} ({scheme})")

    visit("starting selection")
    table.choose_start(player)
    table.win(player, 1)
    visit("a win choice")
    table.choose_win(player)
    table.play_out(player)
    visit("complete with its wild")
    for scheme, page in pages.items():
        page.goto(f"{server}/")
        audit.check(page, f"my events ({scheme})")
        page.goto(f"{server}/settings/")
        audit.check(page, f"settings ({scheme})")
    finish(table)
    visit("finalized")
    for scheme, page in pages.items():
        page.goto(f"{server}/board/{table.event.pk}/final/")
        audit.check(page, f"final board ({scheme})")
    for context in contexts.values():
        context.close()
    audit.assert_clean()


@pytest.mark.django_db(transaction=True)
def test_the_house_pages_have_no_axe_violation_before_during_and_after_play(
    server: str, browser: Any
) -> None:
    table = make_table(players=3, start=True)
    waiting = make_table(players=2)  # open, not started
    waiting.event.staff.create(user=table.house)
    Event.objects.filter(pk=waiting.event.pk).update(date=timezone.now().date())
    table.choose_start(table.players[0])
    table.win(table.players[0], 1)  # a pending win choice
    table.play_out(table.players[1])  # complete, with a wild
    services.review_open(
        registration_id=table.rid(table.players[2]), by=table.house, reason="Check the score"
    )
    audit = Audit()
    contexts = {
        scheme: browser.new_context(viewport=TABLET, color_scheme=scheme)
        for scheme in ("light", "dark")
    }
    pages = {scheme: context.new_page() for scheme, context in contexts.items()}
    for page in pages.values():
        sign_in(page, server, table.house.email)

    def visit(path: str, name: str, *, socket: bool = False) -> None:
        for scheme, page in pages.items():
            page.goto(f"{server}{path}")
            if socket:
                live(page)
            audit.check(page, f"{name} ({scheme})")

    visit(f"/house/events/{waiting.event.pk}/", "House dashboard before the start", socket=True)
    visit(f"/house/events/{table.event.pk}/", "House dashboard in play", socket=True)
    visit("/house/tonight", "Tonight")
    visit("/house/", "House's events")
    visit(f"/house/events/{table.event.pk}/edit", "event settings")
    services.review_resolve(
        review_id=table.registration(table.players[2]).reviews.get().pk,
        by=table.house,
        reason="Score checked",
    )
    table.choose_win(table.players[0])
    finish(table)
    visit(f"/house/events/{table.event.pk}/", "House dashboard finalized", socket=True)
    visit(f"/house/events/{table.event.pk}/sheet", "results sheet")
    for context in contexts.values():
        context.close()
    audit.assert_clean()


def _copy(name: str, copy_state: state.State, *, behind: float | None = None) -> Copy:
    return Copy(
        name=name,
        where="/media/usb/night" if name == "folder" else "192.168.1.31",
        state=copy_state,
        synchronous=copy_state == "in_step",
        seconds_behind=behind,
        reason="The folder is gone." if copy_state == "lost" else "",
        reported_at=datetime.now(UTC),
    )


def _snapshot(problem: str = "") -> None:
    taken = {
        "event_name": "Thursday League",
        "time_zone": "UTC",
        "step": "started",
        "taken_at": datetime.now(UTC).isoformat(),
        "file": "" if problem else "thursday-league-started.dump",
        "problem": problem,
        "folder": snapshots._standby_folder(),  # this run's folder: House shows only its own
    }
    cache.set(snapshots.LAST_KEY, json.dumps(taken), state.EXPIRES)


# Every state the standby panel shows (house/copies.py): the copies their keepers report, and the
# last snapshot (None: none; "": taken; else why it failed).
PANEL_STATES: dict[str, tuple[list[tuple[str, state.State]], str | None]] = {
    "no copy at all": ([], None),
    "a copy starting": ([("folder", "starting")], None),
    "a copy in step": ([("folder", "in_step")], None),
    "a copy behind": ([("laptop", "behind")], None),
    "a copy lost": ([("folder", "lost")], None),
    "one copy lost, one in step": ([("folder", "lost"), ("laptop", "in_step")], None),
    "a snapshot taken": ([], ""),
    "a snapshot that failed, its copy lost": ([("folder", "lost")], "the folder is gone"),
}


def _show(copies: list[tuple[str, state.State]], snapshot: str | None) -> None:
    forget_everything()
    for name, copy_state in copies:
        state.report(_copy(name, copy_state, behind=4.2 if copy_state == "behind" else None))
    if snapshot is not None:
        _snapshot(snapshot)


@pytest.mark.django_db(transaction=True)
def test_the_standby_panel_has_no_axe_violation_in_any_state(server: str, browser: Any) -> None:
    table = make_table(players=2, start=True)
    audit = Audit()
    contexts = {
        scheme: browser.new_context(viewport=TABLET, color_scheme=scheme)
        for scheme in ("light", "dark")
    }
    pages = {scheme: context.new_page() for scheme, context in contexts.items()}
    for page in pages.values():
        sign_in(page, server, table.house.email)
    try:
        for name, (copies, snapshot) in PANEL_STATES.items():
            for path in (f"/house/events/{table.event.pk}/", "/house/tonight"):
                for scheme, page in pages.items():
                    _show(copies, snapshot)  # for each page: a silent copy reads as lost
                    page.goto(f"{server}{path}")
                    panel = page.locator("#standby-panel")
                    if name != "no copy at all" or path != "/house/tonight":
                        expect(panel).not_to_be_empty()
                    audit.check(page, f"standby panel, {name}, {path} ({scheme})")
    finally:
        forget_everything()
        for context in contexts.values():
            context.close()
    audit.assert_clean()


@pytest.mark.django_db(transaction=True)
def test_a_display_links_pages_and_the_error_page_have_no_axe_violation(
    server: str, browser: Any
) -> None:
    table = make_table(players=2, start=True)
    made = services.display_link_create(scope=Scope.of(table.event), by=table.house, label="Bar")
    audit = Audit()
    for scheme in ("light", "dark"):
        context = browser.new_context(viewport={"width": 1920, "height": 1080}, color_scheme=scheme)
        page = context.new_page()
        page.goto(f"{server}/no-such-page/")
        expect(page.get_by_role("heading", level=1)).to_have_text("Page not found")
        audit.check(page, f"the site's error page ({scheme})")
        page.goto(f"{server}/display/unknown-link-token/")
        expect(page.get_by_role("heading", level=1)).to_be_visible()
        audit.check(page, f"unknown display link ({scheme})")
        page.goto(f"{server}{made.path}")
        live(page)
        audit.check(page, f"display link's board ({scheme})")
        context.close()
    services.display_link_revoke(scope=Scope.of(table.event), by=table.house, link_id=made.link_id)
    for scheme in ("light", "dark"):
        context = browser.new_context(viewport={"width": 1920, "height": 1080}, color_scheme=scheme)
        page = context.new_page()
        page.goto(f"{server}{made.path}")
        expect(page.get_by_role("heading", level=1)).to_contain_text("revoked")
        audit.check(page, f"revoked display link ({scheme})")
        context.close()
    audit.assert_clean()
