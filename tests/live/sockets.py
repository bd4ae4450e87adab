"""Opening sockets the way a browser does: an Origin header and a signed-in session cookie."""

from __future__ import annotations

import re
from collections import defaultdict
from typing import Any

from channels.testing import WebsocketCommunicator
from django.conf import settings
from django.test import Client

from accounts.models import User
from syndicate.asgi import application
from tests.waiting import PATIENCE

ORIGIN = b"http://127.0.0.1"
TIMEOUT = PATIENCE  # a frame that comes returns at once; only a missing one waits this long


def session_cookie(user: User) -> bytes:
    """A real session for `user` (sync: call it before entering the async part of a test)."""
    client = Client()
    client.force_login(user)
    name = settings.SESSION_COOKIE_NAME
    return f"{name}={client.cookies[name].value}".encode()


def communicator(
    path: str, *, cookie: bytes | None = None, origin: bytes | None = ORIGIN
) -> WebsocketCommunicator:
    headers = []
    if origin is not None:
        headers.append((b"origin", origin))
    if cookie is not None:
        headers.append((b"cookie", cookie))
    return WebsocketCommunicator(application, path, headers=headers)


async def open_socket(path: str, *, cookie: bytes | None = None) -> WebsocketCommunicator:
    socket = communicator(path, cookie=cookie)
    connected, code = await socket.connect(timeout=TIMEOUT)
    assert connected, code
    return socket


async def refusal(socket: WebsocketCommunicator) -> int:
    """The close code of a refused socket (a denied handshake or an accept-then-close)."""
    connected, code = await socket.connect(timeout=TIMEOUT)
    if connected:
        message = await socket.receive_output(timeout=TIMEOUT)
        assert message["type"] == "websocket.close", message
        code = message.get("code", 1000)
    await socket.disconnect()
    return int(code)


async def frames(socket: WebsocketCommunicator, count: int) -> list[dict[str, Any]]:
    return [await socket.receive_json_from(timeout=TIMEOUT) for _ in range(count)]


async def by_stream(socket: WebsocketCommunicator, count: int) -> dict[str, list[dict[str, Any]]]:
    """`count` frames grouped by stream (streams of different groups may interleave)."""
    grouped: dict[str, list[dict[str, Any]]] = defaultdict(list)
    for frame in await frames(socket, count):
        grouped[frame["stream"]].append(frame)
    return dict(grouped)


def card_faces(value: Any) -> list[dict[str, Any]]:
    """Every card face anywhere in a message (a dict carrying a card code and a suit)."""
    found: list[dict[str, Any]] = []
    if isinstance(value, dict):
        if "code" in value and "suit" in value:
            found.append(value)
        for item in value.values():
            found.extend(card_faces(item))
    elif isinstance(value, list):
        for item in value:
            found.extend(card_faces(item))
    return found


def html_card_names(frame: dict[str, Any]) -> set[str]:
    """The names of the face-up cards a frame's HTML fragment shows (cards/card.html)."""
    names = re.findall(r'role="img" aria-label="([^",]+)', frame.get("html") or "")
    return set(names) - {"Empty card slot"}


def without_keys(frame: dict[str, Any]) -> dict[str, Any]:
    """A frame with its fragment's fresh idempotency keys blanked, to compare two renders."""
    html = frame.get("html")
    if html is None:
        return frame
    blank = re.sub(r'name="idempotency_key" value="[0-9a-f]+"', 'name="idempotency_key"', html)
    return {**frame, "html": blank}
