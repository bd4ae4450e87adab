"""The channel layer: channels_redis's Redis pub/sub layer, decoding a group message once.

The pub/sub layer reads a group message from Redis once per server process and queues the same
bytes for every member socket of the process; each socket's receive then decodes them again. An
event's places go to every phone of the event, so each delivery decoded the same message once
per phone: with 128 phones, the largest single share of the event loop's time under load. Here
the last few messages decoded are kept by the identity of their bytes, so the other sockets take
the decoded message instead of decoding it again.

Each receiver gets its own copy of the message's top level; what it holds below (a stream's
data) is shared between the sockets and must not be changed (no consumer does).
"""

from __future__ import annotations

import threading
from collections import OrderedDict
from typing import Any

from channels_redis.pubsub import RedisPubSubChannelLayer

# How many decoded messages are kept: enough that a message is still there when the last of its
# sockets takes it, while the deliveries of other events and players arrive in between.
KEEP = 64


class PubSubChannelLayer(RedisPubSubChannelLayer):
    """`channels_redis.pubsub.RedisPubSubChannelLayer`, decoding each message once per process."""

    def __init__(self, *args: Any, **kwargs: Any) -> None:
        super().__init__(*args, **kwargs)
        # By id of the bytes: (the bytes, held so the id stays theirs; the decoded message).
        self._decoded: OrderedDict[int, tuple[bytes, dict[str, Any]]] = OrderedDict()
        self._lock = threading.Lock()

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
