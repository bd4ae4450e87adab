"""The printed results and payout sheet: one page, Letter or A4, for up to 12 players."""

from __future__ import annotations

import re
from typing import Any

from tests.browser.test_event_flow import sign_in
from tests.events.support import finalized_table


def pages(pdf: bytes) -> int:
    """How many pages a PDF has (its page objects; Chromium writes them uncompressed)."""
    return len(re.findall(rb"/Type\s*/Page(?![s\w])", pdf))


def test_the_sheet_of_twelve_players_prints_on_one_letter_and_one_a4_page(
    server: str, browser: Any
) -> None:
    table = finalized_table("league", players=12)
    context = browser.new_context()
    page = context.new_page()
    sign_in(page, server, table.house.email)
    page.goto(f"{server}/house/events/{table.event.pk}/sheet")
    page.emulate_media(media="print")
    # Each card prints with its face and each hand with its name, as on the final page.
    first = page.locator(".sheet-standings tbody tr").first
    assert re.search(r"(10|[2-9JQKA])[♠♥♦♣]", first.inner_text()), first.inner_text()
    assert page.locator(".sheet-standings .hand-name").count() == 24
    # No caption of a signature line wraps.
    wrapped = page.evaluate(
        """() => Array.from(document.querySelectorAll(".signature .caption"))
             .filter((c) => c.scrollWidth > c.clientWidth
                            || c.getClientRects().length > 1
                            || c.getBoundingClientRect().height
                               > 1.6 * parseFloat(getComputedStyle(c).fontSize))
             .map((c) => c.textContent)"""
    )
    assert wrapped == []
    for paper in ("Letter", "A4"):
        pdf = page.pdf(format=paper, print_background=False)
        assert pages(pdf) == 1, (paper, pages(pdf))
    context.close()
