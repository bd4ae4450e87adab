"""The channel layer spread over two Redis servers (CHANNEL_REDIS_URLS), as a scaled-out
deployment runs it: channels-redis hashes each channel and group name to one server, and every
message still reaches its sockets, wherever their names live.

The first server is the suite's Redis, the second a private one started for the test.
"""

from __future__ import annotations

import copy
from collections.abc import Iterator
from pathlib import Path
from typing import Any, cast

import pytest
import redis
from asgiref.sync import async_to_sync
from channels.db import database_sync_to_async
from channels_redis.utils import _consistent_hash
from django.conf import settings

from live.channel_layer import PubSubChannelLayer
from live.protocol import event_group
from tests.factories import Table, make_table
from tests.faults.processes import Processes
from tests.live.sockets import TIMEOUT, open_socket
from tests.waiting import wait_until_async


@pytest.fixture
def second_server(tmp_path: Path) -> Iterator[str]:
    processes = Processes(folder=tmp_path)
    try:
        yield processes.redis().url
    finally:
        processes.stop_all()


@pytest.fixture
def servers(settings: Any, second_server: str) -> list[str]:
    """The project's layer settings (with this test's prefix) over the suite's Redis and the
    private one, as settings.py builds them from CHANNEL_REDIS_URLS."""
    urls = [str(settings.REDIS_URL), second_server]
    layers = copy.deepcopy(settings.CHANNEL_LAYERS)
    layers["default"]["CONFIG"]["hosts"] = [{"address": url, "socket_timeout": 30} for url in urls]
    settings.CHANNEL_LAYERS = layers
    return urls


def config() -> dict[str, Any]:
    return dict(cast(dict[str, Any], settings.CHANNEL_LAYERS["default"]["CONFIG"]))


def subscribed(url: str, prefix: str) -> set[str]:
    """The pub/sub channels of this test's layer that `url`'s server has subscribers for."""
    client = redis.Redis.from_url(url, decode_responses=True)
    try:
        return {str(name) for name in client.pubsub_channels(f"{prefix}*")}
    finally:
        client.close()


def group_channel_names(prefix: str, groups: list[str]) -> set[str]:
    """The pub/sub channels that carry `groups` under `prefix`, named by the library itself."""

    async def names() -> set[str]:
        layer = PubSubChannelLayer(**{**config(), "prefix": prefix})
        return {layer._get_group_channel_name(group) for group in groups}

    return async_to_sync(names)()


def test_channels_and_groups_spread_over_both_servers_and_every_message_arrives(
    servers: list[str],
) -> None:
    """A web process's sockets and the publisher's messages, each process with its own layer."""
    prefix = config()["prefix"]

    async def scenario() -> tuple[set[str], set[str], set[str]]:
        web, publisher = PubSubChannelLayer(**config()), PubSubChannelLayer(**config())
        try:
            sockets = [await web.new_channel() for _ in range(32)]
            groups = [event_group(number) for number in range(1, 9)]
            for index, name in enumerate(sockets):
                await web.group_add(groups[index % len(groups)], name)
            expected = {*sockets, *(web._get_group_channel_name(group) for group in groups)}

            def all_subscribed() -> bool:
                return subscribed(servers[0], prefix) | subscribed(servers[1], prefix) == expected

            await wait_until_async(all_subscribed, "every subscription on a server")
            first, second = subscribed(servers[0], prefix), subscribed(servers[1], prefix)

            # The publisher's group messages reach every member, whichever server holds the
            # group and whichever holds the member's own channel.
            for group in groups:
                await publisher.group_send(group, {"type": "live.update", "group": group})
            for index, name in enumerate(sockets):
                message = await web.receive(name)
                assert message == {"type": "live.update", "group": groups[index % len(groups)]}
            # And a message to one socket's channel (a revocation) reaches that socket alone.
            for index, name in enumerate(sockets):
                await publisher.send(name, {"type": "access.revoke", "socket": index})
            for index, name in enumerate(sockets):
                assert await web.receive(name) == {"type": "access.revoke", "socket": index}
            return expected, first, second
        finally:
            await web.flush()
            await publisher.flush()

    expected, first, second = async_to_sync(scenario)()
    # Each name lives on exactly one server, and both servers hold sockets and groups.
    assert not first & second
    assert first | second == expected
    for held in (first, second):
        assert any("__group__" in name for name in held), held
        assert any("specific." in name for name in held), held


@pytest.mark.django_db(transaction=True)
def test_board_sockets_of_events_on_either_server_see_each_change(servers: list[str]) -> None:
    """The real board sockets of events whose groups live on both servers."""
    # Events until their groups fall on both servers (the library's own hash of the names).
    prefix = config()["prefix"]
    tables: list[Table] = []
    while True:
        tables.append(make_table(players=2, start=True))
        groups = [event_group(table.event.pk) for table in tables]
        group_names = group_channel_names(prefix, groups)
        if {_consistent_hash(name, len(servers)) for name in group_names} == {0, 1}:
            break
        assert len(tables) < 30, "thirty events' groups all on one server"

    async def scenario() -> tuple[set[str], set[str]]:
        sockets = []
        for table in tables:
            socket = await open_socket(f"/ws/events/{table.event.pk}/board/")
            snapshot = await socket.receive_json_from(timeout=TIMEOUT)
            sockets.append((socket, snapshot["version"]))

        def groups_subscribed() -> bool:
            held = subscribed(servers[0], prefix) | subscribed(servers[1], prefix)
            return group_names <= held

        await wait_until_async(groups_subscribed, "every event's group on a server")
        first = subscribed(servers[0], prefix) & group_names
        second = subscribed(servers[1], prefix) & group_names
        for table, (socket, version) in zip(tables, sockets, strict=True):
            await database_sync_to_async(table.choose_start)(table.players[0])
            frame = await socket.receive_json_from(timeout=TIMEOUT)
            assert (frame["type"], frame["stream"], frame["version"]) == (
                "update",
                "board",
                version + 1,
            )
        for socket, _ in sockets:
            assert await socket.receive_nothing(timeout=0.2)  # each event's change, once
            await socket.disconnect()
        return first, second

    first, second = async_to_sync(scenario)()
    assert first and second and not first & second
