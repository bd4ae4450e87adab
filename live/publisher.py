"""Live updates after a change commits (docs/rules.md section 12.1).

The engine hands every committed change to `on_change` (through `events.changes`, subscribed in
`live.apps`): its event, the players it touched and the event version it made. What the change
calls for is read and rendered here once, whoever listens, and sent to five kinds of groups:

- `event.<id>`: the public board (stream "board", version `Event.version`), with the pieces of
  its HTML that changed and the rows' places that moved (`targeted`);
- `venue.<id>`: the venue's displays (stream "venue", version `Event.version`): the check-in
  code's part of the board, which each display renders for itself (`live.consumers`);
- `places.<id>`: every player's High and Low place (stream "places", version `Event.version`);
  each player socket passes on only its own few bytes, so a phone's place line stays current
  without a render per phone;
- `house.<id>`: House's table (stream "house", version `Event.version`), with the pieces of its
  live part that changed, rendered only while a House page listens;
- `player.<registration id>`: one player's own state and panel HTML (stream "player", version
  `Registration.version`), only for the players the change touched.

The consumers in `live.consumers` only subscribe sockets to those groups and relay what arrives
(the frames a client receives are described there).

`settings.LIVE_UPDATES` chooses how `announce` delivers:
- "process": each change is one entry on a Redis list, and the publisher, a process of its own
  (`manage.py publish_live`), computes and sends. The servers that answer requests spend nothing on
  live pages but the relay to their own sockets, and every server's changes to an event are merged
  in one place. While no publisher answers (its heartbeat is older than HEARTBEAT_SECONDS), each
  server delivers its own changes as in "background", so pages never stop following;
- "background" (default): a daemon thread per server process computes and sends;
- "inline": right away in the caller's thread (tests);
- "off": nothing is sent.

The worker ("process" and "background") sends in arrival order, so the request that made the
change never waits for snapshots or the channel layer. It sends at most one set of snapshots per
event every `LIVE_UPDATES_INTERVAL` seconds: the changes that arrive in between are merged, so a
busy event costs a few snapshot sets a second, not one per change. When a delivery takes long, the
event's next one waits `LIVE_UPDATES_REST_PER_WORK` times as long, so live updates never crowd out
the requests that make the changes.
"""

from __future__ import annotations

import asyncio
import atexit
import contextlib
import json
import logging
import os
import queue
import threading
import time
from collections import Counter
from collections.abc import Callable, Iterable, Iterator
from dataclasses import dataclass, replace
from typing import Any, Protocol

import redis
from asgiref.sync import async_to_sync
from channels.layers import get_channel_layer
from django.conf import settings
from django.core.cache import cache
from django.db import close_old_connections, connection, transaction
from django.urls import get_resolver

from events import store
from events.changes import Committed
from events.models import Event, Phase, Registration
from events.progress import provisional_standings
from events.reads.board import BoardView, board_view
from events.reads.common import to_json
from events.reads.player import PlayerState, player_state, player_states
from events.snapshots import house_snapshot
from events.venue import venue_check_in
from house import selectors
from live.fragments import (
    Cut,
    board_cut,
    board_html,
    compile_templates,
    house_cut,
    house_html,
    places_of,
    player_html,
)
from scoring import evaluator
from scoring.standings import Standings

logger = logging.getLogger(__name__)

BACKGROUND = "background"
PROCESS = "process"
INLINE = "inline"
OFF = "off"
MODES = (BACKGROUND, PROCESS, INLINE, OFF)

# The handler a consumer needs for these messages: `live_snapshot`.
MESSAGE_TYPE = "live.snapshot"
# The handler for the places of every player of an event: `live_places`, which picks its own.
PLACES_TYPE = "live.places"
# The handler for the venue's check-in part: `live_venue`, which renders it for its own display.
VENUE_TYPE = "live.venue"


def event_group(event_id: int) -> str:
    return f"event.{event_id}"


def house_group(event_id: int) -> str:
    return f"house.{event_id}"


