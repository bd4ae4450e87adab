"""`live.delivery.announce`: after the commit, once per change, in the chosen delivery mode."""

from __future__ import annotations

import threading
import time
from typing import Any

import pytest
from asgiref.sync import async_to_sync, sync_to_async
from channels.db import database_sync_to_async
from django.db import connection, connections

from live import delivery, protocol, targeting
from tests.factories import make_table
from tests.live.sockets import TIMEOUT, open_socket
from tests.waiting import PATIENCE

pytestmark = pytest.mark.django_db(transaction=True)


def board(event_id: int) -> str:
    return f"/ws/events/{event_id}/board/"


def committed_version(event_id: int) -> int:
    """The event's version as another connection sees it: only what has committed."""
    other = connections.create_connection("default")
    try:
        with other.cursor() as cursor:
            cursor.execute("SELECT version FROM events_event WHERE id = %s", [event_id])
            return int(cursor.fetchone()[0])
    finally:
        other.close()


def test_it_sends_only_after_the_commit(monkeypatch: pytest.MonkeyPatch) -> None:
    table = make_table(players=2, start=True)
    observed: list[tuple[bool, int, int]] = []
    real_send = delivery.send

    def watched(snapshots: list[protocol.Snapshot]) -> None:
        version = snapshots[0].version
        observed.append((connection.in_atomic_block, version, committed_version(table.event.pk)))
        real_send(snapshots)

    monkeypatch.setattr(delivery, "send", watched)
    table.choose_start(table.players[0])
    table.report(table.players[0], 1, "loss")
    version = table.refresh().version
    assert observed == [(False, version - 1, version - 1), (False, version, version)]


def test_background_mode_does_not_make_the_change_wait(
    settings: Any, monkeypatch: pytest.MonkeyPatch
) -> None:
    table = make_table(players=2, start=True)
    settings.LIVE_UPDATES = "background"
    entered, gate = threading.Event(), threading.Event()
    real = targeting.change_snapshots

    def held(*args: Any, **kwargs: Any) -> list[protocol.Snapshot]:
        entered.set()
        gate.wait(TIMEOUT)
        return real(*args, **kwargs)

    monkeypatch.setattr(targeting, "change_snapshots", held)

    async def scenario() -> None:
        socket = await open_socket(board(table.event.pk))
        version = (await socket.receive_json_from(timeout=TIMEOUT))["version"]
        try:
            # The change returns while the worker is still held inside the snapshot.
            await database_sync_to_async(table.choose_start)(table.players[0])
            assert await sync_to_async(entered.wait, thread_sensitive=False)(TIMEOUT)
            assert await socket.receive_nothing(timeout=0.2)
        finally:
            gate.set()
        frame = await socket.receive_json_from(timeout=TIMEOUT)
        assert (frame["type"], frame["version"]) == ("update", version + 1)
        await socket.disconnect()

    async_to_sync(scenario)()


def test_a_burst_of_changes_costs_one_snapshot_per_event(
    settings: Any, monkeypatch: pytest.MonkeyPatch
) -> None:
    table = make_table(players=3, start=True)
    settings.LIVE_UPDATES = "background"
    entered, gate = threading.Event(), threading.Event()
    calls: list[set[int]] = []
    real = targeting.change_snapshots

    def counted(event_id: int, registration_ids: Any, *rest: Any) -> list[protocol.Snapshot]:
        calls.append(set(registration_ids))
        entered.set()
        gate.wait(TIMEOUT)
        return real(event_id, registration_ids, *rest)

    monkeypatch.setattr(targeting, "change_snapshots", counted)
    ids = [table.rid(p) for p in table.players]

    async def scenario() -> None:
        socket = await open_socket(board(table.event.pk))
        version = (await socket.receive_json_from(timeout=TIMEOUT))["version"]
        try:
            first, *others = table.players
            await database_sync_to_async(table.choose_start)(first)
            assert await sync_to_async(entered.wait, thread_sensitive=False)(TIMEOUT)
            for player in others:
                await database_sync_to_async(table.choose_start)(player)
        finally:
            gate.set()
        # The first job read the newest state; the two queued behind it were merged. It carries
        # three changes: a snapshot, which the client takes whole (no gap, no reload).
        frame = await socket.receive_json_from(timeout=TIMEOUT)
        assert (frame["type"], frame["version"]) == ("snapshot", version + 3)
        assert await socket.receive_nothing(timeout=0.3)
        await socket.disconnect()

    async_to_sync(scenario)()
    assert delivery.wait_until_idle(PATIENCE)
    assert calls == [{ids[0]}, {ids[1], ids[2]}]


