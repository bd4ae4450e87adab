"""House's dashboard on a tablet: every player's actions in reach, every column in view, and the
toast out of the way."""

from __future__ import annotations

from datetime import timedelta
from typing import Any

from django.utils import timezone
from playwright.sync_api import expect

from events import services
from tests.browser.test_event_flow import WAIT, shot, sign_in
from tests.events.support import correct, finalized_table
from tests.factories import Table, make_table, make_user

TABLET = {"width": 820, "height": 1180}


def overlaps(a: dict[str, float], b: dict[str, float]) -> bool:
    return not (
        a["x"] + a["width"] <= b["x"]
        or b["x"] + b["width"] <= a["x"]
        or a["y"] + a["height"] <= b["y"]
        or b["y"] + b["height"] <= a["y"]
    )


def test_every_players_actions_are_reachable_on_a_tablet(server: str, browser: Any) -> None:
    table = make_table(players=10, start=True)
    for player in table.players[:4]:
        table.choose_start(player)
        table.report(player, 1, "loss")
    context = browser.new_context(viewport=TABLET)
    page = context.new_page()
    sign_in(page, server, table.house.email)
    page.goto(f"{server}/house/events/{table.event.pk}/")
    page.locator("#player-table").scroll_into_view_if_needed()
    shot(page, "house-tablet-players")
    controls = page.locator("#player-table td.actions :is(button, summary):visible")
    assert controls.count() >= 10
    for index in range(controls.count()):
        box = controls.nth(index).bounding_box()
        assert box is not None
        assert box["x"] >= 0 and box["x"] + box["width"] <= TABLET["width"], (index, box)
    assert page.evaluate("document.documentElement.scrollWidth") <= TABLET["width"]
    context.close()


def test_the_toast_covers_no_header_and_leaves(server: str, browser: Any) -> None:
    table = make_table(players=8)
    late = make_user("Lola Late")
    table.register(late)
    context = browser.new_context(viewport=TABLET)
    page = context.new_page()
    sign_in(page, server, table.house.email)
    page.goto(f"{server}/house/events/{table.event.pk}/")
    row = page.locator(f"#player-table tr:has-text('{late.display_name}')")
    page.evaluate("document.getElementById('player-table').scrollIntoView()")
    row.locator("button:has-text('Check in')").click()
    toast = page.locator("#house-messages .message")
    expect(toast).to_contain_text("checked in", timeout=WAIT)
    page.evaluate("document.getElementById('player-table').scrollIntoView()")
    shot(page, "house-tablet-toast")
    box = toast.bounding_box()
    assert box is not None and box["y"] + box["height"] <= TABLET["height"]
    for covered in ("#player-table thead", ".house-header", ".banner", "nav.jump"):
        for index in range(page.locator(covered).count()):
            other = page.locator(covered).nth(index).bounding_box()
            if other is not None:
                assert not overlaps(box, other), (covered, box, other)
    expect(toast).to_have_count(0, timeout=12_000)
    context.close()


# Per row of the players table: the cells whose box reaches into the actions cell's (the last),
# and the table's box beside its content's width; per header cell, whether its text is cut.
COLUMNS = """() => {
  const table = document.getElementById("player-table");
  const wrap = table.closest(".table-wrap");
  const covered = [];
  for (const row of table.querySelectorAll("tr")) {
    const cells = Array.from(row.children);
    const pinned = cells[cells.length - 1].getBoundingClientRect();
    for (const cell of cells.slice(0, -1)) {
      const box = cell.getBoundingClientRect();
      if (box.right > pinned.left + 0.5 && box.left < pinned.right - 0.5) {
        covered.push([row.id, cell.textContent.trim().slice(0, 40)]);
      }
    }
  }
  const clipped = Array.from(table.querySelectorAll("thead th"))
    .filter((th) => th.scrollWidth > th.clientWidth || th.scrollHeight > th.clientHeight)
    .map((th) => th.textContent.trim());
  const fits = wrap.scrollWidth <= wrap.clientWidth;
  return {covered, clipped, fits};
}"""