def player_group(registration_id: int) -> str:
    return f"player.{registration_id}"


def places_group(event_id: int) -> str:
    return f"places.{event_id}"


def venue_group(event_id: int) -> str:
    """The venue's displays of the event (events.venue): the board opened by House, and House's
    display link. Only they hear the check-in code."""
    return f"venue.{event_id}"


def mode() -> str:
    """The delivery mode; read on every call so tests can change it."""
    return str(getattr(settings, "LIVE_UPDATES", BACKGROUND))


def interval() -> float:
    """The background worker's shortest time between two deliveries, in seconds."""
    return float(getattr(settings, "LIVE_UPDATES_INTERVAL", 0.25))


def rest_per_work() -> float:
    """From one delivery of an event's snapshots to the next, at least this many times what it
    took (`settings.LIVE_UPDATES_REST_PER_WORK`)."""
    return float(getattr(settings, "LIVE_UPDATES_REST_PER_WORK", 4))


@dataclass(frozen=True, slots=True)
class Snapshot:
    """One stream's state at one version, and the group that hears about it.

    A full frame carries the whole fragment (`html`) and the stream's data; a targeted update of
    the board or House carries, from the version `base` a page holds, only the pieces that changed
    (`parts`, by element id), the new order of the lists whose order changed (`order`) and the
    places that changed or that a pushed piece leaves to it (`places`, by element id).
    """

    group: str
    stream: str
    version: int
    data: Any | None
    # "update": the stream's next version; "snapshot": versions were merged on the way, so this
    # replaces what the client holds (what it would otherwise reload after seeing the gap).
    kind: str = "update"
    # The fragment the page swaps in for this stream, rendered once for every socket.
    html: str | None = None
    base: int | None = None
    bases: tuple[int, ...] = ()
    parts: dict[str, str] | None = None
    order: dict[str, list[str]] | None = None
    places: dict[str, str] | None = None

    def frame(self) -> dict[str, Any]:
        """What a socket receives."""
        frame: dict[str, Any] = {"type": self.kind, "stream": self.stream, "version": self.version}
        if self.base is not None:
            frame["base"] = self.base
        if len(self.bases) > 1:
            frame["bases"] = list(self.bases)
        if self.data is not None:
            frame["data"] = self.data
        if self.html is not None:
            frame["html"] = self.html
        if self.parts is not None:
            frame["parts"] = self.parts
        if self.order:
            frame["order"] = self.order
        if self.places:
            frame["places"] = self.places
        return frame

    @property
    def fragment(self) -> bool:
        """Whether the frame carries what the page shows (a House frame may not)."""
        return self.html is not None or self.parts is not None

    def message(self) -> dict[str, Any]:
        """As sent through the channel layer: the socket frame encoded once, for every socket."""
        if self.stream == "venue":
            # Each display renders its own part: the address phones reach is the one it was
            # opened at, and a display link for an earlier code no longer shows the code.
            return {"type": VENUE_TYPE, "version": self.version, "data": self.data}
        if self.stream == "places":
            # Each player socket picks its own entry (`live.consumers`), so no phone receives
            # the whole table.
            return {
                "type": PLACES_TYPE,
                "stream": self.stream,
                "version": self.version,
                "data": self.data,
            }
        return {
            "type": MESSAGE_TYPE,
            "stream": self.stream,
            "version": self.version,
            "frame": json.dumps(self.frame()),
            "fragment": self.fragment,
        }


