"""The project's channel layer on the real Redis: one decode per group message per process."""

from __future__ import annotations

import asyncio
import uuid
from typing import Any, cast

from django.conf import settings

from live.channel_layer import KEEP, PubSubChannelLayer
from tests.waiting import PATIENCE


def layer() -> PubSubChannelLayer:
    config = dict(cast(dict[str, Any], settings.CHANNEL_LAYERS["default"]["CONFIG"]))
    config["prefix"] = f"layer-test-{uuid.uuid4().hex[:12]}"
    return PubSubChannelLayer(**config)


async def receive_all(channels: PubSubChannelLayer, names: list[str]) -> list[dict[str, Any]]:
    return [await asyncio.wait_for(channels.receive(name), timeout=PATIENCE) for name in names]


def test_every_member_receives_the_group_message_decoded_once() -> None:
    async def scenario() -> list[dict[str, Any]]:
        channels = layer()
        try:
            names = [await channels.new_channel() for _ in range(3)]
            for name in names:
                await channels.group_add("places.1", name)
            data = {"ranked": 3, "places": {"11": [1, 3], "12": [2, 2], "13": [3, 1]}}
            await channels.group_send("places.1", {"type": "live.places", "data": data})
            return await receive_all(channels, names)
        finally:
            await channels.flush()

    first, second, third = asyncio.run(scenario())
    assert first == second == third
    assert first["data"]["places"]["12"] == [2, 2]
    # One decode: the sockets share what lies below the top level ...
    assert first["data"] is second["data"] is third["data"]
    # ... and each has its own top level, so one receiver's change reaches no other.
    first["type"] = "changed"
    assert second["type"] == third["type"] == "live.places"


def test_messages_to_one_channel_and_later_group_messages_decode_apart() -> None:
    async def scenario() -> tuple[list[dict[str, Any]], list[dict[str, Any]]]:
        channels = layer()
        try:
            names = [await channels.new_channel() for _ in range(2)]
            for name in names:
                await channels.group_add("event.1", name)
            await channels.send(names[0], {"type": "access.revoke", "event_id": 1})
            for version in range(1, KEEP + 3):
                await channels.group_send("event.1", {"type": "live.snapshot", "version": version})
            own = [await asyncio.wait_for(channels.receive(names[0]), timeout=PATIENCE)]
            rest = [
                await asyncio.wait_for(channels.receive(name), timeout=PATIENCE)
                for name in names
                for _ in range(KEEP + 2)
            ]
            return own, rest
        finally:
            await channels.flush()

    own, rest = asyncio.run(scenario())
    assert own == [{"type": "access.revoke", "event_id": 1}]
    # Each socket has every version in order, also those decoded again after KEEP others.
    versions = [message["version"] for message in rest]
    assert versions == list(range(1, KEEP + 3)) * 2
