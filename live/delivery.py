"""How committed changes reach live pages: the queue, the worker and the publisher's heartbeat.

The engine hands every committed change to `on_change` (through `events.changes`, subscribed in
`live.apps`): its event, the players it touched and the event version it made. What the change
calls for is computed by `live.targeting` and sent through the channel layer in the frames of
`live.protocol`.

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
from dataclasses import dataclass, replace
from typing import Any, Protocol

import redis
from channels.layers import get_channel_layer
from django.conf import settings
from django.db import close_old_connections, connection
from django.urls import get_resolver

from events.changes import Committed
from live import protocol, targeting
from live.fragments import compile_templates
from live.protocol import Snapshot, event_group, places_group, player_group
from scoring import evaluator

logger = logging.getLogger(__name__)

BACKGROUND = "background"
PROCESS = "process"
INLINE = "inline"
OFF = "off"
MODES = (BACKGROUND, PROCESS, INLINE, OFF)


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


def send(snapshots: list[Snapshot]) -> None:
    """Send snapshots in order through the channel layer, from the caller's thread."""
    protocol.send_in_order([(snapshot.group, snapshot.message()) for snapshot in snapshots])


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
            send(targeting.change_snapshots(event_id, registration_ids))
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
            groups = [
                event_group(job.event_id),
                places_group(job.event_id),
                *targeting.house_groups(job.event_id),
            ]
            changes.update(groups)
            changes.update(player_group(pk) for pk in set(job.registration_ids))
            for group in groups:
                committed[group] = job.version
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
                send_now(
                    targeting.change_snapshots(event_id, registration_ids, self.fresh, send_now)
                )
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
        self.loop.run_until_complete(
            protocol.send_on(layer, [(s.group, s.message()) for s in snapshots])
        )

    def label(self, snapshot: Snapshot, changes: int, committed: int | None) -> Snapshot:
        """An update when it is the next version of what this worker sent the group, or carries
        exactly the one change it announces; otherwise a snapshot, which clients take whole
        instead of each asking for a reload after the gap.

        A targeted update names the version it builds on (`base`), and a frame of the version
        alone (`Snapshot.unheard`) makes a page ask for the snapshot: both stay as they are."""
        if snapshot.base is not None or snapshot.unheard:
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
