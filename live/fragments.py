"""The HTML a live page swaps in: rendered once per audience, for the first page and for pushes.

Each audience's live part is rendered from its read model (`events.snapshots.BoardView`, the
player's `PlayerState`, House's `house.selectors.Dashboard`), the same one the page's first
render uses. The board's and House's parts are also cut into pieces (`Cut`): elements with an id
(a board row, a House row, a section) that a pushed update replaces one by one, and the lists
whose order it keeps. Each piece carries a key, a digest of what it shows, so the publisher can
tell which pieces changed since the version a page holds (`live.targeting`) and render only
those: a row's key is a digest of the row's data, so an unchanged row is not even rendered. A
board row's place is not in its piece: it follows from the other rows, so the cut gives the
places apart (`Cut.places`) and an update carries the places that moved, not the rows.

A pushed fragment is rendered outside any request, so it carries no CSRF token: the page's
`hx-headers` (base.html) sends the token with every htmx request the fragment's forms make.
"""

from __future__ import annotations

import hashlib
import json
import re
from collections.abc import Callable, Mapping
from dataclasses import dataclass, field
from pathlib import Path
from typing import Any

from django.template import engines
from django.template.loader import get_template, render_to_string

from events.models import Event
from events.snapshots import BoardView, PlayerState
from house import selectors
from house.tools import tools
from web.errors import fresh_key


@dataclass(frozen=True, slots=True)
class Piece:
    """One element of a live part, found on the page by its id.

    `key` changes whenever what the element shows changes; `render` gives its HTML.
    """

    id: str
    key: str
    render: Callable[[], str]


@dataclass(frozen=True, slots=True)
class Cut:
    """An audience's live part as pieces a pushed update replaces by their ids.

    `layout` names the part's shape (which sections and lists it has): when it changes, a page
    takes the whole part instead. `lists` gives, per list element id, the ids of its pieces in
    order; `whole` renders the whole part, as the page's first render shows it.

    `places` gives, per piece id, the place the piece's place cell ([data-place]) shows. A place
    follows from the rows around it, so a piece neither renders it nor has it in its key: one
    change moves the places of many rows, and a pushed update carries those places, a few bytes
    each, instead of the rows. The whole part shows them as they are.
    """

    layout: str
    pieces: tuple[Piece, ...]
    lists: Mapping[str, tuple[str, ...]]
    whole: Callable[[], str]
    places: Mapping[str, str] = field(default_factory=dict)


def digest(value: Any) -> str:
    """A short digest of JSON-ready data (dates and datetimes as text)."""
    text = json.dumps(value, sort_keys=True, default=str, separators=(",", ":"))
    return hashlib.blake2b(text.encode(), digest_size=8).hexdigest()


# A form's fresh idempotency key differs at every render: it is not a change of what it shows.
_KEYS = re.compile(r'(name="idempotency_key" value="|data-key=")[0-9a-f]{32}"')


# A template's indentation: a browser shows a line break and the spaces after it as one space, so
# a pushed piece goes without them (pieces hold no <pre> nor <textarea>).
_INDENT = re.compile(r"\n\s+")


def compact(html: str) -> str:
    return _INDENT.sub("\n", html.strip())


def html_piece(id: str, html: str) -> Piece:
    """A piece whose key is its HTML (without its fresh idempotency keys)."""
    shown = compact(html)
    return Piece(id, digest(_KEYS.sub(r'\1"', shown)), lambda: shown)


def data_piece(id: str, data: Any, render: Callable[[], str]) -> Piece:
    """A piece whose key is the data it is rendered from: rendered only when asked."""
    return Piece(id, digest(data), lambda: compact(render()))


# The templates a live part is rendered from: each piece's own, and what they include.
LIVE_TEMPLATES = ("web/_*.html", "house/_*.html", "cards/*.html")


def compile_templates() -> None:
    """Load and compile every live template now (the loader keeps them), so the first update a
    process renders does not wait for them."""
    for folder in map(Path, engines["django"].dirs):
        for pattern in LIVE_TEMPLATES:
            for path in sorted(folder.glob(pattern)):
                get_template(str(path.relative_to(folder)))


def _renderer(template: str, context: dict[str, Any]) -> Callable[[], str]:
    return lambda: render_to_string(template, context)


# --- the board ------------------------------------------------------------------------------------


def board_html(event: Event, view: BoardView) -> str:
    """The board's rows, progress and head (`web/_board.html`)."""
    return render_to_string("web/_board.html", {"view": view, "event": event})


def board_place(place: int) -> str:
    """A board row's place as its place cell shows it (web/_board_row.html): players who tie
    share the place (two 2s, then 4)."""
    return str(place)


