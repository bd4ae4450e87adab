"""Ending live access when access ends: an access reset or a House member's removal.

Every socket that carries private frames (a player's, House's) also listens on its account's
group, `user.<id>`. After the change that revoked access commits, `revoke` tells that group; each
socket then checks its access again and closes if it lost it (live/consumers.py), instead of
receiving private frames until it reconnects. The engine imports this module, never the consumers.
"""

from __future__ import annotations

import logging
from collections.abc import Callable
from typing import Any

logger = logging.getLogger(__name__)

# The handler a consumer needs for these messages: `access_revoke`.
MESSAGE_TYPE = "access.revoke"


def user_group(user_id: int) -> str:
    return f"user.{user_id}"


# How a message reaches a group's sockets: `live.protocol.send_to_group`, handed over by the live
# app (`live.apps`).
_send_to_group: Callable[[str, dict[str, Any]], None] | None = None


def send_with(send_to_group: Callable[[str, dict[str, Any]], None]) -> None:
    global _send_to_group
    _send_to_group = send_to_group


def revoke(user_id: int, *, event_id: int | None = None, series_id: int | None = None) -> None:
    """Have the account's open sockets check their access again: those of the scope whose
    access changed, an event (`event_id`) or a series (`series_id`: its events, whichever they
    are by then), or all of them when neither is given. Call it after the commit: a socket that
    checks earlier still sees the old access."""
    if _send_to_group is None:
        return
    message = {"type": MESSAGE_TYPE, "event_id": event_id, "series_id": series_id}
    try:
        _send_to_group(user_group(user_id), message)
    except Exception:
        # The change is committed either way; a socket that misses this still loses its access at
        # its next reload or reconnect, so a broken channel layer must not fail the request.
        logger.exception("Could not tell user %s's sockets that their access changed.", user_id)
