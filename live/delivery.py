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
import socket
import threading
import time
import uuid
import zlib
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

    def done(self, jobs: list[_Job]) -> None:
        """These changes taken have been delivered (or given up on)."""
        ...

    def idle(self) -> bool:
        """Nothing is waiting to be taken."""
        ...

    def holds(self, event_id: int) -> bool:
        """Whether this worker may send the event's frames now (a publisher: while it surely
        holds the event's shard)."""
        ...

    def sent(self, event_id: int, versions: dict[str, int]) -> None:
        """The event's groups were sent these versions."""
        ...

    def sent_before(self) -> dict[str, int]:
        """The versions sent per group by the last holder of what this source just took over."""
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

    def done(self, jobs: list[_Job]) -> None:
        for _ in jobs:
            self.queue.task_done()

    def idle(self) -> bool:
        return self.queue.empty()

    def holds(self, event_id: int) -> bool:
        return True  # its own changes

    def sent(self, event_id: int, versions: dict[str, int]) -> None:
        pass  # kept in the worker alone

    def sent_before(self) -> dict[str, int]:
        return {}


# --- the publishers ("process") ------------------------------------------------------------------
# The events are split into `LIVE_SHARDS` shards by a stable hash of their id (`shard_of`). Every
# server process appends each committed change to its event's shard's Redis list; the publishers
# (`manage.py publish_live --shards N`, as many processes as wanted) share the shards: each holds
# some under a lease it renews, takes its shards' changes in order and delivers them.
#
# - A lease is a key holding its holder's token for LEASE_SECONDS, taken with SET NX, renewed
#   every LEASE_EVERY and released only by its holder (atomically, `_LEASED`). Each publisher
#   claims about N / (live publishers) shards, and any shard whose lease lapsed: a publisher that
#   stops renewing (killed, paused, cut off) loses its shards to the others within seconds.
# - A change taken from a shard's list moves, atomically and only while the lease is held, into
#   the shard's in-flight list, and leaves it once delivered: a new holder first delivers what
#   the last one left in flight. A delivery reads the newest state, so delivering again is safe.
# - The versions sent per group are kept with the shard (`sent`), so a new holder skips what its
#   predecessor already sent and labels the next frame as the one before would have.
# - A holder sends only while its lease is surely its own: until LEASE_SECONDS - LEASE_MARGIN
#   after it last renewed it. A publisher that was paused past its lease finds it gone and sends
#   nothing of it.
#
# Every publisher also marks the deployment alive every HEARTBEAT_EVERY seconds, for
# HEARTBEAT_SECONDS: a server that finds no mark for its shard count delivers its own changes (as
# "background") until a publisher is back; while one is, a shard without holder keeps its changes
# on its list for the publisher that takes it within seconds. The lists are capped at QUEUE_LIMIT
# changes and expire a day after the last one: a change left behind by publishers that are gone
# only costs a read of the newest state when one starts again.
HEARTBEAT_SECONDS = 5.0
HEARTBEAT_EVERY = 1.0
LEASE_SECONDS = 3.0
LEASE_EVERY = 0.5  # renewing the leases, claiming free shards
LEASE_MARGIN = 0.5  # a holder stops sending this long before its lease would lapse in Redis
# While a publisher holds several shards it waits on one list and looks at the others this often.
POLL_SECONDS = 0.05
QUEUE_LIMIT = 100_000
QUEUE_SECONDS = 24 * 3600
# How many changes a publisher takes from a list at once.
TAKE_AT_MOST = 1_000


def shards() -> int:
    """The deployment's shard count (`settings.LIVE_SHARDS`): how servers route changes, and
    how many shards the publishers split the events into by default."""
    return max(1, int(getattr(settings, "LIVE_SHARDS", 1)))


def shard_of(event_id: int, count: int) -> int:
    """The shard of an event among `count`: stable across processes and machines."""
    return zlib.crc32(str(event_id).encode()) % count