def board(event: Event, view: BoardView | None = None) -> Snapshot:
    """The board's whole snapshot, as a socket starts from it."""
    view = board_view(event) if view is None else view
    remember(event, event_group(event.pk), board_cut(event, view))
    return Snapshot(
        event_group(event.pk),
        "board",
        event.version,
        to_json(view.data),
        html=board_html(event, view),
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


def _shown(event: Event, cut: Cut) -> dict[str, Any]:
    """What a page holding this version of the fragment shows, piece by piece."""
    return {
        "layout": cut.layout,
        "keys": {piece.id: piece.key for piece in cut.pieces},
        "lists": {list_id: list(ids) for list_id, ids in cut.lists.items()},
        "places": dict(cut.places),
    }


def _last_shown(group: str, event: Event) -> dict[int, dict[str, Any]]:
    """The versions of the group's fragment recently sent or started from, newest last."""
    try:
        record = cache.get(_shown_key(group))
    except Exception:
        logger.warning("Could not read what %s was last sent.", group)
        return {}
    if not isinstance(record, dict) or record.get("event") != _event_stamp(event):
        return {}  # none, or another event's with the same id
    shown = record.get("versions")
    return shown if isinstance(shown, dict) else {}


def _keep_shown(
    group: str, event: Event, history: dict[int, dict[str, Any]], shown: dict[str, Any]
) -> None:
    """Add this version to the group's recent versions (the last SHOWN_VERSIONS); a version
    sent as an update replaces the same version a page started from."""
    if event.version in history and (history[event.version].get("sent") or not shown.get("sent")):
        return
    versions = {**history, event.version: shown}
    kept = dict(sorted(versions.items())[-SHOWN_VERSIONS:])
    record = {"event": _event_stamp(event), "versions": kept}
    try:
        cache.set(_shown_key(group), record, timeout=SHOWN_SECONDS)
    except Exception:
        logger.warning("Could not keep what %s was sent.", group)


def remember(event: Event, group: str, cut: Cut) -> None:
    """A page starts from the whole fragment at this version: later updates may build on it."""
    _keep_shown(group, event, _last_shown(group, event), _shown(event, cut))


def targeted(
    event: Event, group: str, stream: str, cut: Cut, data: Any | None
) -> tuple[Snapshot, set[str]]:
    """The stream's update from the version its pages were last sent, and the ids of the pieces
    it carries (all of them when it carries the whole fragment).

    The update carries the pieces that differ from the last version sent (`base`), and the
    places that differ or that a piece it carries leaves to it. A page that started from a
    snapshot of a later version (made while this change was on its way) applies it too when
    every piece, order and place it would get wrong is in the update: those versions are `bases`.
    """
    history = _last_shown(group, event)
    now = _shown(event, cut)
    held = {
        version: was
        for version, was in history.items()
        if version < event.version and was.get("layout") == cut.layout
    }
    sent = [version for version, was in held.items() if was.get("sent")]
    if held:
        base = max(sent) if sent else max(held)
        was_keys = held[base].get("keys") or {}
        was_lists = held[base].get("lists") or {}
        was_places = held[base].get("places") or {}
        parts = {p.id: p.render() for p in cut.pieces if was_keys.get(p.id) != p.key}
        order = {i: ids for i, ids in now["lists"].items() if was_lists.get(i) != ids}
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
                and all(lists.get(i) == ids or i in order for i, ids in now["lists"].items())
                and all(shown.get(i) == place or i in places for i, place in now["places"].items())
            )

        bases = sorted(
            version
            for version, was in held.items()
            if version == base or (version > base and brought_up_to_date(was))
        )
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


def board_update(event: Event, view: BoardView) -> Snapshot:
    """The board after a change: the rows and head that changed, with the board's data."""
    cut = board_cut(event, view)
    snapshot, _ = targeted(event, event_group(event.pk), "board", cut, to_json(view.data))
    return snapshot


def venue(event: Event) -> Snapshot:
    """The venue's check-in part (`events.venue.venue_check_in`), to the venue's displays only."""
    data = venue_check_in(event).data()
    return Snapshot(venue_group(event.pk), "venue", event.version, data, kind="snapshot")


def places(event: Event, table: Standings[int]) -> Snapshot:
    """Every ranked player's High and Low place, by registration id, and how many are ranked."""
    ranked = {place.player for place in table.high}
    shown = {
        "ranked": len(table.high),
        "places": {str(pk): [table.high_place(pk), table.low_place(pk)] for pk in sorted(ranked)},
    }
    return Snapshot(places_group(event.pk), "places", event.version, shown, kind="snapshot")


