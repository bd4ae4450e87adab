"""The session of a websocket, as channels' `AuthMiddlewareStack` gives it, without wrapping sends.

Channels' `SessionMiddleware` puts the session in the scope and wraps the socket's `send` to save
the session and set its cookie on an HTTP response. A socket sends no HTTP response, so the
wrapper saves nothing there, but it still reads the session's state at every frame: a quarter of
what passing a relayed frame on cost a server under load (docs/performance.md, "Where a write's
milliseconds go"). Here the session is resolved the same way (channels' own wrapper) and the
socket's frames go straight to the server.
"""

from __future__ import annotations

from typing import Any

from channels.auth import AuthMiddleware
from channels.sessions import CookieMiddleware, InstanceSessionWrapper


class SocketSessionMiddleware:
    """channels' `SessionMiddleware`, for websockets: the session in the scope, `send` as is."""

    def __init__(self, inner: Any) -> None:
        self.inner = inner

    async def __call__(self, scope: dict[str, Any], receive: Any, send: Any) -> Any:
        assert scope["type"] == "websocket", scope["type"]
        wrapper = InstanceSessionWrapper(scope, send)
        await wrapper.resolve_session()
        return await self.inner(wrapper.scope, receive, send)


def socket_auth_stack(inner: Any) -> CookieMiddleware:
    """channels' `AuthMiddlewareStack` for websockets: cookies, the session, the user."""
    return CookieMiddleware(SocketSessionMiddleware(AuthMiddleware(inner)))