def _redis_key(name: str) -> str:
    """A key beside the channel layer's own (its prefix: CHANNELS_PREFIX)."""
    layers: dict[str, Any] = settings.CHANNEL_LAYERS
    prefix = layers.get("default", {}).get("CONFIG", {}).get("prefix", "asgi")
    return f"{prefix}:live:{name}"


def heartbeat_key(count: int) -> str:
    """Set while a publisher of `count` shards is alive."""
    return _redis_key(f"publisher:{count}")


def publishers_key(count: int) -> str:
    """The live publishers of `count` shards (a sorted set: token, until when)."""
    return _redis_key(f"publishers:{count}")


@dataclass(frozen=True, slots=True)
class ShardKeys:
    """One shard's keys in Redis."""

    changes: str  # the list the servers append to
    in_flight: str  # taken by the holder, not yet delivered
    lease: str  # the holder's token
    sent: str  # per group, the last version sent

    @classmethod
    def of(cls, shard: int, count: int) -> ShardKeys:
        base = f"shard:{count}:{shard}"
        return cls(
            *(_redis_key(f"{base}:{name}") for name in ("changes", "in-flight", "lease", "sent"))
        )


class _Changes:
    """The servers' side: each committed change onto its event's shard's list."""

    def __init__(self) -> None:
        self.pid = os.getpid()
        self.url = str(settings.REDIS_URL)
        self.client = redis.Redis.from_url(self.url, socket_timeout=5, socket_connect_timeout=2)
        self.prefix = _redis_key("")
        # Per shard count, whether a publisher's heartbeat was seen, and when it was read.
        self.alive: dict[int, bool] = {}
        self.checked: dict[int, float] = {}

    def publisher_alive(self, count: int) -> bool:
        now = time.monotonic()
        if now - self.checked.get(count, float("-inf")) >= HEARTBEAT_EVERY:
            self.checked[count] = now
            try:
                self.alive[count] = bool(self.client.exists(heartbeat_key(count)))
            except redis.RedisError:
                self.alive[count] = False
        return self.alive.get(count, False)

    def hand_over(self, job: _Job) -> bool:
        """Queue the change for its shard's publisher; False when no publisher answers (the
        caller then delivers it itself)."""
        count = shards()
        if not self.publisher_alive(count):
            return False
        key = ShardKeys.of(shard_of(job.event_id, count), count).changes
        try:
            with self.client.pipeline(transaction=False) as pipe:
                pipe.rpush(key, job.encoded())
                pipe.ltrim(key, -QUEUE_LIMIT, -1)
                pipe.expire(key, QUEUE_SECONDS)
                pipe.execute()
        except redis.RedisError:
            logger.warning("Could not hand event %s's change to the publisher.", job.event_id)
            self.alive[count] = False
            return False
        return True


_changes_client: _Changes | None = None


def _changes() -> _Changes:
    """This process's handle on the lists (again after a fork, or when REDIS_URL changed)."""
    global _changes_client
    current = _changes_client
    if (
        current is None
        or current.pid != os.getpid()
        or current.url != settings.REDIS_URL
        or current.prefix != _redis_key("")
    ):
        current = _changes_client = _Changes()
    return current


