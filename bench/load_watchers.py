"""The page side of `bench/load.py`: the open pages' sockets, in a process of their own.

    .venv/bin/python bench/load_watchers.py CONFIG.json

Run by `bench/load.py`, not by hand. The pages live in their own process so that reading
thousands of frames does not delay the players' HTTP timings in the other one; both stamp events
with `time.monotonic()`, one clock for the whole machine on Linux.

CONFIG names the pages (`kind`: "board", "phone" or "house"; `url`, `origin`, `event`, and for a
signed-in page `cookie`), a hard deadline in seconds and the output file. Each page behaves like
`static/js/live.js` on its page:

- it keeps a version per stream; it takes a frame if it is its stream's first, a newer snapshot or
  the next version; a targeted update (board, House: `base`, and `parts` or the board's `places`,
  any of which may be empty, as live.js reads them) only if it holds `base`
  (or one of `bases`, when the update lists several); on a gap, an update on a base it does not
  hold, or a frame with neither fragment nor parts for the part it swaps in (House's, sent while
  no House page listened), it asks for `{"type": "reload"}` (at most once per 3 s while no
  snapshot has answered); after a reconnect it starts afresh;
- the version it shows is the event's version of its page's main stream: the board's ("board"),
  a phone's place line ("places", beside its own "player" panel), House's live part ("house");
- like the real pages (live.js swaps in what frames carry), it makes no HTTP request; the browser
  check (`bench/browser_pages.py`) counts the real pages' requests.

Standard input takes one command a line; each answer is one JSON line on standard output:
`status` gives every page's event, highest version shown and version accepted; `stop` closes
the sockets, writes every page's record (shown versions with their times, bytes, requests) to the
output file and exits. The process also stops by itself at the deadline or when its standard
input closes.
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
SHOWN = {"board": "board", "phone": "places", "house": "house"}

# channels' send_json is json.dumps with its default separators, keys in this order: reading the
# head of the frame spares parsing every board for a number.
HEAD = re.compile(r'\{"type": "(\w+)", "stream": "(\w+)", "version": (\d+)(?:, "base": (\d+))?')
HTML_KEY = '"html": '  # a key at the top of the frame (a string inside data would be escaped)
PARTS_KEY = '"parts": '
PLACES_KEY = '"places": '
BASES_KEY = '"bases": '
# The stream each page swaps in from frames (its fragment, or a targeted update's parts).
SWAPPED = {"board": "board", "phone": "player", "house": "house"}


@dataclass
class Page:
    """One open page: its socket, the versions it holds, what it received and showed."""

    index: int
    kind: str
    url: str
    origin: str
    event: int
    cookie: str | None = None
    versions: dict[str, int] = field(default_factory=dict)
    shown: list[tuple[float, int]] = field(default_factory=list)  # (when, event version shown)
    seen: int = -1  # the highest version of the main stream received
    accepted: int = -1  # the version of the main stream the page shows
    frames: int = 0
    snapshots: int = 0
    reload_asked_at: float = 0.0
    reloads: int = 0
    stale_updates: int = 0
    # The main stream's frames carrying a version this connection already received, not asked
    # for by a reload (a publisher sending a change twice), and versions the page showed twice.
    repeated: int = 0
    shown_twice: int = 0
    received: set[int] = field(default_factory=set)
    shown_here: set[int] = field(default_factory=set)  # on this connection
    asked_at: float = 0.0  # the last reload asked (kept when a snapshot answers)
    unreadable: int = 0
    connects: int = 0
    requests: int = 0  # HTTP requests the page made (none: see above)
    closes: list[str] = field(default_factory=list)
    ready: asyncio.Event = field(default_factory=asyncio.Event)
    bytes: int = 0

    @property
    def main(self) -> str:
        return SHOWN[self.kind]

    def read(self, text: str) -> tuple[str, str, int, list[int], bool] | None:
        """(type, stream, version, the bases a targeted update builds on, whether it carries
        what the page swaps in)."""
        head = HEAD.match(text) if self.kind == "phone" and BASES_KEY not in text else None
        if head is not None:
            bases = [int(head.group(4))] if head.group(4) else []
            fragment = HTML_KEY in text or PARTS_KEY in text or PLACES_KEY in text
            return head.group(1), head.group(2), int(head.group(3)), bases, fragment
        try:
            message = json.loads(text)
            base = message.get("base")
            listed = message.get("bases")
            if isinstance(base, int):
                bases = [int(b) for b in listed] if isinstance(listed, list) else [base]
            else:
                bases = []
            # live.js takes an empty object of parts or places as something to show.
            fragment = (
                isinstance(message.get("html"), str)
                or isinstance(message.get("parts"), dict)
                or isinstance(message.get("places"), dict)
            )
            return (
                str(message["type"]),
                str(message["stream"]),
                int(message["version"]),
                bases,
                fragment,
            )
        except (ValueError, KeyError, TypeError, AttributeError):
            return None

    def take(self, text: str, arrived: float) -> bool:
        """Take one frame as live.js would; True when the page asks for a reload now."""
        self.bytes += len(text)
        self.frames += 1
        read = self.read(text)
        if read is None:
            self.unreadable += 1
            return False
        kind, stream, version, bases, fragment = read
        snapshot = kind == "snapshot"
        if snapshot:
            self.snapshots += 1
            self.reload_asked_at = 0.0
        last = self.versions.get(stream)
        main = stream == self.main
        if main:
            self.seen = max(self.seen, version)
            if not snapshot and version <= self.accepted:
                self.stale_updates += 1
            asked = self.asked_at and arrived - self.asked_at < RELOAD_RETRY
            if version in self.received and not asked:
                self.repeated += 1
            self.received.add(version)
        if stream == SWAPPED[self.kind] and not fragment:
            # House's frame while no House page listened: neither fragment nor parts.
            return (last is None or version > last) and self.may_ask(arrived)
        if bases:
            if last is not None and last in bases:
                self.show(stream, version, arrived)
                return False
            return (last is None or version > last) and self.may_ask(arrived)
        if last is None or (snapshot and version > last) or version == last + 1:
            self.show(stream, version, arrived)
            return False
        if version > last + 1:
            return self.may_ask(arrived)
        return False

    def may_ask(self, now: float) -> bool:
        """live.js asks for one reload at a time: again only after RELOAD_RETRY unanswered."""
        return not self.reload_asked_at or now - self.reload_asked_at >= RELOAD_RETRY

    def show(self, stream: str, version: int, arrived: float) -> None:
        self.versions[stream] = version
        if stream == self.main:
            self.ready.set()
            if version in self.shown_here:
                self.shown_twice += 1
            self.shown_here.add(version)
            self.accepted = max(self.accepted, version)
            self.shown.append((arrived, version))

    async def run(self, session: aiohttp.ClientSession, gate: asyncio.Semaphore) -> None:
        delay = FIRST_DELAY
        while True:
            # A connection holds its place in the gate until its first snapshot: the server
            # computes the snapshots per connect, and daphne drops a handshake that waits 5 s.
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
                self.versions = {}  # a new connection starts afresh (live.js after a reconnect)
                self.received = set()
                self.shown_here = set()
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
                            self.reload_asked_at = self.asked_at = now
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
            "kind": self.kind,
            "event": self.event,
            "shown": self.shown,
            "frames": self.frames,
            "snapshots": self.snapshots,
            "reloads": self.reloads,
            "stale_updates": self.stale_updates,
            "repeated": self.repeated,
            "shown_twice": self.shown_twice,
            "unreadable": self.unreadable,
            "connects": self.connects,
            "closes": self.closes,
            "bytes": self.bytes,
            "requests": self.requests,
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
    pages = [
        Page(
            index=n,
            kind=s.get("kind", "board"),
            url=s["url"],
            origin=s["origin"],
            event=s["event"],
            cookie=s.get("cookie"),
        )
        for n, s in enumerate(config["sockets"])
    ]
    gate = asyncio.Semaphore(CONNECTING_AT_ONCE)
    connector = aiohttp.TCPConnector(limit=0)
    timeout = aiohttp.ClientTimeout(total=None, sock_connect=30)
    async with aiohttp.ClientSession(
        connector=connector, timeout=timeout, cookie_jar=aiohttp.DummyCookieJar()
    ) as session:
        tasks = [asyncio.create_task(p.run(session, gate)) for p in pages]
        started = time.monotonic()
        try:
            async with asyncio.timeout(config["connect_timeout"]):
                await asyncio.gather(*(p.ready.wait() for p in pages))
            answer({"ready": True, "seconds": time.monotonic() - started})
        except TimeoutError:
            waiting = sum(not p.ready.is_set() for p in pages)
            answer({"ready": False, "waiting": waiting})
        reader = await commands()
        try:
            async with asyncio.timeout(config["deadline"]):
                while line := (await reader.readline()).decode().strip():
                    if line == "status":
                        answer({"sockets": [p.status() for p in pages]})
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
        json.dump([p.record() for p in pages], out, separators=(",", ":"))
    answer({"done": True})


def main() -> None:
    with open(sys.argv[1]) as source:
        config = json.load(source)
    asyncio.run(watch(config))


if __name__ == "__main__":
    main()
