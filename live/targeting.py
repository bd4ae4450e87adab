"""What a committed change calls for, and for whom: the snapshots each group is sent.

`change_snapshots` reads, from one database snapshot, the board, the venue's part, the places,
each touched player and House, and renders each audience's fragment once. Board and House updates
are targeted: they carry only the pieces that changed since the version a page holds, which the
shown cache (below) remembers per group. House's part is read once per language and rendered per
sight (what a viewer's roles may see and do), only for the sights and languages a House page
listens for (the House marks, below).
"""

from __future__ import annotations

import bisect
import json
import logging
import pickle
import threading
from collections import OrderedDict
from collections.abc import Callable, Collection, Iterable, Mapping
from dataclasses import replace
from typing import Any

from django.conf import settings
from django.core.cache import cache
from django.utils import translation

from accounts.language import CODES, account_language
from events import store
from events.models import Event, Phase, Registration, RegistrationStatus
from events.progress import provisional_standings
from events.reads.board import BoardView, board_view, kept_board_view
from events.reads.common import to_json
from events.reads.player import PlayerState, player_state, player_states
from events.venue import venue_check_in
from house import read_model
from house.read_model import HousePage, house_page, row_stamps
from live import data_patch
from live.fragments import (
    Cut,
    Piece,
    board_cut,
    board_html,
    check_in_row_id,
    digest,
    house_cut,
    house_html,
    places_of,
    player_html,
    player_row_id,
)
from live.protocol import (
    Snapshot,
    event_group,
    house_group,
    places_group,
    player_group,
    venue_group,
)
from scoring.standings import Standings
from staff.roles import Sight

logger = logging.getLogger(__name__)


def board(event: Event, view: BoardView | None = None) -> Snapshot:
    """The board's whole snapshot, as a socket starts from it."""
    view = board_view(event) if view is None else view
    data = to_json(view.data)
    memo = {"rows": board_stamps(event), "data": data}
    remember(event, event_group(event.pk), board_cut(event, view), memo)
    return Snapshot(
        event_group(event.pk), "board", event.version, data, html=board_html(event, view)
    )


# --- targeted updates ----------------------------------------------------------------------------
# What the pieces of a group's fragment showed at its last few versions sent or started from (by
# any process: two servers each run a publisher) is kept in the cache: an update carries the
# pieces whose key changed since the last version sent (its `base`), and names every kept
# version it also brings up to date (`bases`); a page that holds another version asks for the
# whole snapshot. A change of layout, or no record, sends the whole fragment.
SHOWN_SECONDS = 24 * 3600
# How many recent versions are kept: a page that started from a snapshot while a change was on
# its way holds a version no update was sent for, and still applies the next update.
SHOWN_VERSIONS = 4


def _shown_key(group: str) -> str:
    return f"live:shown:{group}"


def _event_stamp(event: Event) -> str:
    """Which event this is, beyond its id (ids repeat when a database is made again)."""
    return f"{event.pk}:{event.created_at.isoformat()}"


def _shown(event: Event, cut: Cut, memo: dict[str, Any] | None = None) -> dict[str, Any]:
    """What a page holding this version of the fragment shows, piece by piece (and what the
    next update needs to know to read only what moved: `memo`)."""
    shown = {
        "layout": cut.layout,
        "keys": {**cut.known, **{piece.id: piece.key for piece in cut.pieces}},
        "lists": {list_id: list(ids) for list_id, ids in cut.lists.items()},
        "places": dict(cut.places),
    }
    if memo is not None:
        shown["memo"] = memo
    return shown


def _base(
    history: dict[int, dict[str, Any]], version: int, layout: str | None = None
) -> int | None:
    """The version an update to `version` builds on: the last one sent (else the last one a page
    started from) of the same layout; None when there is none."""
    held = {
        v: was
        for v, was in history.items()
        if v < version and (layout is None or was.get("layout") == layout)
    }
    if not held:
        return None
    sent = [v for v, was in held.items() if was.get("sent")]
    return max(sent) if sent else max(held)


# Each version in a group's record is pickled on its own, and this process keeps the versions it
# last wrote or read, by their pickled bytes: a change unpickles only the versions another process
# wrote, and pickles only its own, however many players the pieces hold.
KEPT_SHOWN = 64  # pickled versions kept per process (four of the board and House for 8 events)
_unpickled: OrderedDict[bytes, dict[str, Any]] = OrderedDict()
_pickled: dict[int, tuple[dict[str, Any], bytes]] = {}  # by id(shown), while kept
_unpickled_lock = threading.Lock()


