"""Publishers by shard: `publish_live --shards N` processes share the events' shards under leases;
a process killed or paused loses its shards to the others within seconds, and no page misses a
change or hears one twice."""

from __future__ import annotations

import json
import os
import signal
import subprocess
import sys
import time
from collections.abc import Iterator
from typing import Any

import pytest
import redis
from asgiref.sync import async_to_sync
from channels.db import database_sync_to_async
from channels.testing import WebsocketCommunicator
from django.core.management import CommandError, call_command

from live import delivery
from tests.factories import Table, make_table
from tests.live.publishers import ROOT, holder_pid, publisher_env, start_publisher
from tests.live.sockets import TIMEOUT, open_socket
from tests.waiting import PATIENCE, wait_until, wait_until_async

pytestmark = pytest.mark.django_db(transaction=True)

SHARDS = 3
# The bound: a killed shard's events update again within this long.
TAKEOVER_LIMIT = 5.0


@pytest.fixture
def sharded(settings: Any) -> Iterator[redis.Redis]:
    settings.LIVE_UPDATES = "process"
    settings.LIVE_SHARDS = SHARDS
    client = redis.Redis.from_url(settings.REDIS_URL)
    yield client
    keys = list(client.scan_iter(delivery._redis_key("*")))
    if keys:
        client.delete(*keys)
    client.close()


@pytest.fixture
def processes() -> Iterator[list[subprocess.Popen[bytes]]]:
    """The publishers a test starts; each stopped (or reaped) at the end."""
    started: list[subprocess.Popen[bytes]] = []
    yield started
    for process in started:
        if process.poll() is None:
            os.kill(process.pid, signal.SIGCONT)
            process.send_signal(signal.SIGTERM)
    for process in started:
        process.communicate(timeout=30)


def holders(client: redis.Redis, count: int) -> list[int | None]:
    """Per shard, the process id of its lease's holder."""
    return [holder_pid(client.get(delivery.ShardKeys.of(s, count).lease)) for s in range(count)]


def tables_on_every_shard(count: int, players: int) -> list[Table]:
    """Events until every shard has one, and at least two per shard at most 12 events."""
    tables: list[Table] = []
    while len(tables) < 12:
        tables.append(make_table(players=players, start=True))
        shards = [delivery.shard_of(t.event.pk, count) for t in tables]
        if all(shards.count(s) >= 2 for s in range(count)):
            break
    assert {delivery.shard_of(t.event.pk, count) for t in tables} == set(range(count))
    return tables


def board(table: Table) -> str:
    return f"/ws/events/{table.event.pk}/board/"


class Boards:
    """An open board per event, each frame's version kept as it arrives."""

    def __init__(self, tables: list[Table]) -> None:
        self.tables = tables
        self.sockets: dict[int, WebsocketCommunicator] = {}
        self.versions: dict[int, list[int]] = {}
        self.arrived: dict[tuple[int, int], float] = {}

    async def open(self) -> None:
        for table in self.tables:
            socket = await open_socket(board(table))
            frame = await socket.receive_json_from(timeout=TIMEOUT)
            self.sockets[table.event.pk] = socket
            self.versions[table.event.pk] = [frame["version"]]

    def last(self, table: Table) -> int:
        return self.versions[table.event.pk][-1]

    async def until(self, table: Table, version: int) -> float:
        """Read the board's frames until it shows `version`; when it arrived."""
        event = table.event.pk
        while self.versions[event][-1] < version:
            frame = await self.sockets[event].receive_json_from(timeout=TIMEOUT)
            if frame["stream"] == "board":
                self.versions[event].append(frame["version"])
                self.arrived[(event, frame["version"])] = time.monotonic()
        return self.arrived.get((event, version), time.monotonic())

    async def nothing_more(self, seconds: float) -> None:
        for socket in self.sockets.values():
            assert await socket.receive_nothing(timeout=seconds)

    async def close(self) -> None:
        for socket in self.sockets.values():
            await socket.disconnect()


