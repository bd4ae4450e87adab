"""The websocket side of `bench/load.py`: board watchers in a process of their own.

    .venv/bin/python bench/load_watchers.py CONFIG.json

Run by `bench/load.py`, not by hand. The watchers live in their own process so that reading
hundreds of board frames does not delay the players' HTTP timings in the other one; both stamp
events with `time.monotonic()`, one clock for the whole machine on Linux.

CONFIG names the sockets (`url`, `origin`, `event`, and for a phone `cookie` and `stream`:
"places", the player page's stream at the event's version), a hard deadline in seconds and the
output file. Each socket behaves like `static/js/live.js`: it holds the version it accepted, takes
an update only if it is the next version, and on a gap asks for `{"type": "reload"}` (at most
once per 3 s while no snapshot has answered). A socket closed by the server reconnects with backoff.

Standard input takes one command a line; each answer is one JSON line on standard output:
`status` gives every socket's event, highest version seen and version accepted; `stop` closes
the sockets, writes every frame's (arrival, kind, version) to the output file and exits.
The process also stops by itself at the deadline or when its standard input closes.
"""

from __future__ import annotations

import asyncio
import contextlib
import json
import re
import sys
import time
from dataclasses import dataclass, field
from typing import Any

import aiohttp

RELOAD_RETRY = 3.0  # as live.js: seconds before asking again when a reload gets no answer
CONNECTING_AT_ONCE = 20  # sockets between their handshake and their first snapshot
FIRST_DELAY = 0.5
MAX_DELAY = 10.0
WS_TIMEOUT = aiohttp.ClientWSTimeout(ws_receive=None, ws_close=5.0)
SNAPSHOT = 0
UPDATE = 1

# channels' send_json is json.dumps with its default separators, keys in this order: reading the
# head of the frame spares parsing every board for a number.
HEAD = re.compile(r'\{"type": "(snapshot|update)", "stream": "(\w+)", "version": (\d+)')


@dataclass
class Watcher:
    """One board socket and everything it received."""

    index: int
    url: str
    origin: str
    event: int
    stream: str = "board"  # the stream whose versions follow the event's
    cookie: str | None = None
    frames: list[tuple[float, int, int]] = field(default_factory=list)
    seen: int = -1  # the highest version received
    accepted: int = -1  # the version the page would show (live.js rules)
    reload_asked_at: float = 0.0
    reloads: int = 0
    stale_updates: int = 0  # an update not newer than one already received
    other_streams: int = 0
    unreadable: int = 0
    connects: int = 0
    closes: list[str] = field(default_factory=list)
    ready: asyncio.Event = field(default_factory=asyncio.Event)
    bytes: int = 0

    def take(self, text: str, arrived: float) -> bool:
        """Record one frame; True when the page would ask for a reload now."""
        self.bytes += len(text)
        head = HEAD.match(text)
        if head is None:
            try:
                message = json.loads(text)
                kind, stream, version = message["type"], message["stream"], int(message["version"])
            except (ValueError, KeyError, TypeError):
                self.unreadable += 1
                return False
        else:
            kind, stream, version = head.group(1), head.group(2), int(head.group(3))
        if stream != self.stream:
            self.other_streams += 1
            return False
        snapshot = kind == "snapshot"
        if not snapshot and version <= self.seen:
            self.stale_updates += 1
        self.frames.append((arrived, SNAPSHOT if snapshot else UPDATE, version))
        self.seen = max(self.seen, version)
        if snapshot:
            self.reload_asked_at = 0.0
            self.ready.set()
        if (
            self.accepted < 0
            or (snapshot and version > self.accepted)
            or version == self.accepted + 1
        ):
            self.accepted = version
            return False
        if version > self.accepted + 1:
            return not self.reload_asked_at or arrived - self.reload_asked_at >= RELOAD_RETRY
        return False

    async def run(self, session: aiohttp.ClientSession, gate: asyncio.Semaphore) -> None:
        delay = FIRST_DELAY
        while True:
            # A connection holds its place in the gate until its first snapshot: the server
            # computes one snapshot per connect, and daphne drops a handshake that waits 5 s.
            await gate.acquire()
            opening = True
            try:
                socket = await session.ws_connect(
                    self.url,
                    origin=self.origin,
                    max_msg_size=0,
                    autoping=True,
                    timeout=WS_TIMEOUT,
                    headers={"Cookie": self.cookie} if self.cookie else None,
                )
                self.connects += 1
                delay = FIRST_DELAY
                async with socket:
                    async for message in socket:
                        if message.type != aiohttp.WSMsgType.TEXT:
                            continue
                        now = time.monotonic()
                        if opening:
                            opening = False
                            gate.release()
                        if self.take(message.data, now):
                            self.reload_asked_at = now
                            self.reloads += 1
                            await socket.send_str('{"type": "reload"}')
                self.closes.append(f"closed {socket.close_code}")
            except (aiohttp.ClientError, OSError, TimeoutError) as error:
                self.closes.append(f"{type(error).__name__}: {error}"[:200])
            finally:
                if opening:
                    gate.release()
            await asyncio.sleep(delay)
            delay = min(delay * 2, MAX_DELAY)

    def status(self) -> list[int]:
        return [self.event, self.seen, self.accepted]

    def record(self) -> dict[str, Any]:
        return {
            "event": self.event,
            "stream": self.stream,
            "frames": self.frames,
            "reloads": self.reloads,
            "stale_updates": self.stale_updates,
            "other_streams": self.other_streams,
            "unreadable": self.unreadable,
            "connects": self.connects,
            "closes": self.closes,
            "bytes": self.bytes,
        }