def _keep_pickled(blob: bytes, shown: dict[str, Any]) -> None:
    with _unpickled_lock:
        _unpickled[blob] = shown
        _unpickled.move_to_end(blob)
        _pickled[id(shown)] = (shown, blob)
        while len(_unpickled) > KEPT_SHOWN:
            _, dropped = _unpickled.popitem(last=False)
            _pickled.pop(id(dropped), None)


def _shown_of(blob: Any) -> dict[str, Any] | None:
    """One version of a record, as stored (pickled; a record kept before versions were pickled
    on their own holds it as is)."""
    if isinstance(blob, dict):
        return blob
    if not isinstance(blob, bytes):
        return None
    with _unpickled_lock:
        shown = _unpickled.get(blob)
    if shown is None:
        # Written by a publisher of this deployment into its own cache, as any cached value is.
        shown = pickle.loads(blob)
        if not isinstance(shown, dict):
            return None
    _keep_pickled(blob, shown)
    return shown


def _pickle(shown: dict[str, Any]) -> bytes:
    with _unpickled_lock:
        kept = _pickled.get(id(shown))
    if kept is not None and kept[0] is shown:
        return kept[1]
    blob = pickle.dumps(shown, protocol=pickle.HIGHEST_PROTOCOL)
    _keep_pickled(blob, shown)
    return blob


def _last_shown(group: str, event: Event) -> dict[int, dict[str, Any]]:
    """The versions of the group's fragment recently sent or started from, newest last."""
    try:
        record = cache.get(_shown_key(group))
    except Exception:
        logger.warning("Could not read what %s was last sent.", group)
        return {}
    if not isinstance(record, dict) or record.get("event") != _event_stamp(event):
        return {}  # none, or another event's with the same id
    versions = record.get("versions")
    if not isinstance(versions, dict):
        return {}
    shown = {version: _shown_of(blob) for version, blob in versions.items()}
    return {version: was for version, was in shown.items() if was is not None}


def _keep_shown(
    group: str, event: Event, history: dict[int, dict[str, Any]], shown: dict[str, Any]
) -> None:
    """Add this version to the group's recent versions (the last SHOWN_VERSIONS); a version
    sent as an update replaces the same version a page started from."""
    if event.version in history and (history[event.version].get("sent") or not shown.get("sent")):
        return
    versions = {**history, event.version: shown}
    kept = {version: _pickle(was) for version, was in sorted(versions.items())[-SHOWN_VERSIONS:]}
    record = {"event": _event_stamp(event), "versions": kept}
    try:
        cache.set(_shown_key(group), record, timeout=SHOWN_SECONDS)
    except Exception:
        logger.warning("Could not keep what %s was sent.", group)


def remember(event: Event, group: str, cut: Cut, memo: dict[str, Any] | None = None) -> None:
    """A page starts from the whole fragment at this version: later updates may build on it."""
    _keep_shown(group, event, _last_shown(group, event), _shown(event, cut, memo))