# Each runs atomically in Redis: the lease is checked and its keys used in one step.
_RENEW = """
if redis.call('GET', KEYS[1]) == ARGV[1] then
  return redis.call('PEXPIRE', KEYS[1], ARGV[2])
end
return 0
"""
_RELEASE = """
if redis.call('GET', KEYS[1]) == ARGV[1] then
  return redis.call('DEL', KEYS[1])
end
return 0
"""
# KEYS: lease, changes, in-flight; ARGV: token, at most. The changes taken, oldest first; none
# unless the lease is the caller's.
_TAKE = """
if redis.call('GET', KEYS[1]) ~= ARGV[1] then
  return false
end
local taken = {}
for i = 1, tonumber(ARGV[2]) do
  local entry = redis.call('LMOVE', KEYS[2], KEYS[3], 'LEFT', 'RIGHT')
  if not entry then break end
  taken[#taken + 1] = entry
end
if #taken > 0 then
  redis.call('EXPIRE', KEYS[3], ARGV[3])
end
return taken
"""
# KEYS: lease, in-flight; ARGV: token, then the delivered entries. Removed only by the holder: a
# holder that lost its lease leaves them for the new one.
_DONE = """
if redis.call('GET', KEYS[1]) ~= ARGV[1] then
  return 0
end
for i = 2, #ARGV do
  redis.call('LREM', KEYS[2], 1, ARGV[i])
end
return 1
"""
# KEYS: the live publishers; ARGV: token, lease in ms. Marks the caller alive and counts the live.
_ALIVE = """
local now = redis.call('TIME')
local ms = tonumber(now[1]) * 1000 + math.floor(tonumber(now[2]) / 1000)
redis.call('ZREMRANGEBYSCORE', KEYS[1], '-inf', ms)
redis.call('ZADD', KEYS[1], ms + tonumber(ARGV[2]), ARGV[1])
redis.call('PEXPIRE', KEYS[1], ARGV[2] * 10)
return redis.call('ZCARD', KEYS[1])
"""


class _NotHolder(Exception):
    """The shard's lease is no longer surely this publisher's: it sends nothing of it."""


