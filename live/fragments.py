"""The HTML a live page swaps in: rendered once per audience, for the first page and for pushes.

Each audience's live part is rendered from its read model (`events.reads.board.BoardView`, the
player's `PlayerState`, House's `house.read_model.HousePage` as one sight sees it: House's
audiences are its viewers' sights, staff/roles.py), the same one the page's first render uses.
The board's and House's parts are also cut into pieces (`Cut`): elements with an id (a board
row, a House row, a section) that a pushed update replaces one by one, and the lists whose order
it keeps. Each piece carries a key, a digest of what it shows, so the publisher can
tell which pieces changed since the version a page holds (`live.targeting`) and render only
those: a row's key is a digest of the row's data, so an unchanged row is not even rendered. A
board row's place is not in its piece: it follows from the other rows, so the cut gives the
places apart (`Cut.places`) and an update carries the places that moved, not the rows.

A pushed fragment is rendered outside any request, so it carries no CSRF token: the page's
`hx-headers` (base.html) sends the token with every htmx request the fragment's forms make.
"""

from __future__ import annotations

import dataclasses
import hashlib
import json
import re
from collections.abc import Callable, Iterable, Mapping
from dataclasses import dataclass, field
from pathlib import Path
from typing import Any

from django.template import engines
from django.template.loader import get_template, render_to_string

from events.event_language import in_event_language, rendered_in_event_language
from events.models import Event
from events.reads.board import BoardView
from events.reads.player import PlayerState
from helpers.forms import fresh_key
from house import read_model
from house.read_model import HousePage, part_context


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
    # Pieces not read for this version (a House row no change touched): their keys, unchanged
    # since the version they were read at.
    known: Mapping[str, str] = field(default_factory=dict)


def digest(value: Any) -> str:
    """A short digest of JSON-ready data and read models (dataclasses by their fields, dates and
    datetimes as text)."""
    text = json.dumps(value, sort_keys=True, default=_plain, separators=(",", ":"))
    return hashlib.blake2b(text.encode(), digest_size=8).hexdigest()


def _plain(value: Any) -> Any:
    names = _FIELDS.get(type(value))
    if names is None:
        if not dataclasses.is_dataclass(value) or isinstance(value, type):
            return str(value)
        names = _FIELDS[type(value)] = tuple(f.name for f in dataclasses.fields(value))
    return {name: getattr(value, name) for name in names}


_FIELDS: dict[type, tuple[str, ...]] = {}  # a read model's field names, per dataclass


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
    """The board's rows, progress and head (`web/_board.html`), in the event's language."""
    with in_event_language(event):
        return render_to_string("web/_board.html", {"view": view, "event": event})


def board_place(place: int) -> str:
    """A board row's place as its place cell shows it (web/_board_row.html): players who tie
    share the place (two 2s, then 4)."""
    return str(place)


# The pieces of the board's head (web/_board_head.html), each by its element id: a change sends
# the ones that changed (its facts line and progress, mostly; its title hardly ever).
BOARD_HEAD = (
    ("board-title", "web/_board_title.html"),
    ("board-facts", "web/_board_facts.html"),
    ("board-progress", "web/_board_progress.html"),
)


def board_cut(event: Event, view: BoardView, known: Mapping[str, str] | None = None) -> Cut:
    """The board as pieces: the pieces of its head, and each row of the High and the Low list,
    without its place (the cut's `places`). `known` gives the keys of rows known not to have
    changed since the version they were keyed at: those are not keyed again."""
    known = known or {}
    context = {"board": view.data, "event": event}
    with in_event_language(event):
        pieces = [html_piece(id, render_to_string(name, context)) for id, name in BOARD_HEAD]
    lists: dict[str, tuple[str, ...]] = {}
    places: dict[str, str] = {}
    for side, entries in (("high", view.high), ("low", view.low)):
        ids = []
        for entry in entries:
            suffix = "-low" if side == "low" else ""
            id = f"board-row-{entry.registration_id}{suffix}"
            ids.append(id)
            places[id] = board_place(entry.row.place)
            if id in known:
                continue
            # A card shows what its code says (cards.names.card_face): the key holds the codes.
            row = dataclasses.asdict(entry.row)
            shown = {
                k: [card["code"] for card in v] if k == "cards" else v
                for k, v in row.items()
                if k != "place"
            }
            stands = [[each.card.code, each.meant.code] for each in entry.stands_for]
            context = {"entry": entry, "side": side, "place": ""}
            pieces.append(
                data_piece(
                    id,
                    [side, entry.registration_id, shown, entry.prize, stands],
                    rendered_in_event_language(event, _renderer("web/_board_row.html", context)),
                )
            )
        if ids:
            lists[f"board-{side}"] = tuple(ids)
    # The language is part of the layout: a board whose language changed is sent whole.
    layout = (
        f"board final={view.data.final} high={bool(view.high)} low={bool(view.low)} "
        f"language={event.board_language}"
    )
    listed = set(places)
    return Cut(
        layout,
        tuple(pieces),
        lists,
        lambda: board_html(event, view),
        places,
        known={id: key for id, key in known.items() if id in listed},
    )


# --- a player -------------------------------------------------------------------------------------


def player_html(event: Event, me: PlayerState) -> str:
    """One player's own panel (`web/_player.html`), with fresh idempotency keys in its forms."""
    return render_to_string("web/_player.html", {"event": event, "me": me, "key": fresh_key()})


def places_of(me: PlayerState) -> dict[str, Any]:
    """A player's place line as the page renders it itself (see live.js, "places")."""
    return {"high": me.high_place, "low": me.low_place, "ranked": me.ranked, "final": me.final}