def targeted(
    event: Event,
    group: str,
    stream: str,
    cut: Cut,
    data: Any | None,
    memo: dict[str, Any] | None = None,
    *,
    history: dict[int, dict[str, Any]] | None = None,
    patch_data: bool = False,
) -> tuple[Snapshot, set[str]]:
    """The stream's update from the version its pages were last sent, and the ids of the pieces
    it carries (all of them when it carries the whole fragment).

    The update carries the pieces that differ from the last version sent (`base`), and the
    places that differ or that a piece it carries leaves to it. A page that started from a
    snapshot of a later version (made while this change was on its way) applies it too when
    every piece, order and place it would get wrong is in the update: those versions are `bases`.
    With `patch_data`, `data` is kept in the memo (`memo["data"]`) and the update carries what
    moved in it since `base` (`live.data_patch`), and names as `bases` only the versions whose
    data the patch also brings up to date; the whole fragment carries the whole data.
    """
    history = _last_shown(group, event) if history is None else history
    now = _shown(event, cut, memo)
    held = {
        version: was
        for version, was in history.items()
        if version < event.version and was.get("layout") == cut.layout
    }
    base = _base(history, event.version, cut.layout)
    if base is not None:
        was_keys = held[base].get("keys") or {}
        was_lists = held[base].get("lists") or {}
        was_places = held[base].get("places") or {}
        parts = {p.id: p.render() for p in cut.pieces if was_keys.get(p.id) != p.key}
        order = {
            i: reordered(was_lists.get(i), ids)
            for i, ids in now["lists"].items()
            if was_lists.get(i) != ids
        }
        # A pushed piece comes without its place: its place goes too, changed or not.
        places = {
            i: place
            for i, place in now["places"].items()
            if was_places.get(i) != place or i in parts
        }

        def brought_up_to_date(was: dict[str, Any]) -> bool:
            keys, lists, shown = (was.get(k) or {} for k in ("keys", "lists", "places"))
            return (
                all(keys.get(i) == key or i in parts for i, key in now["keys"].items())
                and all(
                    lists.get(i) == ids
                    or (i in order and (isinstance(order[i], list) or lists.get(i) == was_lists[i]))
                    for i, ids in now["lists"].items()
                )
                and all(shown.get(i) == place or i in places for i, place in now["places"].items())
            )

        bases = sorted(
            version
            for version, was in held.items()
            if version == base or (version > base and brought_up_to_date(was))
        )
        if patch_data:
            changes = data_patch.patch(_memo_data(held[base]), data)
            bases = [
                version
                for version in bases
                if version == base or data_patch.patched(_memo_data(held[version]), changes) == data
            ]
            data = changes
        snapshot = Snapshot(
            group,
            stream,
            event.version,
            data,
            base=base,
            bases=tuple(bases),
            parts=parts,
            order=order,
            places=places,
        )
        changed = set(parts)
    else:
        snapshot = Snapshot(group, stream, event.version, data, html=cut.whole())
        changed = set(now["keys"])
    _keep_shown(group, event, history, {**now, "sent": True})
    return snapshot, changed


def reordered(was: list[str] | None, now: list[str]) -> list[str] | dict[str, Any]:
    """A list's new order, as an update carries it: the whole list of ids, or when shorter, the
    moves from its order at the base: {"gone": [ids no longer listed], "at": [[id, index], ...]},
    each moved or new id at its index in the new order, by index. The ids neither gone nor moved
    keep their order (the longest run of the old order the new one keeps)."""
    if was is None:
        return now
    position = {id: index for index, id in enumerate(was)}
    common = [id for id in now if id in position]
    # The longest subsequence of `common` whose old positions increase (patience sorting).
    tails: list[int] = []  # per length, the index in `common` of the smallest last position
    before: list[int | None] = []
    for index, id in enumerate(common):
        length = bisect.bisect_left([position[common[t]] for t in tails], position[id])
        before.append(tails[length - 1] if length else None)
        if length == len(tails):
            tails.append(index)
        else:
            tails[length] = index
    kept: set[str] = set()
    at = tails[-1] if tails else None
    while at is not None:
        kept.add(common[at])
        at = before[at]
    listed = set(now)
    moves = {
        "gone": [id for id in was if id not in listed],
        "at": [[id, index] for index, id in enumerate(now) if id not in kept],
    }
    return moves if len(json.dumps(moves)) < len(json.dumps(now)) else now


def _memo_data(was: dict[str, Any]) -> Any:
    return (was.get("memo") or {}).get("data")


def board_update(event: Event, view: BoardView, touched: Collection[int] = ()) -> Snapshot:
    """The board after a change: the rows and head that changed, and as data what moved in the
    board's data (`live.data_patch`) since the version the update builds on.

    The rows of players whose registration did not move since the version the update builds on
    show what they showed (their hand is theirs alone; a place is sent apart): they keep their
    keys rather than being keyed again.
    """
    group = event_group(event.pk)
    # Only a version whose data is kept can be built on: its patch is made from that data.
    history = {v: was for v, was in _last_shown(group, event).items() if _memo_data(was)}
    stamps = board_stamps(event) if view.versions is None else dict(view.versions)
    base = _base(history, event.version)
    was = history.get(base, {}) if base is not None else {}
    rows_was = (was.get("memo") or {}).get("rows")
    known: dict[str, str] = {}
    if isinstance(rows_was, dict) and not view.data.final:
        keys = was.get("keys") or {}
        for pk, stamp in stamps.items():
            if pk not in touched and rows_was.get(pk) == stamp:
                for id in (f"board-row-{pk}", f"board-row-{pk}-low"):
                    if id in keys:
                        known[id] = keys[id]
    cut = board_cut(event, view, known)
    if known and _base(history, event.version, cut.layout) != base:
        cut = board_cut(event, view)  # the update builds on another version: key every row
    data = to_json(view.data)
    memo = {"rows": stamps, "data": data}
    snapshot, _ = targeted(event, group, "board", cut, data, memo, history=history, patch_data=True)
    return snapshot


