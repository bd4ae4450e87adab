"""Clients of real servers: websockets kept the way static/js/live.js keeps them, and the API.

The sockets run on an asyncio loop in a thread of their own (aiohttp's client), so a test stays
synchronous and can use the ORM between steps. Each socket records every frame it receives, with
the time and the server it came from.
"""

from __future__ import annotations

import asyncio
import json
import random
import threading
import time
import uuid
from collections.abc import Callable, Coroutine
from dataclasses import dataclass, field
from typing import Any

import aiohttp
import requests
from django.conf import settings
from django.test import Client
from django.utils.crypto import get_random_string

from accounts.models import User
from tests.waiting import PATIENCE, wait_until

# live.js: FIRST_DELAY 500 ms doubling up to MAX_DELAY 10 s, each wait jittered to [d/2, d].
FIRST_DELAY = 0.5
MAX_DELAY = 10.0


def backoff(failures: int) -> float:
    delay = min(MAX_DELAY, FIRST_DELAY * 2 ** (failures - 1))
    return delay / 2 + random.random() * delay / 2


def session_cookie(user: User) -> str:
    """A real database session for `user`, as the value of a Cookie header."""
    client = Client()
    client.force_login(user)
    name = settings.SESSION_COOKIE_NAME
    return f"{name}={client.cookies[name].value}"


class Loop:
    """An asyncio loop in a daemon thread."""

    def __init__(self) -> None:
        self.loop = asyncio.new_event_loop()
        self.thread = threading.Thread(target=self.loop.run_forever, name="faults-ws", daemon=True)
        self.thread.start()

    def run[T](self, coro: Coroutine[Any, Any, T], timeout: float = 15.0) -> T:
        return asyncio.run_coroutine_threadsafe(coro, self.loop).result(timeout)

    def close(self) -> None:
        async def cancel_all() -> None:
            tasks = [t for t in asyncio.all_tasks() if t is not asyncio.current_task()]
            for task in tasks:
                task.cancel()
            await asyncio.gather(*tasks, return_exceptions=True)

        try:
            self.run(cancel_all(), timeout=10)
        finally:
            self.loop.call_soon_threadsafe(self.loop.stop)
            self.thread.join(timeout=10)
            self.loop.close()


@dataclass
class Frame:
    at: float
    server: str
    connection: int
    message: dict[str, Any]


@dataclass
class Closed:
    at: float
    server: str
    connection: int
    code: int | None


