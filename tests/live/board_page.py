"""A board page as static/js/live.js keeps it, from the frames its socket receives.

The page starts from a whole fragment ("html") and applies each targeted update the way live.js
does: every part replaces the element with its id (a new row waits for its list), every list in
"order" takes its rows in that order (rows no list names are dropped), then every row named in
"places" shows that place in its place cell. What the page shows can then be compared with the
board's fresh render. Like an API-like client, it also keeps the board's data: a snapshot's whole,
patched with each targeted update's (`live.data_patch`).
"""

from __future__ import annotations

import re
from dataclasses import dataclass, field
from typing import Any

from live import data_patch
from live.fragments import compact

# The pieces of the board's head (live.fragments.BOARD_HEAD), each one element with its id.
HEAD = re.compile(
    r'<(h1|p|progress)\b[^>]* id="(board-(?:title|facts|progress))"[^>]*>.*?</\1>', re.S
)
LIST = re.compile(r'<ol id="(board-(?:high|low))" class="board-list">(.*?)</ol>', re.S)
ROW = re.compile(r'<li class="board-row [^"]*" id="([^"]+)".*?</li>', re.S)
ROW_ID = re.compile(r'<li class="board-row [^"]*" id="([^"]+)"')
PLACE = re.compile(r"(<span data-place>)([^<]*)(</span>)")


class Unplaced(AssertionError):
    """A frame the page cannot apply: live.js would ask for the snapshots."""


@dataclass
class BoardPage:
    version: int | None = None
    head: dict[str, str] = field(default_factory=dict)
    lists: dict[str, list[str]] = field(default_factory=dict)
    rows: dict[str, str] = field(default_factory=dict)
    data: Any = None

    @classmethod
    def of(cls, html: str, version: int | None = None, data: Any = None) -> BoardPage:
        """The page as a whole fragment shows it (and its data, when known)."""
        page = cls(version, data=data)
        page.start(html)
        return page

    def start(self, html: str) -> None:
        self.head = {found.group(2): compact(found.group(0)) for found in HEAD.finditer(html)}
        self.lists, self.rows = {}, {}
        for list_id, body in LIST.findall(html):
            self.lists[list_id] = []
            for row in ROW.finditer(body):
                self.lists[list_id].append(row.group(1))
                self.rows[row.group(1)] = compact(row.group(0))

    def take(self, frame: dict[str, Any]) -> None:
        """Apply one board frame, as live.js does once it accepted the frame's version."""
        if isinstance(frame.get("html"), str):
            self.start(frame["html"])
            self.version = frame["version"]
            self.data = frame.get("data")
            return
        bases = frame.get("bases") or [frame["base"]]
        if self.version not in bases:
            raise Unplaced(f"holds {self.version}, the update builds on {bases}")
        loose: dict[str, str] = {}
        for id, html in (frame.get("parts") or {}).items():
            if id in self.head:
                self.head[id] = html
            elif id in self.rows:
                self.rows[id] = html
            else:
                loose[id] = html
        for list_id, ids in (frame.get("order") or {}).items():
            if list_id not in self.lists:
                raise Unplaced(f"no list {list_id}")
            ids = reorder(self.lists[list_id], ids)
            for id in ids:
                if id in loose:
                    self.rows[id] = loose.pop(id)
                elif id not in self.rows:
                    raise Unplaced(f"no row {id} for {list_id}")
            self.lists[list_id] = list(ids)
        listed = {id for ids in self.lists.values() for id in ids}
        self.rows = {id: html for id, html in self.rows.items() if id in listed}
        if loose:
            raise Unplaced(f"parts in no list: {sorted(loose)}")
        for id, place in (frame.get("places") or {}).items():
            html = self.rows.get(id, "")
            cells = list(PLACE.finditer(html))
            if len(cells) != 1:
                raise Unplaced(f"no place cell for {id}")
            self.rows[id] = html[: cells[0].start(2)] + place + html[cells[0].end(2) :]
        if self.data is not None:
            self.data = data_patch.patched(self.data, frame.get("data", {}))
        self.version = frame["version"]

    def places(self) -> dict[str, str]:
        """Each row's place as its place cell shows it."""
        return {id: PLACE.findall(html)[0][1] for id, html in self.rows.items()}

    def shown(self) -> tuple[dict[str, str], dict[str, list[str]], dict[str, str]]:
        return self.head, self.lists, self.rows


def reorder(ids: list[str], order: list[str] | dict[str, Any]) -> list[str]:
    """A list's new order from an update's `order`: the ids, or the moves from the base's order
    (live/targeting.py `reordered`), as live.js reads them."""
    if isinstance(order, list):
        return order
    out = {*order.get("gone", ()), *(id for id, _ in order.get("at", ()))}
    found = [id for id in ids if id not in out]
    for id, index in order.get("at", ()):
        if index > len(found):
            raise Unplaced(f"{id} at {index}: the page does not hold the base")
        found.insert(index, id)
    return found


def row_ids(html: str) -> list[str]:
    """The ids of the rows an HTML text holds."""
    return ROW_ID.findall(html)


def place_cells(html: str) -> list[str]:
    """What each place cell in an HTML text shows."""
    return [text for _, text, _ in PLACE.findall(html)]