def board_stamps(event: Event) -> dict[int, int]:
    """Each checked-in player's registration version: every change to their hand moves it."""
    return dict(
        event.registrations.filter(status=RegistrationStatus.CHECKED_IN).values_list(
            "pk", "version"
        )
    )


def venue(event: Event) -> Snapshot:
    """The venue's check-in part (`events.venue.venue_check_in`), to the venue's displays only."""
    data = venue_check_in(event).data()
    return Snapshot(venue_group(event.pk), "venue", event.version, data, kind="snapshot")


def places(event: Event, table: Standings[int]) -> Snapshot:
    """Every ranked player's High and Low place, by registration id, and how many are ranked."""
    # One pass over each list (a player's place, looked up one by one, is a scan of the list).
    high = {place.player: place.place for place in table.high}
    low = {place.player: place.place for place in table.low}
    shown = {
        "ranked": len(table.high),
        "places": {str(pk): [high[pk], low.get(pk)] for pk in sorted(high)},
    }
    return Snapshot(places_group(event.pk), "places", event.version, shown, kind="snapshot")


def own_places(registration: Registration, me: PlayerState) -> Snapshot:
    """One player's places, as their socket starts from them (read with their own state)."""
    event = registration.event
    return Snapshot(places_group(event.pk), "places", event.version, places_of(me), kind="snapshot")


# --- open pages ---------------------------------------------------------------------------------
# A fragment is read and rendered only for an audience with an open page: the board of an event
# (its board and display sockets, and House's, which hear the board), House's part per sight and
# language, a player's panel per language. An audience is named by its group (a player's also by
# language). A socket marks its audiences (`listening`) before it reads its first snapshot, and
# again, at most every MARK_EVERY seconds, while frames reach it; a mark lasts MARK_SECONDS. A
# change after an audience's mark ran out sends its group the version alone, without data nor
# HTML: a page that hears it asks for the snapshots over its socket (and its socket marks it
# again), as after a gap. House's costliest part is read once per language heard and rendered
# once per sight (staff/roles.py `Sight`: what a viewer's roles may see and do).
MARK_SECONDS = 300
MARK_EVERY = 60


def _mark(audience: str) -> str:
    return f"live:listening:{audience}"


def listening(*audiences: str) -> None:
    """A page of each audience is open (called by its socket)."""
    try:
        cache.set_many({_mark(audience): 1 for audience in audiences}, timeout=MARK_SECONDS)
    except Exception:
        logger.warning("Could not mark %s listening.", ", ".join(audiences))


def listened(audiences: Collection[str]) -> set[str] | None:
    """Which of the audiences have an open page, in one cache read (None: not known)."""
    if not audiences:
        return set()
    try:
        marked = cache.get_many([_mark(audience) for audience in audiences])
    except Exception:
        return None
    return {audience for audience in audiences if _mark(audience) in marked}


def board_audience(event_id: int) -> str:
    """The event's board pages and venue displays (and House's, which hear the board)."""
    return event_group(event_id)


def house_audience(event_id: int, sight: str, language: str | None = None) -> str:
    return house_group(event_id, sight, language)


def player_audience(registration_id: int, language: str) -> str:
    return f"{player_group(registration_id)}.{language}"


def board_listened(event_id: int) -> bool:
    """Whether a page of the event's board is open (unknown: yes, a board may be waiting)."""
    heard = listened([board_audience(event_id)])
    return heard is None or bool(heard)


def _house_mark(event_id: int, sight: str, language: str | None = None) -> str:
    return _mark(house_audience(event_id, sight, language))


def _house_audiences() -> list[tuple[Sight, str]]:
    """Every (sight, language) a House page may be read with, the site's language first."""
    codes = [settings.LANGUAGE_CODE, *sorted(CODES - {settings.LANGUAGE_CODE})]
    return [(sight, code) for code in codes for sight in read_model.sights()]