class LiveSocket:
    """One page's socket. Reconnects like live.js: after a close (not 4xxx), wait the backoff
    and open again. Each attempt tries the servers in order, as nginx's default
    `proxy_next_upstream error` does when a daphne process refuses the connection."""

    @property
    def event_stream(self) -> str:
        """The stream at the event's version: a player page hears its places, not the board."""
        return "places" if "/player/" in self.path else "board"

    def __init__(self, loop: Loop, path: str, servers: list[str], cookie: str | None = None):
        self.loop = loop
        self.path = path
        self.servers = servers  # mutable: the "upstream" list
        self.cookie = cookie
        self.frames: list[Frame] = []
        self.closes: list[Closed] = []
        self.opened: list[tuple[float, str]] = []
        self.versions: dict[str, int] = {}
        self.reloads = 0
        self.held = False  # while True, a closed socket waits before reconnecting
        self.stopped = False
        self.refused: int | None = None
        self._ws: aiohttp.ClientWebSocketResponse | None = None
        self.task = asyncio.run_coroutine_threadsafe(self._run(), loop.loop)

    # --- what a test reads ---------------------------------------------------------------

    @property
    def connection(self) -> int:
        return len(self.opened)

    def since(self, connection: int) -> list[Frame]:
        return [f for f in self.frames if f.connection == connection]

    def wait_for(
        self, check: Callable[[LiveSocket], bool], what: str, *, timeout: float = PATIENCE
    ) -> None:
        try:
            wait_until(lambda: check(self), f"{self.path}: {what}", timeout=timeout, step=0.02)
        except AssertionError as error:
            seen = [
                (f.connection, f.message["type"], f.message["stream"], f.message["version"])
                for f in self.frames
            ]
            raise AssertionError(f"{error} Frames: {seen}") from None

    def wait_version(self, stream: str, version: int, what: str) -> None:
        """Until the socket holds `version` of `stream` (by a snapshot or an update)."""
        self.wait_for(lambda k: k.versions.get(stream) == version, what)

    def snapshots(self, connection: int) -> dict[str, Frame]:
        """The first snapshot of each stream on one connection."""
        found: dict[str, Frame] = {}
        for frame in self.since(connection):
            if frame.message["type"] == "snapshot":
                found.setdefault(frame.message["stream"], frame)
        return found

    def data_at(self, stream: str, version: int) -> Any:
        """The stream's data as the page holds it at `version`: a whole frame's, patched with
        each targeted update's (`live.data_patch`), as an API-like client keeps it."""
        from live import data_patch

        held: dict[int, Any] = {}
        for frame in self.frames:
            message = frame.message
            if message["stream"] != stream or "data" not in message:
                continue
            if "base" in message:
                bases = message.get("bases") or [message["base"]]
                base = next((b for b in bases if b in held), None)
                if base is None:
                    continue  # the page would ask for the snapshots
                held[message["version"]] = data_patch.patched(held[base], message["data"])
            else:
                held[message["version"]] = message["data"]
        return held.get(version)

    def close(self) -> None:
        self.stopped = True
        if self._ws is not None:
            self.loop.run(self._ws.close(), timeout=5)

    # --- the socket's life, on the loop ----------------------------------------------------

    async def _open(self, session: aiohttp.ClientSession) -> tuple[str, Any] | None:
        for server in list(self.servers):
            headers = {"Cookie": self.cookie} if self.cookie else {}
            url = server.replace("http://", "ws://") + self.path
            try:
                ws = await session.ws_connect(url, origin=server, headers=headers, heartbeat=None)
            except (aiohttp.ClientError, OSError):
                continue
            return server, ws
        return None

    async def _run(self) -> None:
        failures = 0
        timeout = aiohttp.ClientTimeout(total=None, sock_connect=3)
        async with aiohttp.ClientSession(timeout=timeout) as session:
            while not self.stopped:
                while self.held and not self.stopped:
                    await asyncio.sleep(0.02)
                opened = await self._open(session)
                if opened is None:
                    failures += 1
                    await asyncio.sleep(backoff(failures))
                    continue
                server, ws = opened
                self._ws = ws
                self.opened.append((time.monotonic(), server))
                self.versions = {}  # live.js drops what it held: the snapshots start afresh
                number = len(self.opened)
                async for message in ws:
                    if message.type != aiohttp.WSMsgType.TEXT:
                        break
                    failures = 0
                    frame = json.loads(message.data)
                    self.frames.append(Frame(time.monotonic(), server, number, frame))
                    await self._check_gap(ws, frame)
                self.closes.append(Closed(time.monotonic(), server, number, ws.close_code))
                self._ws = None
                if self.stopped:
                    return
                if ws.close_code is not None and 4000 <= ws.close_code < 5000:
                    self.refused = ws.close_code  # live.js stops retrying
                    return
                failures += 1
                await asyncio.sleep(backoff(failures))

    async def _check_gap(self, ws: aiohttp.ClientWebSocketResponse, frame: dict[str, Any]) -> None:
        """live.js: an update that skips a version means one was lost, and a targeted update
        that builds on a version this socket does not hold cannot be shown; ask for the
        snapshots."""
        stream, version = frame["stream"], frame["version"]
        last = self.versions.get(stream)
        if "base" in frame:
            bases = frame.get("bases") or [frame["base"]]
            gap = last is not None and last not in bases and version > last
        else:
            gap = frame["type"] == "update" and last is not None and version > last + 1
        if gap:
            self.reloads += 1
            await ws.send_str(json.dumps({"type": "reload"}))
            return
        if last is None or version > last:
            self.versions[stream] = version


@dataclass
class Api:
    """A signed-in browser's API calls (session cookie + CSRF token) to any daphne process."""

    user: User
    cookie: str = ""
    csrf: str = field(default_factory=lambda: get_random_string(32))

    def __post_init__(self) -> None:
        self.cookie = session_cookie(self.user)

    def post(
        self, server: str, path: str, body: dict[str, Any], key: str | None = None
    ) -> requests.Response:
        headers = {
            "Cookie": f"{self.cookie}; {settings.CSRF_COOKIE_NAME}={self.csrf}",
            "X-CSRFToken": self.csrf,
            "Idempotency-Key": key or uuid.uuid4().hex,
        }
        return requests.post(server + path, json=body, headers=headers, timeout=15)
