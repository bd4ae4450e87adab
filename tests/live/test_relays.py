"""Relaying a group message does not wait for the thread that runs the sockets' database work."""

from __future__ import annotations

import asyncio
import threading
from typing import Any

import pytest
from asgiref.sync import async_to_sync
from channels.db import database_sync_to_async
from channels.layers import get_channel_layer
from channels.testing import WebsocketCommunicator

from live import protocol
from tests.factories import make_table
from tests.live.sockets import TIMEOUT, by_stream, frames, open_socket, session_cookie
from tests.waiting import wait_until_async

pytestmark = pytest.mark.django_db(transaction=True)


async def while_database_thread_busy(
    snapshot: protocol.Snapshot, socket: WebsocketCommunicator
) -> dict[str, Any]:
    """Send a snapshot's group message while the sockets' database thread is held; the frame
    the socket then receives."""
    release = threading.Event()
    # As when another socket's snapshots are being read: the thread holds until released.
    held = asyncio.ensure_future(database_sync_to_async(release.wait)(TIMEOUT * 2))
    try:
        await get_channel_layer().group_send(snapshot.group, snapshot.message())
        (frame,) = await frames(socket, 1)
    finally:
        release.set()
        await held
    return frame


def test_a_players_places_arrive_while_the_database_thread_is_busy() -> None:
    table = make_table(players=2, start=True)
    player = table.players[0]
    registration_id = table.rid(player)
    event_id = table.event.pk
    cookie = session_cookie(player)

    async def scenario() -> tuple[dict[str, Any], int]:
        socket = await open_socket(f"/ws/events/{event_id}/player/", cookie=cookie)
        version = (await by_stream(socket, 2))["places"][0]["version"] + 1
        places = {str(registration_id): [1, 2], "999999": [2, 1]}
        snapshot = protocol.Snapshot(
            protocol.places_group(event_id), "places", version, {"places": places, "ranked": 2}
        )
        frame = await while_database_thread_busy(snapshot, socket)
        await socket.disconnect()
        return frame, version

    frame, version = async_to_sync(scenario)()
    assert frame == {
        "type": "snapshot",
        "stream": "places",
        "version": version,
        "data": {"high": 1, "low": 2, "ranked": 2, "final": False},
    }


def test_a_board_update_arrives_while_the_database_thread_is_busy() -> None:
    table = make_table(players=2, start=True)
    event_id = table.event.pk

    async def scenario() -> tuple[dict[str, Any], int]:
        socket = await open_socket(f"/ws/events/{event_id}/board/")
        (start,) = await frames(socket, 1)
        version = start["version"] + 1
        snapshot = protocol.Snapshot(
            protocol.event_group(event_id), "board", version, None, base=version - 1
        )
        frame = await while_database_thread_busy(snapshot, socket)
        await socket.disconnect()
        return frame, version

    frame, version = async_to_sync(scenario)()
    assert frame == {"type": "update", "stream": "board", "version": version, "base": version - 1}


def test_an_update_handed_over_during_a_reload_follows_the_reloads_snapshot() -> None:
    """Relays reach a socket straight from the channel layer, not through its queue; one that
    arrives while the socket is answering a reload waits and follows that answer, in order."""
    table = make_table(players=2, start=True)
    event_id = table.event.pk

    async def scenario() -> tuple[list[dict[str, Any]], int]:
        socket = await open_socket(f"/ws/events/{event_id}/board/")
        (start,) = await frames(socket, 1)
        version = start["version"]
        layer = get_channel_layer()._get_layer()
        (board,) = [relayer for relayer in layer.relayers.values() if relayer.holding == 0]
        release = threading.Event()
        # The reload's snapshots wait for the sockets' database thread, held here.
        held = asyncio.ensure_future(database_sync_to_async(release.wait)(TIMEOUT * 2))
        try:
            await socket.send_json_to({"type": "reload"})
            await wait_until_async(lambda: board.holding > 0, "the reload in hand")
            update = protocol.Snapshot(
                protocol.event_group(event_id), "board", version + 1, None, base=version
            )
            await get_channel_layer().group_send(update.group, update.message())
            await wait_until_async(lambda: board.waiting, "the update kept behind the reload")
        finally:
            release.set()
            await held
        received = await frames(socket, 2)
        await wait_until_async(lambda: not board.waiting and board.holding == 0, "all handled")
        await socket.disconnect()
        return received, version

    (snapshot, update), version = async_to_sync(scenario)()
    assert (snapshot["type"], snapshot["version"]) == ("snapshot", version)
    assert update == {"type": "update", "stream": "board", "version": version + 1, "base": version}