def house_groups(event_id: int) -> list[str]:
    """The event's House groups, one per sight and language."""
    return [house_group(event_id, sight.name, code) for sight, code in _house_audiences()]


def house_listening(event_id: int, sight: str, language: str | None = None) -> None:
    """A House page of the event is open for a viewer of this sight, in `language` (by default
    the site's)."""
    listening(house_audience(event_id, sight, language))


def house_listeners(event_id: int) -> dict[tuple[str, str], bool]:
    """Per (sight, language), whether a House page of the event listens for it (in one cache
    read)."""
    audiences = {
        (sight.name, code): house_audience(event_id, sight.name, code)
        for sight, code in _house_audiences()
    }
    heard = listened(list(audiences.values()))
    if heard is None:
        # Unknown: render each sight in the site's language, as a page may be waiting; a page in
        # another language hears its version alone and refetches its part.
        return {(name, code): code == settings.LANGUAGE_CODE for name, code in audiences}
    return {key: audience in heard for key, audience in audiences.items()}


def house(event: Event, sight: Sight, language: str | None = None) -> Snapshot:
    """House's whole snapshot as a viewer of `sight` whose page reads `language` (by default the
    site's) starts from it: the table and the live part."""
    language = language or settings.LANGUAGE_CODE
    group = house_group(event.pk, sight.name, language)
    # Pushed outside any request: read and written in the page's language (the read model
    # writes some of its words, such as the phase's and the format's, as it reads).
    with translation.override(language):
        page = house_page(event).seen_by(sight)
        remember(event, group, house_cut(page), _house_memo(page, row_stamps(event)))
        fragment = house_html(page)
        return Snapshot(group, "house", event.version, page.table.data(), html=fragment)


def house_updates(
    event: Event,
    touched: Collection[int] = (),
    listening: Mapping[tuple[str, str], bool] | None = None,
) -> list[Snapshot]:
    """House after a change, for each (sight, language) a House page listens for: the rows and
    sections that changed, and as data the players whose row changed (the whole table when the
    frame carries the whole fragment).

    The read model writes some words as it reads (the phase's, the format's, a pending choice's),
    so House's page is read once per language heard, for every sight heard in it: one read and
    one render per sight when every page reads one language, as before languages. A group no
    House page listens for reads nothing: its frame carries the version alone, and a page that
    hears it asks for the whole snapshot.
    """
    listening = house_listeners(event.pk) if listening is None else listening
    heard: dict[str, list[Sight]] = {}
    silent = []
    for sight, language in _house_audiences():
        if listening.get((sight.name, language), False):
            heard.setdefault(language, []).append(sight)
        else:
            group = house_group(event.pk, sight.name, language)
            silent.append(Snapshot(group, "house", event.version, None))
    if not heard:
        return silent
    stamps = row_stamps(event)
    rendered: dict[tuple[str, str, str], str] = {}
    found = []
    for language, sights in heard.items():
        with translation.override(language):
            found += _house_updates_in(event, touched, sights, language, stamps, rendered)
    return found + silent


def _house_updates_in(
    event: Event,
    touched: Collection[int],
    heard: list[Sight],
    language: str,
    stamps: dict[int, str],
    rendered: dict[tuple[str, str, str], str],
) -> list[Snapshot]:
    """House's updates for the sights heard in one language (the active one).

    House's page is read once for these sights, and only the rows of the players `touched` (and
    of any other whose registration moved since the version a sight's update builds on); each
    sight's update renders, from that one read, the pieces its own pages hold that changed."""
    groups = {sight.name: house_group(event.pk, sight.name, language) for sight in heard}
    histories = {name: _last_shown(group, event) for name, group in groups.items()}
    page, reads = _house_read(event, histories, heard, stamps, touched)
    whole = page if page.whole else None
    found = []
    for sight in heard:
        history = histories[sight.name]
        known, base = reads.get(sight.name, ({}, None))
        seen = page.seen_by(sight)
        cut = house_cut(seen, known)
        if not seen.whole and _base(history, event.version, cut.layout) != base:
            # The layout moved (a section came or went): the update builds on another version,
            # or carries the whole fragment, so every row is read (once for every sight).
            whole = house_page(event) if whole is None else whole
            seen = whole.seen_by(sight)
            cut = house_cut(seen)
        cut = _rendered_once(cut, rendered, language)
        snapshot, changed = targeted(
            event,
            groups[sight.name],
            "house",
            cut,
            None,
            _house_memo(seen, stamps),
            history=history,
        )
        if snapshot.base is None:
            found.append(replace(snapshot, data=seen.table.data()))
            continue
        # The rest of the table shows in the parts: the data carries the players whose row
        # changed.
        players = [
            to_json(row)
            for row in seen.table.players
            if player_row_id(row.registration_id) in changed
        ]
        found.append(replace(snapshot, data={"players": players}))
    return found


