"""The permission table walked over House's sockets (staff/roles.py: `SIGHTS` and `may`): each
role's House socket hears its sight's group, whose live part, first sent whole and then pushed
piece by piece, holds exactly the actions the role may do and the night's money only if the
role may see it; owner and director share one sight, so one render. A display link, a player
and a visitor hear no House part at all. Real sockets on the Redis channel layer."""

from __future__ import annotations

import json
import re
from typing import Any

import pytest
from asgiref.sync import async_to_sync
from channels.db import database_sync_to_async
from channels.testing import WebsocketCommunicator

from house.read_model import sight
from ledger import services as ledger
from live import protocol, targeting
from staff import roles as staff
from tests.house.permissions import ROLES, allowed, night, offered, shows_money
from tests.live.sockets import (
    TIMEOUT,
    by_stream,
    communicator,
    open_socket,
    refusal,
    session_cookie,
)

pytestmark = pytest.mark.django_db(transaction=True)

SIGN_IN, NOT_ALLOWED = 4401, 4403
# A fresh idempotency key differs at every render: no difference in what a part shows.
KEYS = re.compile(r'(name="idempotency_key" value="|data-key=")[0-9a-f]{32}"')
# A pending choice's age is rendered at each snapshot (the page ages it itself).
AGES = re.compile(r'(<span class="age"[^>]*>)[^<]*<')


def house_path(event_id: int) -> str:
    return f"/ws/events/{event_id}/house/"


def shown(frame: dict[str, Any]) -> str:
    """What a House frame's fragment shows, whole or in pieces, without its fresh keys and ages."""
    html = (frame.get("html") or "") + "".join((frame.get("parts") or {}).values())
    return AGES.sub(r"\1<", KEYS.sub(r'\1"', html))


def timeless(data: Any) -> Any:
    """House's table without the pending choices' ages (read at each snapshot)."""
    if isinstance(data, dict):
        return {k: timeless(v) for k, v in data.items() if k != "waited_seconds"}
    if isinstance(data, list):
        return [timeless(v) for v in data]
    return data


def test_each_role_house_socket_hears_exactly_what_its_role_may_see_and_do() -> None:
    scene = night()
    event_id = scene.event_id
    for each in {sight({role}).name for role in ROLES}:  # event ids repeat across tests
        targeting.cache.delete(targeting._house_mark(event_id, each))
    cookies = {role: session_cookie(scene.people[role]) for role in ROLES}
    owner_first: dict[str, Any] = {}
    second = scene.rid(1)

    async def scenario() -> dict[str, tuple[dict[str, Any], dict[str, Any]]]:
        sockets: dict[str, WebsocketCommunicator] = {}
        first: dict[str, dict[str, Any]] = {}
        for role in ROLES:
            sockets[role] = await open_socket(house_path(event_id), cookie=cookies[role])
            (first[role],) = (await by_stream(sockets[role], 2))["house"]
        owner_first.update(first["owner"])
        # A cashier records an entry paid in cash: the cash box and the player's row change.
        await database_sync_to_async(ledger.entry_payment)(
            event_id=event_id,
            registration_id=second,
            by=scene.people["cashier"],
            method="cash",
        )
        heard = {}
        for role in ROLES:
            (update,) = (await by_stream(sockets[role], 2))["house"]
            heard[role] = (first[role], update)
            assert await sockets[role].receive_nothing(timeout=0.2)
            await sockets[role].disconnect()
        return heard

    heard = async_to_sync(scenario)()
    everything = offered(owner_first["html"])
    for role in ROLES:
        first, update = heard[role]
        assert offered(first["html"]) == allowed(role, everything), role
        assert offered(shown(update)) <= allowed(role, everything), role
        sees = staff.may_see({role}, "money")
        assert shows_money(first["html"]) == sees, role
        assert update["type"] == "update" and "base" in update, role
        if sees:  # the cash box moved, and only a role that sees it is sent it
            assert "cash-box" in update["parts"] and shows_money(update["parts"]["cash-box"])
        else:
            assert not shows_money(shown(update)), role
            assert "Cash in" not in shown(update), role
    # The owner and a director share one sight: one render, the same frames.
    assert sight({"owner"}) == sight({"director"})
    for owner, director in zip(heard["owner"], heard["director"], strict=True):
        assert shown(owner) == shown(director)
        assert timeless(owner.get("data")) == timeless(director.get("data"))
    assert shown(heard["cashier"][0]) != shown(heard["scorer"][0])


def test_each_sight_is_rendered_once_for_all_its_sockets() -> None:
    scene = night()
    event_id = scene.event_id
    seen = {role: sight({role}) for role in ROLES}
    for each in seen.values():
        targeting.cache.delete(targeting._house_mark(event_id, each.name))
    for role in ROLES:
        targeting.house_listening(event_id, seen[role].name)
    snapshots = [
        s for s in targeting.change_snapshots(event_id, [scene.rid(1)]) if s.stream == "house"
    ]
    groups = [s.group for s in snapshots if s.fragment]
    # Four pages open, three sights: three renders, one per group.
    assert sorted(groups) == sorted({protocol.house_group(event_id, s.name) for s in seen.values()})
    assert len(groups) == 3


def test_who_holds_no_role_hears_no_house_part() -> None:
    scene = night()
    event_id = scene.event_id
    player = session_cookie(scene.people["player"])
    token = scene.link.rstrip("/").rsplit("/", 1)[1]

    async def scenario() -> None:
        assert await refusal(communicator(house_path(event_id))) == SIGN_IN  # a visitor
        assert await refusal(communicator(house_path(event_id), cookie=player)) == NOT_ALLOWED
        # The display link's laptop has no account: its House socket is a visitor's, and its
        # board socket hears the board alone (and the venue's check-in part).
        display = await open_socket(f"/ws/events/{event_id}/board/{token}/")
        frames = []
        while not await display.receive_nothing(timeout=0.3):
            frames.append(await display.receive_json_from(timeout=TIMEOUT))
        assert frames and {frame["stream"] for frame in frames} <= {"board", "venue"}
        assert not any(shows_money(json.dumps(frame)) for frame in frames)
        await display.disconnect()

    async_to_sync(scenario)()