def board_cut(event: Event, view: BoardView) -> Cut:
    """The board as pieces: its head, and each row of the High and the Low list, without its
    place (the cut's `places`)."""
    pieces = [
        html_piece(
            "board-head",
            render_to_string("web/_board_head.html", {"board": view.data, "event": event}),
        )
    ]
    lists: dict[str, tuple[str, ...]] = {}
    places: dict[str, str] = {}
    for side, entries in (("high", view.high), ("low", view.low)):
        ids = []
        for entry in entries:
            suffix = "-low" if side == "low" else ""
            id = f"board-row-{entry.registration_id}{suffix}"
            ids.append(id)
            places[id] = board_place(entry.row["place"])
            shown = {k: v for k, v in entry.row.items() if k != "place"}
            context = {"entry": entry, "side": side, "place": ""}
            pieces.append(
                data_piece(
                    id,
                    [side, entry.registration_id, shown, entry.prize, entry.stands_for],
                    _renderer("web/_board_row.html", context),
                )
            )
        if ids:
            lists[f"board-{side}"] = tuple(ids)
    layout = f"board final={view.data['final']} high={bool(view.high)} low={bool(view.low)}"
    return Cut(layout, tuple(pieces), lists, lambda: board_html(event, view), places)


# --- a player -------------------------------------------------------------------------------------


def player_html(event: Event, me: PlayerState) -> str:
    """One player's own panel (`web/_player.html`), with fresh idempotency keys in its forms."""
    return render_to_string("web/_player.html", {"event": event, "me": me, "key": fresh_key()})


def places_of(me: PlayerState) -> dict[str, Any]:
    """A player's place line as the page renders it itself (see live.js, "places")."""
    return {
        "high": me.get("high_place"),
        "low": me.get("low_place"),
        "ranked": me.get("ranked"),
        "final": bool(me.get("final")),
    }


# --- House ----------------------------------------------------------------------------------------

CHECKLIST_SHOWN = 25  # checklist items shown before "more" (house/_finalize.html)

# House's sections that change with the event, each one piece, in page order (the check-in list
# and the players' table are cut further, one piece per player).
HOUSE_SECTIONS = (
    ("registration", "house/_registration.html"),
    ("house-tools", "house/_tools.html"),
    ("house-banner", "house/_banner.html"),
    ("checkin-note", "house/_checkin_note.html"),
    ("checkin-add", "house/_checkin_add.html"),
    ("start", "house/_start.html"),
    ("players-note", "house/_players_note.html"),
    ("reviews", "house/_reviews.html"),
    ("pool", "house/_pool.html"),
    ("finalize-status", "house/_finalize_status.html"),
    ("checklist-more-count", "house/_checklist_more.html"),
    ("finalize-form", "house/_finalize_form.html"),
)


# What each section is rendered from besides the event's own fields and the summary: the part of
# House's context (`house_context`) its template shows. A section's key is a digest of this, so a
# section whose data did not change is not rendered.
def _registration(c: dict[str, Any]) -> Any:
    event = c["event"]
    return [
        [event.audit_seq, event.audit_hash],
        c["finalized"],
        c["pool"],
        c["registration_switch"],
        c["counts"],
        c["pending_count"],
        c["paused_count"],
    ]


def _tools(c: dict[str, Any]) -> Any:
    shown = dict(c["tools"])
    shown["announcements"] = [[a.pk, a.sent_at, a.text] for a in shown["announcements"]]
    return shown


def _stock(c: dict[str, Any], *names: str) -> Any:
    stock = c["stock"]
    return None if stock is None else [stock[name] for name in names]


SECTION_DATA: dict[str, Callable[[dict[str, Any]], Any]] = {
    "registration": _registration,
    "house-tools": _tools,
    "house-banner": lambda c: c["pool"]["changed"],
    "checkin-note": lambda c: [
        _stock(c, "late_entry_open", "left", "round_two"),
        c["finalized"],
    ],
    "checkin-add": lambda c: c["finalized"],
    "start": lambda c: c["start"],
    "players-note": lambda c: _stock(c, "decks", "dealt", "cards", "placed", "supported_places"),
    "reviews": lambda c: [c["reviews"], c["finalized"]],
    "pool": lambda c: [c["pool"], c["started"], c["finalized"]],
    "finalize-status": lambda c: len(c["checklist"]),
    "checklist-more-count": lambda c: len(c["checklist"]),
    "finalize-form": lambda c: bool(c["checklist"]),
}

# Event fields no section shows as they are: the version moves with every change, and the audit
# head shows only in the status header.
_UNSHOWN_FIELDS = frozenset({"version", "audit_seq", "audit_hash"})