def _rendered_once(cut: Cut, rendered: dict[tuple[str, str, str], str], language: str) -> Cut:
    """The cut whose pieces render once for every sight of a language: a piece's key is a
    digest of all it shows, so two sights' pieces with the same id and key (a checklist item, a
    note, a section with no action nor money in it) show the same HTML in the same language."""

    def shared(piece: Piece) -> Piece:
        def render() -> str:
            key = (language, piece.id, piece.key)
            if key not in rendered:
                rendered[key] = piece.render()
            return rendered[key]

        return Piece(piece.id, piece.key, render)

    return replace(cut, pieces=tuple(shared(piece) for piece in cut.pieces))


def _house_memo(page: HousePage, stamps: dict[int, str]) -> dict[str, Any]:
    """What the next update needs to read only the rows that moved: each registration's stamp
    (`read_model.row_stamps`) and what every row shows beside its own data."""
    return {"rows": stamps, "facts": digest(page.row_facts)}


def _house_read(
    event: Event,
    histories: dict[str, dict[int, dict[str, Any]]],
    sights: list[Sight],
    stamps: dict[int, str],
    touched: Collection[int],
) -> tuple[HousePage, dict[str, tuple[dict[str, str], int | None]]]:
    """House's page for an update, read once for every sight: the rows that moved since the
    version any sight's update builds on; and per sight, the keys of the other rows' pieces as
    that version has them, and that version. Every row when a sight's version is not known well
    enough to build on."""
    bases: dict[str, tuple[int | None, dict[str, Any]]] = {}
    moved = set(touched)
    # Each player's checklist items as each sight's version listed them (none: nothing blocked
    # them).
    items: dict[str, dict[int, list[str]]] = {}
    for sight in sights:
        history = histories[sight.name]
        base = _base(history, event.version)
        was = history.get(base, {}) if base is not None else {}
        rows_was = (was.get("memo") or {}).get("rows")
        if not isinstance(rows_was, dict):
            return house_page(event), {}
        moved |= {pk for pk, stamp in stamps.items() if rows_was.get(pk) != stamp}
        bases[sight.name] = (base, was)
        lists = was.get("lists") or {}
        listed: dict[int, list[str]] = {}
        for id in [*lists.get("checklist", ()), *lists.get("checklist-more", ())]:
            if id.startswith("check-player-"):
                listed.setdefault(int(id.split("-")[2]), []).append(id)
        items[sight.name] = listed
    first = items[sights[0].name]
    for listed in items.values():
        if any(listed.get(pk) != first.get(pk) for pk in {*listed, *first} - moved):
            return house_page(event), {}  # the sights' pages list unread items apart
    page = house_page(event, rows=moved, item_ids={pk: tuple(ids) for pk, ids in first.items()})
    listed_in = set(page.check_in_order)
    unread = [pk for pk in page.players_order if pk not in moved]
    reads: dict[str, tuple[dict[str, str], int | None]] = {}
    for sight in sights:
        base, was = bases[sight.name]
        if (was.get("memo") or {}).get("facts") != digest(page.seen_by(sight).row_facts):
            return house_page(event), {}  # what every row shows changed: read them all
        keys = was.get("keys") or {}
        known: dict[str, str] = {}
        for pk in unread:
            ids = [
                player_row_id(pk),
                *([check_in_row_id(pk)] if pk in listed_in else []),
                *first.get(pk, ()),
            ]
            for id in ids:
                if id not in keys:
                    return house_page(event), {}
                known[id] = keys[id]
        reads[sight.name] = (known, base)
    return page, reads


def _player_mark(registration_id: int, language: str) -> str:
    return _mark(player_audience(registration_id, language))


