"""The project's channel layer on the real Redis: one decode per group message per process."""

from __future__ import annotations

import asyncio
import uuid
from typing import Any, cast

from django.conf import settings

from live.channel_layer import KEEP, PubSubChannelLayer
from tests.waiting import PATIENCE, wait_until_async


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


class Taker:
    """A relayer as `live.channel_layer.Relayer` describes it, keeping what it passed on in
    order; passing on a version in `stall` waits until `go` is set, as a socket whose relay
    waits (a snapshot read again)."""

    relayed = frozenset({"live.snapshot"})

    def __init__(self, stall: int | None = None) -> None:
        self.taken: list[dict[str, Any]] = []
        self.waiting: list[dict[str, Any]] = []
        self.holding = 0
        self.queued_count = 0
        self.stall = stall
        self.go = asyncio.Event()

    def handed(self, message: dict[str, Any]) -> bool:
        self.waiting.append(message)
        return self.holding == 0

    def queued(self) -> None:
        self.queued_count += 1

    async def drain(self) -> None:
        if self.holding:
            return
        self.holding += 1
        try:
            while self.waiting:
                message = self.waiting.pop(0)
                if message["version"] == self.stall:
                    await self.go.wait()
                self.taken.append(message)
        finally:
            self.holding -= 1


def test_relays_are_handed_to_their_sockets_and_the_rest_is_queued() -> None:
    async def scenario() -> tuple[list[Taker], list[dict[str, Any]], list[dict[str, Any]]]:
        channels = layer()
        try:
            names = [await channels.new_channel() for _ in range(3)]
            takers = [Taker(), Taker()]
            for name, taker in zip(names, takers, strict=False):
                channels.relay_to(name, taker)
            for name in names:
                await channels.group_add("event.7", name)
            for version in (1, 2, 3):
                await channels.group_send("event.7", {"type": "live.snapshot", "version": version})
            await channels.group_send("event.7", {"type": "access.revoke", "event_id": 7})

            def settled() -> bool:
                return all(len(taker.taken) == 3 and taker.queued_count == 1 for taker in takers)

            await wait_until_async(settled, "the relays handed over, the revocation queued")
            # The socket that hands nothing over takes every message from its queue, in order.
            plain = [
                await asyncio.wait_for(channels.receive(names[2]), timeout=PATIENCE)
                for _ in range(4)
            ]
            # The relayers' queues hold the revocation alone.
            queued = [
                await asyncio.wait_for(channels.receive(name), timeout=PATIENCE)
                for name in names[:2]
            ]
            return takers, plain, queued
        finally:
            await channels.flush()

    takers, plain, queued = asyncio.run(scenario())
    for taker in takers:
        assert [message["version"] for message in taker.taken] == [1, 2, 3]
    # Decoded once for the whole group: the relayers read one message.
    assert takers[0].taken[0] is takers[1].taken[0]
    assert [message["type"] for message in plain] == ["live.snapshot"] * 3 + ["access.revoke"]
    assert [message["type"] for message in queued] == ["access.revoke", "access.revoke"]


def test_a_socket_whose_relay_waits_holds_no_other_socket_back_nor_reorders_it() -> None:
    async def scenario() -> tuple[list[int], list[int], list[int]]:
        channels = layer()
        try:
            stalled, other = Taker(stall=1), Taker()
            for _ in range(2):
                await channels.group_add("event.8", await channels.new_channel())
            # The stalled socket is the first of the group the layer walks.
            loop_layer = channels._get_layer()
            walked = list(loop_layer.groups[loop_layer._get_group_channel_name("event.8")])
            for name, taker in zip(walked, (stalled, other), strict=True):
                channels.relay_to(name, taker)
            for version in (1, 2, 3):
                await channels.group_send("event.8", {"type": "live.snapshot", "version": version})
            await wait_until_async(lambda: len(other.taken) == 3, "the other socket's relays")
            before = [message["version"] for message in stalled.taken]
            stalled.go.set()
            await wait_until_async(lambda: len(stalled.taken) == 3, "the stalled socket's relays")
            return (
                before,
                [message["version"] for message in stalled.taken],
                [message["version"] for message in other.taken],
            )
        finally:
            await channels.flush()

    before, stalled, other = asyncio.run(scenario())
    assert before == []
    assert stalled == [1, 2, 3]
    assert other == [1, 2, 3]