async def change(table: Table, player_index: int) -> int:
    """A player's starting choice; the event's version it made."""
    await database_sync_to_async(table.choose_start)(table.players[player_index])
    event = await database_sync_to_async(table.refresh)()
    return int(event.version)


def test_three_publishers_split_the_shards_and_a_killed_ones_events_keep_updating(
    sharded: redis.Redis, processes: list[subprocess.Popen[bytes]]
) -> None:
    tables = tables_on_every_shard(SHARDS, players=3)
    assert delivery.wait_until_idle(PATIENCE)  # the set-up's changes, delivered here
    processes += [start_publisher("--shards", str(SHARDS)) for _ in range(3)]
    pids = {p.pid for p in processes}
    # Every shard held, each by another of the three processes: one each.
    wait_until(
        lambda: sorted(filter(None, holders(sharded, SHARDS))) == sorted(pids),
        "each publisher holding one shard",
    )
    assert delivery.shards() == SHARDS
    delivery._changes().checked.clear()  # the servers read the heartbeat again

    async def scenario() -> int:
        boards = Boards(tables)
        await boards.open()
        # Every event's change reaches its board through its shard's publisher.
        made = {t.event.pk: await change(t, 0) for t in tables}
        for table in tables:
            await boards.until(table, made[table.event.pk])

        # Changes to every event, then at once a shard's holder killed mid-run.
        victim_shard = 0
        victim = holders(sharded, SHARDS)[victim_shard]
        assert victim is not None
        made = {t.event.pk: await change(t, 1) for t in tables}
        os.kill(victim, signal.SIGKILL)
        killed_at = time.monotonic()
        # The changes made after the kill reach every board too.
        later = {t.event.pk: await change(t, 2) for t in tables}
        for table in tables:
            await boards.until(table, made[table.event.pk])
            arrived = await boards.until(table, later[table.event.pk])
            if delivery.shard_of(table.event.pk, SHARDS) == victim_shard:
                assert arrived - killed_at < TAKEOVER_LIMIT, arrived - killed_at
        # Nothing arrives twice, nothing late.
        await boards.nothing_more(1.0)
        for table in tables:
            versions = boards.versions[table.event.pk]
            assert versions == sorted(set(versions)), versions  # none twice, in order
            assert versions[-1] == (await database_sync_to_async(table.refresh)()).version
        await boards.close()

        survivors = pids - {victim}
        await wait_until_async(
            lambda: all(h in survivors for h in holders(sharded, SHARDS)),
            "the survivors holding every shard",
        )
        held = holders(sharded, SHARDS)
        assert sorted(held.count(pid) for pid in survivors) == [1, 2]  # a fair split of three
        return victim

    victim = async_to_sync(scenario)()
    killed = next(p for p in processes if p.pid == victim)
    killed.wait(timeout=PATIENCE)
    assert killed.returncode == -signal.SIGKILL


def test_a_publisher_paused_past_its_lease_sends_nothing_after_another_took_over(
    sharded: redis.Redis, processes: list[subprocess.Popen[bytes]], settings: Any
) -> None:
    settings.LIVE_SHARDS = 1
    table = make_table(players=3, start=True)
    assert delivery.wait_until_idle(PATIENCE)
    processes.append(start_publisher("--shards", "1"))
    lease = delivery.ShardKeys.of(0, 1).lease
    wait_until(lambda: holder_pid(sharded.get(lease)) == processes[0].pid, "the first holding")
    processes.append(start_publisher("--shards", "1"))
    first, second = processes
    registry = delivery.publishers_key(1)

    def alive(process: subprocess.Popen[bytes]) -> bool:
        return any(holder_pid(m) == process.pid for m in sharded.zrange(registry, 0, -1))

    wait_until(lambda: alive(second), "the second publisher standing by")
    delivery._changes().checked.clear()

    async def scenario() -> None:
        boards = Boards([table])
        await boards.open()
        # A change, and its holder paused at once: mid-delivery, or with the change in hand.
        made = await change(table, 0)
        os.kill(first.pid, signal.SIGSTOP)
        paused_at = time.monotonic()
        await wait_until_async(
            lambda: holder_pid(sharded.get(lease)) == second.pid, "the second taking over"
        )
        arrived = await boards.until(table, made)
        assert arrived - paused_at < TAKEOVER_LIMIT
        made = await change(table, 1)
        await boards.until(table, made)

        # Back, it finds its lease gone: it sends nothing of what it held, and takes nothing.
        os.kill(first.pid, signal.SIGCONT)
        await wait_until_async(lambda: alive(first), "the first publisher back")
        await boards.nothing_more(2.0)
        made = await change(table, 2)
        await boards.until(table, made)
        await boards.nothing_more(1.0)
        versions = boards.versions[table.event.pk]
        assert versions == sorted(set(versions)), versions
        assert holder_pid(sharded.get(lease)) == second.pid
        await boards.close()

    async_to_sync(scenario)()
    first.send_signal(signal.SIGTERM)
    _, errors = first.communicate(timeout=30)
    assert b"was taken over" in errors, errors.decode()[-2000:]