def own_places(registration: Registration, me: PlayerState) -> Snapshot:
    """One player's places, as their socket starts from them (read with their own state)."""
    event = registration.event
    return Snapshot(places_group(event.pk), "places", event.version, places_of(me), kind="snapshot")


# House's live part is the costliest fragment: it is rendered only while a House page listens.
# Its socket marks the event (`house_listening`) on connect and again, at most every
# HOUSE_MARK_EVERY seconds, while frames reach it; a mark lasts HOUSE_MARK_SECONDS. A change after
# a mark ran out sends House's data without HTML: an open page then refetches its part once, and
# its socket marks the event again.
HOUSE_MARK_SECONDS = 300
HOUSE_MARK_EVERY = 60


def _house_mark(event_id: int) -> str:
    return f"live:house-listening:{event_id}"


def house_listening(event_id: int) -> None:
    """A House page of the event is open (called by its socket)."""
    try:
        cache.set(_house_mark(event_id), 1, timeout=HOUSE_MARK_SECONDS)
    except Exception:
        logger.warning("Could not mark House listening on event %s.", event_id)


def house_listens(event_id: int) -> bool:
    try:
        return cache.get(_house_mark(event_id)) is not None
    except Exception:
        return True  # unknown: render, as a page may be waiting


def house(event: Event) -> Snapshot:
    """House's whole snapshot, as a House socket starts from it: the table and the live part."""
    table = house_snapshot(event)
    dashboard = selectors.dashboard(event, table)
    remember(event, house_group(event.pk), house_cut(event, dashboard))
    fragment = house_html(event, dashboard)
    return Snapshot(house_group(event.pk), "house", event.version, table, html=fragment)


def house_update(event: Event, *, listening: bool = True) -> Snapshot:
    """House after a change: the rows and sections that changed, and as data the players whose
    row changed (the whole table when the frame carries the whole fragment).

    While no House page listens nothing is read: the frame carries the version alone, and a page
    that hears it asks for the whole snapshot.
    """
    if not listening:
        return Snapshot(house_group(event.pk), "house", event.version, None)
    table = house_snapshot(event)
    snapshot, changed = targeted(
        event,
        house_group(event.pk),
        "house",
        house_cut(event, selectors.dashboard(event, table)),
        None,
    )
    if snapshot.base is None:
        return replace(snapshot, data=table)
    # The rest of the table shows in the parts: the data carries the players whose row changed.
    players = [r for r in table["players"] if f"house-row-{r['registration_id']}" in changed]
    return replace(snapshot, data={"players": players})


def player(registration: Registration, data: PlayerState | None = None) -> Snapshot:
    """A player's snapshot; `data`, when the caller has computed it, is `player_state`'s."""
    own = player_state(registration) if data is None else data
    return Snapshot(
        player_group(registration.pk),
        "player",
        registration.version,
        to_json(own),
        html=player_html(registration.event, own),
    )


