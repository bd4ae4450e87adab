"""The channel layer: channels_redis's Redis pub/sub layer, relaying a group's frames at once.

The pub/sub layer reads a group message from Redis once per server process and queues the same
bytes for every member socket of the process; each socket's task then wakes, decodes them again
and passes the frame on. An event's board goes to every board of the event and its places to
every phone, so under load most of a server's time went to that queue per socket, not to
sending. Two things here:

- **One decode per message.** The last few messages decoded are kept by the identity of their
  bytes, so the other sockets of a queue take the decoded message instead of decoding it again.
- **Relays without a queue per socket.** A socket that only passes a message type on (a
  `Relayer`: `live.consumers.LiveConsumer`) is handed such a message directly: it is put on
  the socket's own list as it arrives, and one task per message and process walks the group's
  sockets, each passing its list on, instead of one queue, one wake-up and one decode per
  socket. The lists keep each socket's order whatever waits: a socket whose relay waits (a
  player's snapshot read again) holds its list, and a later message's task passes the other
  sockets' lists on. Every other message for the socket (an access check, House's standby
  panel) still goes through its queue, and while it has such a message queued or in hand, its
  relays wait and follow it (`LiveConsumer.drain`).

Each receiver gets its own copy of the message's top level where the message is queued; a
relayed message is one dict shared by the group's relayers, and what it holds is read, never
changed (no consumer does).

The hand-off replaces `RedisSingleShardConnection._receive_message` (channels_redis 4.3), the
one place the layer turns a Redis message into queued messages;
`tests/live/test_channel_layer.py` checks it against the library.
"""

from __future__ import annotations

import asyncio
import logging
import threading
from collections import OrderedDict
from collections.abc import Iterable
from typing import Any, Protocol

from channels_redis.pubsub import (
    RedisPubSubChannelLayer,
    RedisPubSubLoopLayer,
    RedisSingleShardConnection,
)
from channels_redis.utils import _wrap_close

logger = logging.getLogger(__name__)

# How many decoded messages are kept: enough that a message is still there when the last of its
# sockets takes it, while the deliveries of other events and players arrive in between.
KEEP = 64


class Relayer(Protocol):
    """A socket that takes the messages it only passes on straight from the layer."""

    # The message types it relays; every other message goes through its queue.
    relayed: frozenset[str]

    def handed(self, message: dict[str, Any]) -> bool:
        """A relay for the socket, kept in its own list in the order they came: whether the
        socket is free to pass the list on now (`drain`)."""

    def queued(self) -> None:
        """A message of another type was queued for the socket: relays wait until it is
        handled."""

    async def drain(self) -> None:
        """Pass on, in order, the relays handed over, unless the socket holds something (what it
        holds passes them on when done)."""


class PubSubChannelLayer(RedisPubSubChannelLayer):
    """`channels_redis.pubsub.RedisPubSubChannelLayer`, decoding each message once per process
    and handing relays to their sockets directly."""

    def __init__(self, *args: Any, **kwargs: Any) -> None:
        super().__init__(*args, **kwargs)
        # By id of the bytes: (the bytes, held so the id stays theirs; the decoded message).
        self._decoded: OrderedDict[int, tuple[bytes, dict[str, Any]]] = OrderedDict()
        self._lock = threading.Lock()

    def _get_layer(self) -> RedisPubSubLoopLayer:
        """As channels_redis's, with the loop's layer ours (`_LoopLayer`)."""
        loop = asyncio.get_running_loop()
        layer: RedisPubSubLoopLayer | None = self._layers.get(loop)
        if layer is None:
            layer = _LoopLayer(*self._args, **self._kwargs, channel_layer=self)
            self._layers[loop] = layer
            _wrap_close(self, loop)
        return layer

    def relay_to(self, channel: str, relayer: Relayer) -> None:
        """Hand the channel's relays to `relayer` from now on (`Relayer`)."""
        layer = self._get_layer()
        assert isinstance(layer, _LoopLayer)
        layer.relayers[channel] = relayer

    def stop_relaying(self, channel: str) -> None:
        layer = self._get_layer()
        assert isinstance(layer, _LoopLayer)
        layer.relayers.pop(channel, None)

    def deserialize(self, message: bytes) -> dict[str, Any]:
        with self._lock:
            kept = self._decoded.get(id(message))
        if kept is not None and kept[0] is message:
            return dict(kept[1])
        decoded: dict[str, Any] = super().deserialize(message)
        with self._lock:
            self._decoded[id(message)] = (message, decoded)
            while len(self._decoded) > KEEP:
                self._decoded.popitem(last=False)
        return dict(decoded)


class _LoopLayer(RedisPubSubLoopLayer):
    """The layer of one event loop, with its relayers by channel name."""

    def __init__(self, *args: Any, **kwargs: Any) -> None:
        super().__init__(*args, **kwargs)
        self.relayers: dict[str, Relayer] = {}
        self._fan_outs: set[asyncio.Task[None]] = set()
        hosts = [shard.host for shard in self._shards]  # type: ignore[has-type]
        self._shards = [_Shard(host, self) for host in hosts]

    async def flush(self) -> None:
        self.relayers = {}
        await super().flush()

    def hand_over(self, name: str, data: bytes) -> None:
        """A Redis message on `name` (a channel of this process, or a group): relays to their
        relayers, all in one task; the rest to the sockets' queues, as channels_redis does."""
        if name in self.channels:
            members: Iterable[str] = (name,)
        elif name in self.groups:
            members = tuple(self.groups[name])
        else:
            return
        decoded: dict[str, Any] | None = None
        now: list[Relayer] = []
        for channel in members:
            queue = self.channels.get(channel)
            if queue is None:
                continue
            relayer = self.relayers.get(channel)
            if relayer is not None:
                if decoded is None:
                    decoded = self.channel_layer.deserialize(data)
                if decoded["type"] in relayer.relayed:
                    # Kept by the socket now, in the order messages arrive: a later message's
                    # task can pass it on while this one's waits for another socket.
                    if relayer.handed(decoded):
                        now.append(relayer)
                    continue
                relayer.queued()
            queue.put_nowait(data)
        if now:
            task = asyncio.ensure_future(_fan_out(now))
            self._fan_outs.add(task)
            task.add_done_callback(self._fan_outs.discard)


class _Shard(RedisSingleShardConnection):
    def _receive_message(self, message: dict[str, Any] | None) -> None:
        if message is None:
            return
        name = message["channel"]
        self.channel_layer.hand_over(
            name.decode() if isinstance(name, bytes) else name, message["data"]
        )


async def _fan_out(relayers: list[Relayer]) -> None:
    """Each socket passes on what it was handed, in turn; one socket's failure stops no
    other."""
    for relayer in relayers:
        try:
            await relayer.drain()
        except Exception:
            logger.exception("A socket failed to relay a group message")