def player_listening(registration_id: int, language: str) -> None:
    """A page of this player is open in `language`."""
    listening(player_audience(registration_id, language))


def player_languages(registrations: Iterable[Registration]) -> dict[int, tuple[str, ...]]:
    """Per registration, the languages its player's snapshot is rendered in, none while no page
    of theirs is open: the account's choice (every page of the account reads it), else each
    language a page of theirs is open in (in one cache read)."""
    codes = sorted(CODES)
    chosen = {r.pk: account_language(r.player) for r in registrations}
    heard = listened([player_audience(pk, code) for pk in chosen for code in codes])
    found: dict[int, tuple[str, ...]] = {}
    for pk, language in chosen.items():
        if heard is None:
            # Unknown: one language, as a page may be waiting; a page in another asks for its own.
            found[pk] = (language or settings.LANGUAGE_CODE,)
            continue
        open_in = tuple(code for code in codes if player_audience(pk, code) in heard)
        found[pk] = (language,) if language is not None and open_in else open_in
    return found


def player(
    registration: Registration,
    data: PlayerState | None = None,
    language: str | None = None,
    languages: tuple[str, ...] = (),
) -> Snapshot:
    """A player's snapshot in `language` (by default the account's choice, else the site's):
    `data`, when the caller has computed it, is `player_state`'s in that language, and
    `languages` those this version is rendered in."""
    language = language or account_language(registration.player) or settings.LANGUAGE_CODE
    # Pushed outside any request: in the language of the page it goes to.
    with translation.override(language):
        own = player_state(registration) if data is None else data
        return Snapshot(
            player_group(registration.pk),
            "player",
            registration.version,
            to_json(own),
            html=player_html(registration.event, own),
            language=language,
            languages=languages or (language,),
        )


def change_snapshots(
    event_id: int,
    registration_ids: Iterable[int],
    fresh: Callable[[str, int], bool] = lambda group, version: True,
    first: Callable[[list[Snapshot]], None] | None = None,
) -> list[Snapshot]:
    """What one committed change calls for: the board, the places and each touched player, then
    House, all read from one database snapshot.

    `fresh(group, version)` may skip what was already sent, before anything is computed. With
    `first`, what phones and boards follow is handed to it as soon as it is read, before House is
    read (House's read is the costliest), and only House is returned.
    """
    touched = set(registration_ids)
    with store.consistent_read():
        event = Event.objects.filter(pk=event_id).first()
        if event is None or event.phase == Phase.DRAFT:
            return []  # nobody may listen to a draft
        found = []
        table = None
        public = fresh(event_group(event.pk), event.version)
        if public:
            # The board read is kept between changes (`kept_board_view`), and its standings are
            # the places' too; its fragment, data and the venue's part only for an open board.
            view = kept_board_view(event)
            table = view.standings
            if board_listened(event.pk):
                found.append(board_update(event, view, touched))
                found.append(venue(event))
            else:
                found.append(Snapshot(event_group(event.pk), "board", event.version, None))
            if event.phase == Phase.STARTED and table is not None:
                found.append(places(event, table))
        registrations = [
            r
            for r in Registration.objects.filter(event=event, pk__in=touched).select_related(
                "player"
            )
            if fresh(player_group(r.pk), r.version)
        ]
        # One standings table for the board and every player snapshot of this change.
        if event.phase != Phase.STARTED:
            table = None
        elif table is None and registrations:
            table = provisional_standings(event)
        registrations.sort(key=lambda r: r.pk)
        for registration in registrations:
            registration.event = event
        # Each player's words in the language of each page of theirs that is open: one read of
        # the states per language.
        languages = player_languages(registrations)
        by_language: dict[str, list[Registration]] = {}
        for registration in registrations:
            for language in languages[registration.pk]:
                by_language.setdefault(language, []).append(registration)
            if not languages[registration.pk]:
                # No page of theirs is open: their version alone (a page that opens asks).
                group = player_group(registration.pk)
                found.append(Snapshot(group, "player", registration.version, None))
        for language, readers in by_language.items():
            with translation.override(language):
                own = player_states(readers, table)
                found += [player(r, own[r.pk], language, languages[r.pk]) for r in readers]
        if first is not None:
            first(found)
            found = []
        if public:
            found += house_updates(event, touched)
        return found