@contextlib.contextmanager
def consistent_read() -> Iterator[None]:
    """Read every snapshot from one database snapshot, so each version matches its data.

    Snapshots run several queries; under READ COMMITTED a change committing in between would pair
    one version with another version's data.
    """
    if connection.in_atomic_block:
        yield
        return
    with transaction.atomic():
        store.read_one_snapshot()
        yield


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
    with consistent_read():
        event = Event.objects.filter(pk=event_id).first()
        if event is None or event.phase == Phase.DRAFT:
            return []  # nobody may listen to a draft
        found = []
        table = None
        public = fresh(event_group(event.pk), event.version)
        if public:
            view = board_view(event)
            table = view.standings
            found.append(board_update(event, view))
            found.append(venue(event))
            if event.phase == Phase.STARTED and table is not None:
                found.append(places(event, table))
        registrations = [
            r
            for r in Registration.objects.filter(event=event, pk__in=set(registration_ids))
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
        own = player_states(registrations, table)
        found += [player(r, own[r.pk]) for r in registrations]
        if first is not None:
            first(found)
            found = []
        if public:
            found.append(house_update(event, listening=house_listens(event.pk)))
        return found


async def _send_all(layer: Any, snapshots: list[Snapshot]) -> None:
    for snapshot in snapshots:
        await layer.group_send(snapshot.group, snapshot.message())


def send(snapshots: list[Snapshot]) -> None:
    """Send snapshots in order through the channel layer, from the caller's thread."""
    layer = get_channel_layer()
    if layer is not None and snapshots:
        async_to_sync(_send_all)(layer, snapshots)


def on_change(change: Committed) -> None:
    """The engine's hook (`events.changes`): a change committed."""
    announce(
        event_id=change.event_id,
        registration_ids=list(change.registration_ids),
        version=change.version,
    )


def announce(*, event_id: int, registration_ids: list[int], version: int | None = None) -> None:
    """Tell the event's live views that a change committed. Call only after the commit.

    `version` is the event's version that the change committed, when the caller knows it.
    """
    chosen = mode()
    if chosen == OFF:
        return
    if chosen == INLINE:
        try:
            send(change_snapshots(event_id, registration_ids))
        except Exception:
            logger.exception("Live update for event %s failed.", event_id)
        return
    if chosen not in (BACKGROUND, PROCESS):
        logger.error("Unknown LIVE_UPDATES %r: no live update sent.", chosen)
        return
    job = _Job(event_id, tuple(registration_ids), version)
    if chosen == PROCESS and _changes().hand_over(job):
        return
    _worker().local().put(job)


def wait_until_idle(timeout: float = 5.0) -> bool:
    """Wait until this process's worker has sent everything queued; False on timeout."""
    worker = _current
    if worker is None or worker.pid != os.getpid():
        return True
    source = worker.source
    if not isinstance(source, _LocalQueue):
        return True
    deadline = time.monotonic() + timeout
    while source.queue.unfinished_tasks:
        if time.monotonic() >= deadline:
            return False
        time.sleep(0.01)
    return True


# --- the background worker ---------------------------------------------------------------------


@dataclass(frozen=True, slots=True)
class _Job:
    event_id: int
    registration_ids: tuple[int, ...]
    version: int | None = None  # the event's version this change committed

    def encoded(self) -> str:
        return json.dumps([self.event_id, list(self.registration_ids), self.version])

    @classmethod
    def decoded(cls, raw: bytes | str) -> _Job | None:
        try:
            event_id, registration_ids, version = json.loads(raw)
            return cls(int(event_id), tuple(int(pk) for pk in registration_ids), version)
        except (ValueError, TypeError):
            logger.warning("A queued live update could not be read: %r", raw[:200])
            return None


class _Source(Protocol):
    """Where a worker takes the changes it delivers from."""

    def take(self, timeout: float | None) -> list[_Job]:
        """What has arrived, oldest first, waiting at most `timeout` seconds for the first."""
        ...

    def done(self, count: int) -> None:
        """`count` of the changes taken have been delivered (or given up on)."""
        ...

    def idle(self) -> bool:
        """Nothing is waiting to be taken."""
        ...


class _LocalQueue:
    """The changes this process made, for its own worker thread ("background")."""

    def __init__(self) -> None:
        self.queue: queue.Queue[_Job] = queue.Queue()

    def put(self, job: _Job) -> None:
        self.queue.put(job)

    def take(self, timeout: float | None) -> list[_Job]:
        jobs: list[_Job] = []
        with contextlib.suppress(queue.Empty):
            jobs.append(self.queue.get(timeout=timeout))
            while True:
                jobs.append(self.queue.get_nowait())
        return jobs

    def done(self, count: int) -> None:
        for _ in range(count):
            self.queue.task_done()

    def idle(self) -> bool:
        return self.queue.empty()


# --- the publisher process ("process") -----------------------------------------------------------
# Every server process appends its committed changes to one Redis list; the publisher takes them
# in order. It marks itself alive every HEARTBEAT_EVERY seconds, for HEARTBEAT_SECONDS: a server
# that finds no mark delivers its own changes (as "background") until a publisher is back. The
# list is capped at QUEUE_LIMIT changes and expires a day after the last one: a change left behind
# by a publisher that is gone only costs a read of the newest state when one starts again.
HEARTBEAT_SECONDS = 5.0
HEARTBEAT_EVERY = 1.0
QUEUE_LIMIT = 100_000
QUEUE_SECONDS = 24 * 3600
# How many changes the publisher takes from the list at once.
TAKE_AT_MOST = 1_000


def _redis_key(name: str) -> str:
    """A key beside the channel layer's own (its prefix: CHANNELS_PREFIX)."""
    layers: dict[str, Any] = settings.CHANNEL_LAYERS
    prefix = layers.get("default", {}).get("CONFIG", {}).get("prefix", "asgi")
    return f"{prefix}:live:{name}"


class _Changes:
    """The Redis list between the servers and the publisher, as both sides use it."""

    def __init__(self) -> None:
        self.pid = os.getpid()
        self.url = str(settings.REDIS_URL)
        self.client = redis.Redis.from_url(self.url, socket_timeout=5, socket_connect_timeout=2)
        self.queue_key = _redis_key("changes")
        self.heartbeat_key = _redis_key("publisher")
        # A server's knowledge of the publisher's heartbeat, read again after HEARTBEAT_EVERY.
        self.alive = False
        self.checked = float("-inf")
        self.beaten = float("-inf")
        # The publisher: its last take waited and found nothing.
        self.quiet = False

    def publisher_alive(self) -> bool:
        now = time.monotonic()
        if now - self.checked >= HEARTBEAT_EVERY:
            self.checked = now
            try:
                self.alive = bool(self.client.exists(self.heartbeat_key))
            except redis.RedisError:
                self.alive = False
        return self.alive

    def hand_over(self, job: _Job) -> bool:
        """Queue the change for the publisher; False when no publisher answers (the caller then
        delivers it itself)."""
        if not self.publisher_alive():
            return False
        try:
            with self.client.pipeline(transaction=False) as pipe:
                pipe.rpush(self.queue_key, job.encoded())
                pipe.ltrim(self.queue_key, -QUEUE_LIMIT, -1)
                pipe.expire(self.queue_key, QUEUE_SECONDS)
                pipe.execute()
        except redis.RedisError:
            logger.warning("Could not hand event %s's change to the publisher.", job.event_id)
            self.alive = False
            return False
        return True

    def beat(self) -> None:
        """The publisher: still alive."""
        now = time.monotonic()
        if now - self.beaten >= HEARTBEAT_EVERY:
            try:
                self.client.set(self.heartbeat_key, os.getpid(), ex=int(HEARTBEAT_SECONDS))
                self.beaten = self.checked = now
                self.alive = True
            except redis.RedisError:
                logger.warning("Could not mark the publisher alive.")

    def stop_beating(self) -> None:
        with contextlib.suppress(redis.RedisError):
            if self.client.get(self.heartbeat_key) == str(os.getpid()).encode():
                self.client.delete(self.heartbeat_key)

    # As a worker's source (`_Source`).
    def take(self, timeout: float | None) -> list[_Job]:
        self.beat()
        # Wake at least every HEARTBEAT_EVERY to keep the mark alive.
        wait = HEARTBEAT_EVERY if timeout is None else min(timeout, HEARTBEAT_EVERY)
        self.quiet = False
        try:
            raw: list[bytes | str] = []
            if wait > 0:
                first = self.client.blpop([self.queue_key], timeout=wait)
                if first is None:
                    self.quiet = timeout is None
                    return []
                raw.append(first[1])
            rest = self.client.lpop(self.queue_key, TAKE_AT_MOST)
            raw += rest if isinstance(rest, list) else []
        except redis.RedisError:
            logger.warning("Could not read the live updates' list; trying again.")
            time.sleep(HEARTBEAT_EVERY)
            return []
        return [job for job in map(_Job.decoded, raw) if job is not None]

    def done(self, count: int) -> None:
        pass

    def idle(self) -> bool:
        return self.quiet  # a whole wait went by with nothing to deliver


_changes_client: _Changes | None = None


def _changes() -> _Changes:
    """This process's handle on the list (again after a fork, or when REDIS_URL changed)."""
    global _changes_client
    current = _changes_client
    if (
        current is None
        or current.pid != os.getpid()
        or current.url != settings.REDIS_URL
        or current.queue_key != _redis_key("changes")
    ):
        current = _changes_client = _Changes()
    return current


def serve(stop: threading.Event | None = None) -> None:
    """The publisher process's loop (`manage.py publish_live`): until `stop` is set, deliver
    what every server's committed changes call for."""
    source = _changes()
    source.beat()
    logger.info("Live updates: the publisher is serving.")
    worker = _Worker(source)
    try:
        worker.run(stop)
    finally:
        source.stop_beating()
        _close_connection()
        # Its channel-layer connections close with its loop, here, not when the loop is
        # collected later, perhaps while another loop runs.
        try:
            worker.loop.close()
        except Exception:
            logger.warning("Closing the publisher's event loop failed.", exc_info=True)


class _Worker:
    """Computes and sends announcements in arrival order: a daemon thread per server process
    ("background"), or the publisher process's main loop ("process")."""

    def __init__(self, source: _Source | None = None) -> None:
        self.pid = os.getpid()
        # The worker's own event loop for the channel layer: its Redis connections stay open
        # between changes, and it still works while the interpreter exits (`async_to_sync` needs
        # a thread pool, which refuses work by then).
        self.loop = asyncio.new_event_loop()
        self.source: _Source = _LocalQueue() if source is None else source
        # The last version sent per group: what a newer read already covered is skipped.
        self.sent: dict[str, int] = {}
        # Per event, when its next delivery may start.
        self.due: dict[int, float] = {}
        self.thread = threading.Thread(target=self.run, name="live-updates", daemon=True)

    def local(self) -> _LocalQueue:
        """This server's own queue (a "background" worker's source)."""
        if not isinstance(self.source, _LocalQueue):
            raise RuntimeError("This worker takes its changes from the publisher's list.")
        return self.source

    def run(self, stop: threading.Event | None = None) -> None:
        try:
            prepare()
        except Exception:
            logger.exception("Preparing the live updates failed; the first delivery will do it.")
        waiting: dict[int, list[_Job]] = {}  # per event, the changes held until it is due
        while stop is None or not stop.is_set():
            timeout = None
            if waiting:
                soonest = min(self.due.get(event_id, 0.0) for event_id in waiting)
                timeout = max(0.0, soonest - time.monotonic())
            # Take what has arrived: the changes of one event held together cost one snapshot set.
            for job in self.source.take(timeout):
                waiting.setdefault(job.event_id, []).append(job)
            now = time.monotonic()
            for event_id in [e for e in waiting if self.due.get(e, 0.0) <= now]:
                jobs = waiting.pop(event_id)
                started = time.monotonic()
                try:
                    self.deliver(jobs)
                finally:
                    # A change after a quiet spell went out at once; the event's next delivery
                    # waits the interval, or longer in proportion when this one took long (a
                    # busy process), so live updates never crowd out the requests.
                    spent = time.monotonic() - started
                    self.due[event_id] = started + max(interval(), rest_per_work() * spent)
                    self.source.done(len(jobs))
            if not waiting and self.source.idle():
                _close_connection()  # idle: hold no connection (nor a test database) open
                if len(self.due) > 10_000:
                    self.due.clear()  # only the events of the last few seconds matter

    def deliver(self, batch: list[_Job]) -> None:
        merged: dict[int, set[int]] = {}
        changes: Counter[str] = Counter()  # per group, the changes this batch merges
        committed: dict[str, int | None] = {}  # per event group, the version its change made
        for job in batch:  # dicts keep first-seen order, so events stay in arrival order
            merged.setdefault(job.event_id, set()).update(job.registration_ids)
            changes.update(
                [event_group(job.event_id), house_group(job.event_id), places_group(job.event_id)]
            )
            changes.update(player_group(pk) for pk in set(job.registration_ids))
            for group in (event_group, house_group, places_group):
                committed[group(job.event_id)] = job.version
        for event_id, registration_ids in merged.items():

            def send_now(snapshots: list[Snapshot], event_id: int = event_id) -> None:
                labelled = [
                    self.label(snapshot, changes[snapshot.group], committed.get(snapshot.group))
                    for snapshot in snapshots
                ]
                try:
                    self.send(labelled)
                except Exception:
                    # A Redis connection that died (a restart) fails once; the retry reconnects.
                    logger.warning("Live update for event %s: sending again.", event_id)
                    self.send(labelled)
                for snapshot in labelled:
                    self.sent.pop(snapshot.group, None)  # re-insert: the dict stays oldest-first
                    self.sent[snapshot.group] = snapshot.version

            try:
                close_old_connections()
                # Phones and boards are sent their part before House's is read.
                send_now(change_snapshots(event_id, registration_ids, self.fresh, send_now))
            except Exception:
                logger.exception("Live update for event %s failed.", event_id)
                _close_connection()  # it may be what failed; the next job opens a fresh one
        if len(self.sent) > 50_000:  # a long-lived process sees many groups; forget the oldest
            for stale in list(self.sent)[:25_000]:
                del self.sent[stale]

    def send(self, snapshots: list[Snapshot]) -> None:
        layer = get_channel_layer()
        if layer is None or not snapshots:
            return
        self.loop.run_until_complete(_send_all(layer, snapshots))

    def label(self, snapshot: Snapshot, changes: int, committed: int | None) -> Snapshot:
        """An update when it is the next version of what this worker sent the group, or carries
        exactly the one change it announces; otherwise a snapshot, which clients take whole
        instead of each asking for a reload after the gap.

        A targeted update names the version it builds on (`base`), and a House frame without its
        fragment makes a page ask for the snapshot: both stay as they are."""
        if snapshot.base is not None or (snapshot.stream == "house" and not snapshot.fragment):
            return snapshot
        last = self.sent.get(snapshot.group)
        if last is not None:
            follows = snapshot.version == last + 1
        else:
            follows = changes == 1 and committed in (None, snapshot.version)
        return snapshot if follows else replace(snapshot, kind="snapshot")

    def fresh(self, group: str, version: int) -> bool:
        """A group's version this worker has not sent yet.

        The worker reads the newest state, so one read can already cover the next change.
        """
        return self.sent.get(group) != version


def prepare() -> None:
    """Do now what the first delivery would otherwise wait for: the evaluator's tables, the live
    templates and the URL map the fragments' links are reversed from (half a second in all)."""
    evaluator.prepare()
    compile_templates()
    resolver = get_resolver()
    _ = resolver.reverse_dict
    for _prefix, namespace in resolver.namespace_dict.values():
        _ = namespace.reverse_dict


def _close_connection() -> None:
    """Close this thread's database connection; the worker must outlive a failing close."""
    try:
        connection.close()
    except Exception:
        logger.exception("Closing the live-updates database connection failed.")


_current: _Worker | None = None
_start_lock = threading.Lock()


def _worker() -> _Worker:
    """This process's worker, started on first use (again after a fork, or if it died)."""
    global _current
    worker = _current
    if worker is not None and worker.pid == os.getpid() and worker.thread.is_alive():
        return worker
    with _start_lock:
        worker = _current
        if worker is None or worker.pid != os.getpid() or not worker.thread.is_alive():
            worker = _Worker()
            worker.thread.start()
            _current = worker
        return worker


@atexit.register
def _drain_at_exit() -> None:
    """A command that changed state (not a server) still sends what it queued, briefly."""
    wait_until_idle(timeout=2.0)
