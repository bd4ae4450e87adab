"""House's actions answer with the live part, while the socket pushes the same changes: whichever
comes last, the page never shows two versions at once (docs/decisions.md, "Live updates")."""

from __future__ import annotations

import re
from typing import Any

from playwright.sync_api import expect

from events.models import Event
from tests.browser.test_event_flow import WAIT, sign_in
from tests.factories import make_table


class SlowSocket:
    """The page's socket, proxied to the real server; while held, the server's frames wait
    (a busy publisher), then go on in order."""

    def __init__(self, context: Any) -> None:
        self.frames: list[str | bytes] = []
        self.page_side: Any = None
        self.holding = False
        context.route_web_socket(re.compile(r"/ws/"), self._route)

    def _route(self, ws: Any) -> None:
        self.page_side = ws
        ws.connect_to_server().on_message(self._from_server)

    def _from_server(self, message: str | bytes) -> None:
        if self.holding:
            self.frames.append(message)
        else:
            self.page_side.send(message)

    def hold(self) -> None:
        self.holding = True

    def release(self) -> None:
        self.holding = False
        frames, self.frames = self.frames, []
        for message in frames:
            self.page_side.send(message)


# After every answer and every pushed frame the page takes: the paid count in the header, and the
# paid flags in the table.
RECORD = """() => {
  window.seen = [];
  const look = (why) => {
    const header = document.querySelector("#registration .collected");
    const paid = header && header.textContent.match(/\\((\\d+) paid\\)/);
    const rows = document.querySelectorAll("#player-table .paid-toggle button.paid").length;
    window.seen.push([why, paid ? Number(paid[1]) : null, rows]);
  };
  document.addEventListener("live:swapped", () => look("frame"));
  document.addEventListener("htmx:afterSwap", () => look("answer"));
  look("page");
}"""


def test_the_collected_total_agrees_with_the_table_after_quick_paid_toggles(
    server: str, browser: Any
) -> None:
    table = make_table(players=6)
    context = browser.new_context()
    socket = SlowSocket(context)
    page = context.new_page()
    sign_in(page, server, table.house.email)
    page.goto(f"{server}/house/events/{table.event.pk}/")
    expect(page.locator(".conn")).to_have_attribute("data-state", "live", timeout=WAIT)
    header = page.locator("#registration .collected")
    expect(header).to_contain_text("(0 paid)")
    page.evaluate(RECORD)

    # Six toggles in quick succession, each answered before the publisher's frames arrive.
    socket.hold()
    for player in table.players:
        page.locator(f"#house-row-{table.rid(player)} button.chip.unpaid").click()
    paid = page.locator("#player-table .paid-toggle button.paid")
    expect(paid).to_have_count(6, timeout=WAIT)
    expect(page.locator("#house-messages .message").last).to_contain_text("collected", timeout=WAIT)
    socket.release()

    version = Event.objects.get(pk=table.event.pk).version
    page.wait_for_function(
        "v => window.syndicateLive.versions.house >= v", arg=version, timeout=WAIT
    )
    expect(header).to_have_text("Collected: $60 (6 paid)", timeout=WAIT)
    expect(paid).to_have_count(6)
    seen = page.evaluate("window.seen")
    disagree = [entry for entry in seen if entry[1] != entry[2]]
    assert not disagree, f"header and table disagreed: {disagree} (all: {seen})"