def event_facts(event: Event) -> dict[str, Any]:
    """The event's own fields a section may show."""
    return {
        field.attname: getattr(event, field.attname)
        for field in event._meta.concrete_fields
        if field.attname not in _UNSHOWN_FIELDS
    }


def house_context(event: Event, dashboard: selectors.Dashboard) -> dict[str, Any]:
    """What House's live part is rendered from, for every House page of the event."""
    return {
        "event": event,
        "live_socket": True,
        "inline_messages": False,
        **dashboard,
        **tools(event),
    }


def house_html(event: Event, dashboard: selectors.Dashboard) -> str:
    """House's live part of the dashboard (`house/_live.html`), for every House page of the event.

    What one House member's session holds (a Scoreholio comparison) is not in it: the page keeps
    its own ([data-live-keep], live.js).
    """
    return render_to_string("house/_live.html", house_context(event, dashboard))


def house_cut(event: Event, dashboard: selectors.Dashboard) -> Cut:
    """House's live part as pieces: its sections, and each player's check-in entry and row."""
    context = house_context(event, dashboard)
    checklist = dashboard["checklist"]
    # The checklist while the event is started: its status line and form, and one piece per item
    # (the first 25 shown, the others behind "more").
    checking = dashboard["started"] and not dashboard["finalized"]
    absent = {
        "start": not dashboard["start"],
        "house-tools": event.phase in ("draft", "finalized"),
        "checkin-note": event.phase == "draft",
        "checkin-add": event.phase == "draft",
        "finalize-status": not checking,
        "finalize-form": not checking,
        "checklist-more-count": not checking or len(checklist) <= CHECKLIST_SHOWN,
    }
    # Every section shows the event's own fields and its summary (not the version nor the audit
    # head, which move with every change); each also shows its own part of the dashboard.
    summary = {k: v for k, v in dashboard["summary"].items() if k != "version"}
    facts = [event_facts(event), summary]
    pieces: list[Piece] = []
    for id, template in HOUSE_SECTIONS:
        if not absent.get(id, False):
            data = [id, facts, SECTION_DATA[id](context)]
            pieces.append(data_piece(id, data, _renderer(template, context)))
    lists: dict[str, tuple[str, ...]] = {}
    if checking and checklist:
        for item in checklist:
            render = _renderer("house/_check_item.html", {"item": item})
            pieces.append(data_piece(item["id"], item, render))
        lists["checklist"] = tuple(item["id"] for item in checklist[:CHECKLIST_SHOWN])
        if len(checklist) > CHECKLIST_SHOWN:
            lists["checklist-more"] = tuple(item["id"] for item in checklist[CHECKLIST_SHOWN:])
    # What every row shows beside its own data.
    stock = dashboard["stock"]
    shared = {
        "event": event.pk,
        "games": event.rules.games,
        "kept": event.rules.kept,
        "finalized": dashboard["finalized"],
        "late_entry": None if not stock else stock["late_entry_open"],
        "time_zone": dashboard["summary"]["time_zone"],
    }

    check_in = []
    for row in dashboard["check_in"]:
        check_in.append(f"checkin-row-{row['registration_id']}")
        # A check-in entry shows who, their status and what House may do at check-in.
        shown: dict[str, Any] = {
            "who": [row["registration_id"], row["label"], row["late"], row["status"]],
            "can": [row["can"][k] for k in ("check_in", "undo", "add_back")],
        }
        render = _renderer("house/_checkin_row.html", {**context, "p": row})
        pieces.append(data_piece(check_in[-1], [shared, shown], render))
    players = []
    for row in dashboard["players"]:
        players.append(f"house-row-{row['registration_id']}")
        shown = {**row, "pending": _steady(row["pending"])}
        render = _renderer("house/_player_row.html", {**context, "p": row})
        pieces.append(data_piece(players[-1], [shared, shown], render))
    if check_in:
        lists["checkin-list"] = tuple(check_in)
    if players:
        lists["house-rows"] = tuple(players)
    layout = (
        f"house phase={event.phase} check-in={bool(check_in)} players={bool(players)}"
        f" start={bool(dashboard['start'])} checklist={bool(checklist)}"
        f" more={len(checklist) > CHECKLIST_SHOWN}"
    )
    return Cut(layout, tuple(pieces), lists, lambda: house_html(event, dashboard))


def _steady(pending: dict[str, Any] | None) -> dict[str, Any] | None:
    """A pending choice without its waiting time, which grows by the second: the page ages it
    itself (house.js), so a longer wait alone is no change to send."""
    if pending is None:
        return None
    return {k: v for k, v in pending.items() if k not in ("waited_seconds", "overdue")}