# --- House ----------------------------------------------------------------------------------------

CHECKLIST_SHOWN = read_model.CHECKLIST_SHOWN  # checklist items shown before "more"

# House's sections that change with the event, each one piece, in page order: its element id, its
# part of House's page (`HouseSections`) and its template, rendered from that part alone. A
# section's key is a digest of its part, so a section whose part did not change is not rendered,
# and nothing it shows can change under the same key. (The check-in list and the players' table
# are cut further, one piece per player.)
HOUSE_SECTIONS = (
    ("registration", "registration", "house/_registration.html"),
    ("house-tools", "tools", "house/_tools.html"),
    ("house-banner", "banner", "house/_banner.html"),
    ("waitlist", "waitlist", "house/_waitlist.html"),
    ("checkin-note", "checkin_note", "house/_checkin_note.html"),
    ("checkin-add", "checkin_add", "house/_checkin_add.html"),
    ("start", "start", "house/_start.html"),
    ("players-note", "players_note", "house/_players_note.html"),
    ("reviews", "reviews", "house/_reviews.html"),
    ("pool", "pool", "house/_pool.html"),
    ("cash-box", "cash_box", "house/_cash_box.html"),
    ("finalize-status", "finalize_status", "house/_finalize_status.html"),
    ("checklist-more-count", "checklist_more", "house/_checklist_more.html"),
    ("finalize-form", "finalize_form", "house/_finalize_form.html"),
)
PLAYER_ROW = "house/_player_row.html"
CHECK_IN_ROW = "house/_checkin_row.html"
CHECK_ITEM = "house/_check_item.html"


def player_row_id(registration_id: int) -> str:
    return f"house-row-{registration_id}"


def check_in_row_id(registration_id: int) -> str:
    return f"checkin-row-{registration_id}"


def house_html(page: HousePage, *, inline_messages: bool = False) -> str:
    """House's live part of the dashboard (`house/_live.html`), as `page` is seen by one sight
    (`HousePage.seen_by`): for every House page of the event whose viewer has that sight.

    What one House member's session holds (a Scoreholio comparison) is not in it: the page keeps
    its own ([data-live-keep], live.js).
    """
    return render_to_string(
        "house/_live.html", {**page.context(), "inline_messages": inline_messages}
    )


def house_cut(page: HousePage, known: Mapping[str, str] | None = None) -> Cut:
    """House's live part as pieces: its sections, the checklist's items, and each player's
    check-in entry and row.

    A page read whole has every row and item; one read for a change (`house_page(event,
    rows=...)`) has the rows it touched and their items, and `known` gives the keys of the
    others' pieces, unchanged since the version they were read at.
    """
    event = page.event
    # The checklist while the event is started: its status line and form, and one piece per item
    # (the first 25 shown, the others behind "more").
    checking = page.started and not page.finalized
    absent = {
        "start": page.sections.start.start is None,
        "house-tools": event.phase in ("draft", "finalized"),
        "checkin-note": event.phase == "draft",
        "checkin-add": event.phase == "draft",
        "finalize-status": not checking,
        "finalize-form": not checking,
        "checklist-more-count": not checking or len(page.checklist_order) <= CHECKLIST_SHOWN,
    }
    pieces: list[Piece] = []
    for id, name, template in HOUSE_SECTIONS:
        if not absent.get(id, False):
            part = getattr(page.sections, name)
            pieces.append(data_piece(id, [id, part], _renderer(template, part_context(part))))
    lists: dict[str, tuple[str, ...]] = {}
    order = page.checklist_order
    if checking and order:
        for item in page.checklist:
            pieces.append(data_piece(item.id, item, _renderer(CHECK_ITEM, {"item": item})))
        lists["checklist"] = order[:CHECKLIST_SHOWN]
        if len(order) > CHECKLIST_SHOWN:
            lists["checklist-more"] = order[CHECKLIST_SHOWN:]
    # What every row and check-in entry shows beside the player's own data.
    facts = part_context(page.row_facts)
    for entry in page.check_in:
        render = _renderer(CHECK_IN_ROW, {**facts, "p": entry})
        pieces.append(
            data_piece(check_in_row_id(entry.registration_id), [page.row_facts, entry], render)
        )
    for row in page.players:
        render = _renderer(PLAYER_ROW, {**facts, "p": row})
        pieces.append(
            data_piece(player_row_id(row.registration_id), [page.row_facts, row.steady()], render)
        )
    if page.check_in_order:
        lists["checkin-list"] = tuple(map(check_in_row_id, page.check_in_order))
    if page.players_order:
        lists["house-rows"] = tuple(map(player_row_id, page.players_order))
    layout = (
        f"house phase={event.phase} check-in={bool(page.check_in_order)}"
        f" players={bool(page.players_order)} start={page.sections.start.start is not None}"
        f" checklist={bool(page.checklist_order)}"
        f" more={len(page.checklist_order) > CHECKLIST_SHOWN}"
    )
    return Cut(
        layout,
        tuple(pieces),
        lists,
        lambda: house_html(page),
        known=known or {},
    )


def house_pieces_of_rows(cut: Cut, registration_ids: Iterable[int]) -> set[str]:
    """The ids of these players' pieces (their row, their check-in entry) in a House cut."""
    ids = set(registration_ids)
    listed = set(cut.lists.get("house-rows", ())) | set(cut.lists.get("checkin-list", ()))
    return {id for pk in ids for id in (player_row_id(pk), check_in_row_id(pk)) if id in listed}