def test_a_holder_that_lost_its_lease_neither_takes_nor_clears_its_shard(
    sharded: redis.Redis,
) -> None:
    holder = delivery._Shards(1)
    holder.keep()
    keys = delivery.ShardKeys.of(0, 1)
    assert holder.held_shards() == [0]
    job = delivery._Job(1, (2,), 3)
    sharded.rpush(keys.changes, job.encoded())
    assert holder.take(0) == [job]
    assert sharded.lrange(keys.in_flight, 0, -1) == [job.encoded().encode()]

    # Its lease lapses and another holder takes the shard.
    sharded.set(keys.lease, b"another", px=int(delivery.LEASE_SECONDS * 1000))
    sharded.rpush(keys.changes, delivery._Job(1, (2,), 4).encoded())
    holder.kept = float("-inf")  # its next renewal, due now
    assert not holder.holds(1)
    assert holder.take(0) == []
    holder.done([job])
    # Left for the new holder: the change in flight and the one on the list.
    assert sharded.lrange(keys.in_flight, 0, -1) == [job.encoded().encode()]
    assert sharded.llen(keys.changes) == 1
    holder.give_back_all()
    assert sharded.get(keys.lease) == b"another"  # released only by its holder


def test_a_new_holder_delivers_what_was_left_in_flight_and_knows_what_was_sent(
    sharded: redis.Redis,
) -> None:
    keys = delivery.ShardKeys.of(0, 1)
    left = delivery._Job(7, (8,), 9)
    sharded.rpush(keys.in_flight, left.encoded())
    sharded.hset(keys.sent, mapping={"event.7": 9})
    holder = delivery._Shards(1)
    holder.keep()
    assert holder.take(0) == [left]
    assert holder.sent_before() == {"event.7": 9}
    holder.done([left])
    assert sharded.llen(keys.in_flight) == 0
    holder.give_back_all()
    assert not sharded.exists(keys.lease)


def test_the_command_refuses_a_shard_count_below_one(sharded: redis.Redis) -> None:
    with pytest.raises(CommandError, match="--shards must be 1 or more"):
        call_command("publish_live", shards=0)
    assert not list(sharded.scan_iter(delivery._redis_key("*")))  # nothing claimed


def test_every_process_routes_an_event_to_the_same_shard() -> None:
    """Servers and publishers in other processes (another hash seed) agree on each event's
    shard, and the events split about evenly."""
    ids = list(range(1, 3001))
    here = [delivery.shard_of(event_id, 3) for event_id in ids]
    code = "from live.delivery import shard_of; print([shard_of(i, 3) for i in range(1, 3001)])"
    there = subprocess.run(
        [sys.executable, "manage.py", "shell", "-c", code],
        cwd=ROOT,
        env={**publisher_env(), "PYTHONHASHSEED": "12345"},
        capture_output=True,
        check=True,
        timeout=PATIENCE,
    )
    assert json.loads(there.stdout.decode().strip().splitlines()[-1]) == here
    assert min(here.count(shard) for shard in range(3)) > 900