def check_columns(table: Table, server: str, browser: Any, name: str, headers: list[str]) -> None:
    context = browser.new_context(viewport=TABLET)
    page = context.new_page()
    sign_in(page, server, table.house.email)
    page.goto(f"{server}/house/events/{table.event.pk}/")
    expect(page.locator(".conn")).to_have_attribute("data-state", "live", timeout=WAIT)
    expect(page.locator("#player-table thead th")).to_have_text(headers)
    page.locator("#player-table").scroll_into_view_if_needed()
    shot(page, name)
    found = page.evaluate(COLUMNS)
    assert found["covered"] == [], found
    assert found["clipped"] == [], found
    assert found["fits"], found
    wrap = page.locator("#player-table").locator("xpath=..")
    expect(wrap).not_to_have_attribute("data-scrolls", "")
    # Narrower, it scrolls, with a shadow on the side that has more.
    page.set_viewport_size({"width": 560, "height": 1180})
    expect(wrap).to_have_attribute("data-scrolls", "")
    shadow = wrap.evaluate("(el) => getComputedStyle(el).backgroundImage")
    assert shadow.count("gradient") == 4, shadow
    context.close()


def test_every_column_is_in_view_on_a_tablet_while_players_play(server: str, browser: Any) -> None:
    table = make_table(players=6, start=True)
    for player in table.players[:4]:
        table.play_out(player)
    table.choose_start(table.players[4])
    table.win(table.players[4], 1)
    correct(table, table.players[0], 1, "win")
    headers = ["Player", "Status", "Games", "Kept", "Pending selection", "Review", "Wild"]
    check_columns(table, server, browser, "house-tablet-columns", [*headers, "Actions"])


def test_every_column_is_in_view_on_a_tablet_once_final(server: str, browser: Any) -> None:
    table = finalized_table("league", players=6)
    headers = ["Player", "Status", "Games", "Kept", "Pending selection", "Review", "Wild"]
    check_columns(table, server, browser, "house-tablet-final", [*headers, "Final", "Actions"])


def test_tonight_shows_every_column_and_names_on_a_tablet(server: str, browser: Any) -> None:
    table = make_table(players=3, start=True)
    names = ("Thursday Night League at the Anchor Bar", "Switch Sunday")
    for name in names:
        event_id = services.event_create(
            by=table.house, name=name, date=timezone.now().date(), format="league"
        ).event_id
        services.registration_open(event_id=event_id, by=table.house)
    later = services.event_create(
        by=table.house,
        name="Next Friday",
        date=timezone.now().date() + timedelta(days=1),
        format="league",
    ).event_id
    services.registration_open(event_id=later, by=table.house)
    context = browser.new_context(viewport=TABLET)
    page = context.new_page()
    sign_in(page, server, table.house.email)
    page.goto(f"{server}/house/tonight")
    shot(page, "house-tablet-tonight")
    rows = page.locator("#tonight-table tbody tr")
    expect(rows).to_have_count(3)  # in play (dated in the past), and the two dated today
    expect(page.locator("#tonight-table")).not_to_contain_text("Next Friday")
    expect(page.locator("#tonight-table thead")).to_contain_text("Not checked in")
    found = page.evaluate(
        """() => {
          const wrap = document.querySelector("#tonight-table").closest(".table-wrap");
          const lines = Array.from(document.querySelectorAll("#tonight-table tbody th strong"))
            .map((name) => Math.round(name.getBoundingClientRect().height
                                      / parseFloat(getComputedStyle(name).lineHeight)));
          const cut = Array.from(document.querySelectorAll("#tonight-table th, #tonight-table td"))
            .filter((cell) => cell.getBoundingClientRect().right > innerWidth
                              || cell.scrollWidth > cell.clientWidth)
            .map((cell) => cell.textContent.trim());
          return {fits: wrap.scrollWidth <= wrap.clientWidth, lines, cut};
        }"""
    )
    assert found["fits"] and found["cut"] == [], found
    assert max(found["lines"]) <= 2, found
    context.close()


def test_the_offline_note_names_the_state_in_the_dots_words(server: str, browser: Any) -> None:
    """Offline, House's dot and note say the same word, as the phone's do."""
    table = make_table(players=2, start=True)
    context = browser.new_context(viewport=TABLET)
    page = context.new_page()
    sign_in(page, server, table.house.email)
    page.goto(f"{server}/house/events/{table.event.pk}/")
    expect(page.locator(".conn")).to_have_attribute("data-state", "live", timeout=WAIT)
    context.set_offline(True)
    expect(page.locator(".conn")).to_have_attribute("data-state", "offline", timeout=WAIT)
    expect(page.locator(".offline-note")).to_be_visible()
    expect(page.locator(".offline-note [data-connection-words]")).to_have_text("Offline")
    context.set_offline(False)
    expect(page.locator(".conn")).to_have_attribute("data-state", "live", timeout=WAIT)
    context.close()