def answer(payload: object) -> None:
    sys.stdout.write(json.dumps(payload, separators=(",", ":")) + "\n")
    sys.stdout.flush()


async def commands() -> asyncio.StreamReader:
    loop = asyncio.get_running_loop()
    reader = asyncio.StreamReader()
    await loop.connect_read_pipe(lambda: asyncio.StreamReaderProtocol(reader), sys.stdin)
    return reader


async def watch(config: dict[str, Any]) -> None:
    watchers = [
        Watcher(
            index=n,
            url=s["url"],
            origin=s["origin"],
            event=s["event"],
            stream=s.get("stream", "board"),
            cookie=s.get("cookie"),
        )
        for n, s in enumerate(config["sockets"])
    ]
    gate = asyncio.Semaphore(CONNECTING_AT_ONCE)
    connector = aiohttp.TCPConnector(limit=0)
    timeout = aiohttp.ClientTimeout(total=None, sock_connect=30)
    async with aiohttp.ClientSession(connector=connector, timeout=timeout) as session:
        tasks = [asyncio.create_task(w.run(session, gate)) for w in watchers]
        started = time.monotonic()
        try:
            async with asyncio.timeout(config["connect_timeout"]):
                await asyncio.gather(*(w.ready.wait() for w in watchers))
            answer({"ready": True, "seconds": time.monotonic() - started})
        except TimeoutError:
            waiting = sum(not w.ready.is_set() for w in watchers)
            answer({"ready": False, "waiting": waiting})
        reader = await commands()
        try:
            async with asyncio.timeout(config["deadline"]):
                while line := (await reader.readline()).decode().strip():
                    if line == "status":
                        answer({"sockets": [w.status() for w in watchers]})
                    elif line == "stop":
                        break
        except TimeoutError:
            pass  # the deadline: stop and report what we have
        for task in tasks:
            task.cancel()
        for task in tasks:
            with contextlib.suppress(asyncio.CancelledError):
                await task
    with open(config["output"], "w") as out:
        json.dump([w.record() for w in watchers], out, separators=(",", ":"))
    answer({"done": True})


def main() -> None:
    with open(sys.argv[1]) as source:
        config = json.load(source)
    asyncio.run(watch(config))


if __name__ == "__main__":
    main()