class _Shards:
    """A publisher's side (`_Source`): the shards it holds, their lists and leases."""

    def __init__(self, count: int) -> None:
        self.pid = os.getpid()
        self.count = count
        self.client = redis.Redis.from_url(
            str(settings.REDIS_URL), socket_timeout=5, socket_connect_timeout=2
        )
        self.token = f"{self.pid}@{socket.gethostname()}:{uuid.uuid4().hex[:8]}"
        self.keys = [ShardKeys.of(shard, count) for shard in range(count)]
        # Per shard held, until when (monotonic) its lease is surely this publisher's.
        self.held: dict[int, float] = {}
        # Shards seen without a holder at the last claim: anyone takes them now.
        self.unheld: set[int] = set()
        self.live = 1  # publishers alive, this one included
        self.kept = float("-inf")
        self.beaten = float("-inf")
        # What a shard taken over brings: the changes its last holder left in flight, and the
        # versions it sent per group.
        self.adopted: list[_Job] = []
        self.adopted_sent: dict[str, int] = {}
        self.quiet = False  # the last take waited and found nothing
        self.turn = 0  # which held shard's list the next wait blocks on
        self.renew_script = self.client.register_script(_RENEW)
        self.release_script = self.client.register_script(_RELEASE)
        self.take_script = self.client.register_script(_TAKE)
        self.done_script = self.client.register_script(_DONE)
        self.alive_script = self.client.register_script(_ALIVE)

    # --- leases

    def keep(self) -> None:
        """Every LEASE_EVERY: mark this publisher alive, renew its leases, claim its share of
        the shards (and any shard left without holder), give back what is beyond its share."""
        now = time.monotonic()
        if now - self.kept < LEASE_EVERY:
            return
        self.kept = now
        lease_ms = int(LEASE_SECONDS * 1000)
        try:
            self.live = max(
                1, int(self.alive_script([publishers_key(self.count)], [self.token, lease_ms]))
            )
            for shard in list(self.held):
                if self.renew_script([self.keys[shard].lease], [self.token, lease_ms]):
                    self.held[shard] = now + LEASE_SECONDS - LEASE_MARGIN
                else:
                    logger.warning("Live updates: shard %s/%s was taken over.", shard, self.count)
                    del self.held[shard]
            share = -(-self.count // self.live)
            while len(self.held) > share:
                self.give_back(max(self.held))
            unheld = set()
            start = zlib.crc32(self.token.encode()) % self.count
            for shard in [(start + n) % self.count for n in range(self.count)]:
                if shard in self.held:
                    continue
                wanted = len(self.held) < share or shard in self.unheld
                if wanted and self.client.set(
                    self.keys[shard].lease, self.token, nx=True, px=lease_ms
                ):
                    self.held[shard] = now + LEASE_SECONDS - LEASE_MARGIN
                    self.adopt(shard)
                    continue
                if not self.client.exists(self.keys[shard].lease):
                    unheld.add(shard)
            self.unheld = unheld
        except redis.RedisError:
            logger.warning("Live updates: could not renew the shards' leases; trying again.")

    def adopt(self, shard: int) -> None:
        """A shard just taken: what its last holder left in flight, and what it sent."""
        keys = self.keys[shard]
        left = self.client.lrange(keys.in_flight, 0, -1)
        sent = self.client.hgetall(keys.sent)
        self.adopted += [job for job in map(_Job.decoded, left) if job is not None]
        for group, version in sent.items():
            with contextlib.suppress(ValueError):
                self.adopted_sent[group.decode() if isinstance(group, bytes) else group] = int(
                    version
                )
        logger.info(
            "Live updates: holding shard %s/%s (%s changes in flight).",
            shard,
            self.count,
            len(left),
        )

    def give_back(self, shard: int) -> None:
        self.held.pop(shard, None)
        with contextlib.suppress(redis.RedisError):
            self.release_script([self.keys[shard].lease], [self.token])

    def give_back_all(self) -> None:
        for shard in list(self.held):
            self.give_back(shard)
        with contextlib.suppress(redis.RedisError):
            self.client.zrem(publishers_key(self.count), self.token)

    def beat(self) -> None:
        """The deployment's publishers are alive (what servers look for)."""
        now = time.monotonic()
        if now - self.beaten >= HEARTBEAT_EVERY:
            try:
                self.client.set(heartbeat_key(self.count), self.token, ex=int(HEARTBEAT_SECONDS))
                self.beaten = now
            except redis.RedisError:
                logger.warning("Could not mark the publisher alive.")

    def stop_beating(self) -> None:
        with contextlib.suppress(redis.RedisError):
            others = self.client.zcard(publishers_key(self.count))
            if not others and self.client.get(heartbeat_key(self.count)) == self.token.encode():
                self.client.delete(heartbeat_key(self.count))

    def held_shards(self) -> list[int]:
        now = time.monotonic()
        return sorted(shard for shard, until in self.held.items() if until > now)

    # --- as a worker's source (`_Source`)

    def holds(self, event_id: int) -> bool:
        self.keep()
        return self.held.get(shard_of(event_id, self.count), float("-inf")) > time.monotonic()

    def take(self, timeout: float | None) -> list[_Job]:
        self.keep()
        self.beat()
        if self.adopted:
            adopted, self.adopted = self.adopted, []
            return adopted
        # Wake at least every LEASE_EVERY to keep the leases.
        wait = LEASE_EVERY if timeout is None else min(timeout, LEASE_EVERY)
        self.quiet = False
        held = self.held_shards()
        try:
            raw = self.take_from(held)
            if raw or wait <= 0:
                return self.decoded(raw)
            if not held:
                time.sleep(wait)
                self.quiet = timeout is None
                return []
            # Wait on one list (a change there wakes it at once), the others looked at again
            # after POLL_SECONDS; never past the lease, so nothing moves once another holds it.
            shard = held[self.turn % len(held)]
            self.turn += 1
            if len(held) > 1:
                wait = min(wait, POLL_SECONDS)
            wait = min(wait, self.held.get(shard, 0.0) - time.monotonic())
            if wait > 0:
                keys = self.keys[shard]
                # Redis takes a decimal timeout.
                first = self.client.blmove(keys.changes, keys.in_flight, wait, "LEFT", "RIGHT")  # type: ignore[arg-type]
                if isinstance(first, bytes):
                    raw = [first, *self.take_from(held)]
            if not raw:
                self.quiet = timeout is None
        except redis.RedisError:
            logger.warning("Could not read the live updates' lists; trying again.")
            time.sleep(HEARTBEAT_EVERY)
            return []
        return self.decoded(raw)

    def take_from(self, held: list[int]) -> list[bytes]:
        raw: list[bytes] = []
        for shard in held:
            keys = self.keys[shard]
            taken = self.take_script(
                [keys.lease, keys.changes, keys.in_flight],
                [self.token, TAKE_AT_MOST, QUEUE_SECONDS],
            )
            raw += taken or []
        return raw

    @staticmethod
    def decoded(raw: list[bytes]) -> list[_Job]:
        return [job for job in map(_Job.decoded, raw) if job is not None]

    def done(self, jobs: list[_Job]) -> None:
        by_shard: dict[int, list[str]] = {}
        for job in jobs:
            by_shard.setdefault(shard_of(job.event_id, self.count), []).append(job.encoded())
        for shard, entries in by_shard.items():
            keys = self.keys[shard]
            try:
                self.done_script([keys.lease, keys.in_flight], [self.token, *entries])
            except redis.RedisError:
                logger.warning("Could not clear shard %s's delivered changes.", shard)

    def sent(self, event_id: int, versions: dict[str, int]) -> None:
        key = self.keys[shard_of(event_id, self.count)].sent
        try:
            with self.client.pipeline(transaction=False) as pipe:
                fields: dict[Any, Any] = versions  # group -> version
                pipe.hset(key, mapping=fields)
                pipe.expire(key, QUEUE_SECONDS)
                pipe.execute()
        except redis.RedisError:
            logger.warning("Could not keep what event %s's pages were sent.", event_id)

    def sent_before(self) -> dict[str, int]:
        sent, self.adopted_sent = self.adopted_sent, {}
        return sent

    def idle(self) -> bool:
        return self.quiet  # a whole wait went by with nothing to deliver


def serve(stop: threading.Event | None = None, count: int | None = None) -> None:
    """A publisher process's loop (`manage.py publish_live`): until `stop` is set, deliver what
    the committed changes of the shards it holds call for, among `count` shards (by default
    `settings.LIVE_SHARDS`)."""
    count = shards() if count is None else count
    if count != shards():
        logger.warning(
            "Live updates: publishing %s shards while the servers route by LIVE_SHARDS=%s; "
            "they deliver their own changes until both agree.",
            count,
            shards(),
        )
    source = _Shards(count)
    source.keep()
    source.beat()
    logger.info("Live updates: the publisher is serving (%s shards).", count)
    worker = _Worker(source)
    try:
        worker.run(stop)
    finally:
        source.give_back_all()
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
            self.sent.update(self.source.sent_before())  # a shard taken over: what was sent
            now = time.monotonic()
            for event_id in [e for e in waiting if self.due.get(e, 0.0) <= now]:
                jobs = waiting.pop(event_id)
                if not self.source.holds(event_id):
                    continue  # its shard's new holder delivers them (they are in its flight)
                started = time.monotonic()
                try:
                    self.deliver(jobs)
                finally:
                    # A change after a quiet spell went out at once; the event's next delivery
                    # waits the interval, or longer in proportion when this one took long (a
                    # busy process), so live updates never crowd out the requests.
                    spent = time.monotonic() - started
                    self.due[event_id] = started + max(interval(), rest_per_work() * spent)
                    self.source.done(jobs)
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
                if not labelled:
                    return
                if not self.source.holds(event_id):
                    raise _NotHolder  # fenced: another publisher holds the shard now
                try:
                    self.send(labelled)
                except Exception:
                    # A Redis connection that died (a restart) fails once; the retry reconnects.
                    logger.warning("Live update for event %s: sending again.", event_id)
                    self.send(labelled)
                for snapshot in labelled:
                    self.sent.pop(snapshot.group, None)  # re-insert: the dict stays oldest-first
                    self.sent[snapshot.group] = snapshot.version
                self.source.sent(event_id, {s.group: s.version for s in labelled})

            try:
                close_old_connections()
                # Phones and boards are sent their part before House's is read.
                send_now(
                    targeting.change_snapshots(event_id, registration_ids, self.fresh, send_now)
                )
            except _NotHolder:
                logger.info("Live update for event %s left to its shard's new holder.", event_id)
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
