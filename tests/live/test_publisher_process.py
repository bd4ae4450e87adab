"""LIVE_UPDATES=process: the servers hand each committed change to the publisher's process
through Redis, and deliver it themselves while no publisher answers."""

from __future__ import annotations

import json
import signal
import threading
from collections.abc import Iterator
from pathlib import Path
from typing import Any

import pytest
import redis
from asgiref.sync import async_to_sync
from channels.db import database_sync_to_async

from live import delivery
from tests.factories import make_table
from tests.live.publishers import holder_pid, start_publisher
from tests.live.sockets import TIMEOUT, open_socket
from tests.waiting import PATIENCE, wait_until

pytestmark = pytest.mark.django_db(transaction=True)

ROOT = Path(__file__).resolve().parents[2]


def board(event_id: int) -> str:
    return f"/ws/events/{event_id}/board/"


@pytest.fixture
def process_mode(settings: Any) -> Iterator[redis.Redis]:
    settings.LIVE_UPDATES = "process"
    client = redis.Redis.from_url(settings.REDIS_URL)
    yield client
    keys = list(client.scan_iter(delivery._redis_key("*")))
    if keys:
        client.delete(*keys)
    client.close()


@pytest.fixture
def publisher() -> Iterator[threading.Thread]:
    """The publisher's loop on a thread of its own (a process of its own in production)."""
    stop = threading.Event()
    thread = threading.Thread(target=delivery.serve, args=(stop,), name="publisher", daemon=True)
    thread.start()
    yield thread
    stop.set()
    thread.join(timeout=10)
    assert not thread.is_alive()


def queued(client: redis.Redis) -> list[list[Any]]:
    """The changes waiting on the one shard's list (LIVE_SHARDS=1)."""
    key = delivery.ShardKeys.of(0, 1).changes
    return [json.loads(raw) for raw in client.lrange(key, 0, -1)]


def seem_alive(client: redis.Redis) -> None:
    """A publisher's heartbeat, as the servers look for it, read again now."""
    client.set(delivery.heartbeat_key(1), "a publisher", ex=int(delivery.HEARTBEAT_SECONDS))
    delivery._changes().checked.clear()


def a_change_reaches_the_board(table: Any) -> None:
    """A player's starting choice shows on an open board as the next version."""

    async def scenario() -> None:
        socket = await open_socket(board(table.event.pk))
        version = (await socket.receive_json_from(timeout=TIMEOUT))["version"]
        await database_sync_to_async(table.choose_start)(table.players[0])
        frame = await socket.receive_json_from(timeout=TIMEOUT)
        assert (frame["stream"], frame["version"]) == ("board", version + 1)
        await socket.disconnect()

    async_to_sync(scenario)()


def test_a_change_waits_on_the_list_for_the_publisher_and_reaches_the_board(
    process_mode: redis.Redis,
) -> None:
    table = make_table(players=2, start=True)
    assert delivery.wait_until_idle(
        PATIENCE
    )  # the set-up's own changes, delivered here (no publisher yet)
    client = process_mode
    seem_alive(client)  # a publisher was seen alive: the servers hand their changes over
    player = table.players[0]
    registration = table.rid(player)

    async def scenario() -> None:
        socket = await open_socket(board(table.event.pk))
        version = (await socket.receive_json_from(timeout=TIMEOUT))["version"]
        await database_sync_to_async(table.choose_start)(player)
        # Handed over, not delivered here: no frame until a publisher takes it.
        assert await socket.receive_nothing(timeout=0.3)
        assert queued(client) == [[table.event.pk, [registration], version + 1]]

        stop = threading.Event()
        thread = threading.Thread(target=delivery.serve, args=(stop,), daemon=True)
        thread.start()
        try:
            frame = await socket.receive_json_from(timeout=TIMEOUT)
        finally:
            stop.set()
            await database_sync_to_async(thread.join)(10)
        assert (frame["type"], frame["stream"], frame["version"]) == (
            "update",
            "board",
            version + 1,
        )
        assert queued(client) == []
        await socket.disconnect()

    async_to_sync(scenario)()


def test_a_burst_of_changes_reaches_the_board_in_order_through_the_publisher(
    process_mode: redis.Redis, publisher: threading.Thread
) -> None:
    table = make_table(players=3, start=True)
    assert delivery.wait_until_idle(PATIENCE)
    wait_until(lambda: process_mode.exists(delivery.heartbeat_key(1)), "the heartbeat")

    async def scenario() -> None:
        socket = await open_socket(board(table.event.pk))
        version = (await socket.receive_json_from(timeout=TIMEOUT))["version"]
        for player in table.players:
            await database_sync_to_async(table.choose_start)(player)
        seen = version
        while seen < version + 3:
            frame = await socket.receive_json_from(timeout=TIMEOUT)
            assert frame["version"] > seen
            seen = frame["version"]
        assert seen == version + 3
        await socket.disconnect()

    async_to_sync(scenario)()
    assert queued(process_mode) == []


def test_without_a_publisher_the_server_delivers_its_own_changes(
    process_mode: redis.Redis,
) -> None:
    table = make_table(players=2, start=True)
    assert delivery.wait_until_idle(PATIENCE)
    process_mode.delete(delivery.heartbeat_key(1))
    delivery._changes().checked.clear()  # read the heartbeat again, as a second later

    a_change_reaches_the_board(table)
    assert delivery.wait_until_idle(PATIENCE)
    assert queued(process_mode) == []


def test_a_queued_entry_that_is_not_a_change_is_skipped(
    process_mode: redis.Redis, publisher: threading.Thread
) -> None:
    table = make_table(players=2, start=True)
    assert delivery.wait_until_idle(PATIENCE)
    key = delivery.ShardKeys.of(0, 1).changes

    async def scenario() -> None:
        socket = await open_socket(board(table.event.pk))
        version = (await socket.receive_json_from(timeout=TIMEOUT))["version"]
        process_mode.rpush(key, b"not json", b'["x", [], null]')
        seem_alive(process_mode)
        await database_sync_to_async(table.choose_start)(table.players[0])
        frame = await socket.receive_json_from(timeout=TIMEOUT)
        assert frame["version"] == version + 1
        await socket.disconnect()

    async_to_sync(scenario)()
    # The unreadable entries were skipped, not left blocking the queue: it drains (a change the
    # start queued after the frame, on a loaded machine, is taken on the publisher's next beat).
    wait_until(lambda: queued(process_mode) == [], "the queue of changes drained")


def test_the_command_serves_until_sigterm_and_then_clears_its_heartbeat(
    process_mode: redis.Redis,
) -> None:
    table = make_table(players=2, start=True)
    assert delivery.wait_until_idle(PATIENCE)
    process = start_publisher("--nice", "5")
    heartbeat = delivery.heartbeat_key(1)
    lease = delivery.ShardKeys.of(0, 1).lease
    try:
        wait_until(lambda: holder_pid(process_mode.get(heartbeat)) == process.pid, "its heartbeat")
        assert holder_pid(process_mode.get(lease)) == process.pid
        delivery._changes().checked.clear()

        a_change_reaches_the_board(table)
        assert queued(process_mode) == []
    finally:
        process.send_signal(signal.SIGTERM)
        _, errors = process.communicate(timeout=15)
    assert process.returncode == 0, errors.decode()
    assert not process_mode.exists(heartbeat)
    assert not process_mode.exists(lease)  # given back, for another publisher to take at once