def test_deliveries_for_a_busy_event_are_spaced_by_the_interval(
    settings: Any, monkeypatch: pytest.MonkeyPatch
) -> None:
    table = make_table(players=3, start=True)
    settings.LIVE_UPDATES = "background"
    settings.LIVE_UPDATES_INTERVAL = 2.0
    entered, gate = threading.Event(), threading.Event()
    stamps: list[tuple[float, set[int]]] = []
    real = targeting.change_snapshots

    def stamped(event_id: int, registration_ids: Any, *rest: Any) -> list[protocol.Snapshot]:
        stamps.append((time.monotonic(), set(registration_ids)))
        if len(stamps) == 1:
            entered.set()
            gate.wait(PATIENCE)
        return real(event_id, registration_ids, *rest)

    monkeypatch.setattr(targeting, "change_snapshots", stamped)
    ids = [table.rid(p) for p in table.players]
    first, *others = table.players

    before_first = time.monotonic()
    try:
        table.choose_start(first)
        # The first change went out at once: its delivery is under way while the others come.
        assert entered.wait(PATIENCE)
        for player in others:
            table.choose_start(player)
    finally:
        gate.set()

    assert delivery.wait_until_idle(PATIENCE)
    # The next two waited out the interval, together. The first delivery started after
    # `before_first`, so measuring from there can only shorten the gap: a busy machine never
    # makes this fail.
    assert [touched for _, touched in stamps] == [{ids[0]}, {ids[1], ids[2]}]
    assert stamps[1][0] - before_first >= settings.LIVE_UPDATES_INTERVAL


def test_after_a_slow_delivery_the_worker_rests_in_proportion(
    settings: Any, monkeypatch: pytest.MonkeyPatch
) -> None:
    table = make_table(players=2, start=True)
    settings.LIVE_UPDATES = "background"
    settings.LIVE_UPDATES_INTERVAL = 0.05
    starts: list[float] = []
    real = targeting.change_snapshots

    def slow(event_id: int, registration_ids: Any, *rest: Any) -> list[protocol.Snapshot]:
        starts.append(time.monotonic())
        time.sleep(0.2)  # the work itself, not a wait: computing this delivery took long
        return real(event_id, registration_ids, *rest)

    monkeypatch.setattr(targeting, "change_snapshots", slow)

    first, second = table.players
    table.choose_start(first)
    assert delivery.wait_until_idle(PATIENCE)  # the first delivery is over
    table.choose_start(second)

    assert delivery.wait_until_idle(PATIENCE)
    assert len(starts) == 2
    # The rest is counted from the first delivery's start and covers at least the 0.2 s spent
    # inside it, so it is a lower bound a busy machine only lengthens.
    assert starts[1] - starts[0] >= delivery.rest_per_work() * 0.2 * 0.95


def test_a_failed_update_is_logged_and_the_next_one_is_sent(
    settings: Any, monkeypatch: pytest.MonkeyPatch, caplog: pytest.LogCaptureFixture
) -> None:
    table = make_table(players=2, start=True)
    settings.LIVE_UPDATES = "background"
    real = targeting.change_snapshots
    failures = [RuntimeError("the snapshot broke")]

    def flaky(*args: Any, **kwargs: Any) -> list[protocol.Snapshot]:
        if failures:
            raise failures.pop()
        return real(*args, **kwargs)

    monkeypatch.setattr(targeting, "change_snapshots", flaky)

    async def scenario() -> None:
        socket = await open_socket(board(table.event.pk))
        version = (await socket.receive_json_from(timeout=TIMEOUT))["version"]
        await database_sync_to_async(table.choose_start)(table.players[0])
        assert await sync_to_async(delivery.wait_until_idle, thread_sensitive=False)()
        assert await socket.receive_nothing(timeout=0.2)
        await database_sync_to_async(table.choose_start)(table.players[1])
        # The lost version is a gap: the client reloads.
        frame = await socket.receive_json_from(timeout=TIMEOUT)
        assert frame["version"] == version + 2
        await socket.disconnect()

    async_to_sync(scenario)()
    assert "Live update for event" in caplog.text
    assert "the snapshot broke" in caplog.text


def test_an_inline_failure_never_reaches_the_request(
    monkeypatch: pytest.MonkeyPatch, caplog: pytest.LogCaptureFixture
) -> None:
    table = make_table(players=2, start=True)

    def broken(*args: Any, **kwargs: Any) -> list[protocol.Snapshot]:
        raise RuntimeError("the snapshot broke")

    monkeypatch.setattr(targeting, "change_snapshots", broken)
    answer = table.choose_start(table.players[0])
    assert len(answer.kept) == 1
    assert "the snapshot broke" in caplog.text


def test_off_sends_nothing(settings: Any) -> None:
    table = make_table(players=2, start=True)
    settings.LIVE_UPDATES = "off"

    async def scenario() -> None:
        socket = await open_socket(board(table.event.pk))
        version = (await socket.receive_json_from(timeout=TIMEOUT))["version"]
        await database_sync_to_async(table.choose_start)(table.players[0])
        assert await socket.receive_nothing(timeout=0.3)
        await socket.send_json_to({"type": "reload"})
        assert (await socket.receive_json_from(timeout=TIMEOUT))["version"] == version + 1
        await socket.disconnect()

    async_to_sync(scenario)()
