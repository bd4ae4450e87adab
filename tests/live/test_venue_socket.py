"""The venue's display hears the check-in part of the board (stream "venue"); nobody else does.

The board socket of a House member's session and of House's display link
(`ws/events/<id>/board/<token>/`) get the check-in code and its QR pushed when House switches
self check-in, and lose them at the start and at finalization; an anonymous board socket never
receives the code, in its snapshot or in any frame.
"""

from __future__ import annotations

import json
from collections.abc import Callable
from typing import Any

import pytest
from asgiref.sync import async_to_sync
from channels.db import database_sync_to_async
from channels.testing import WebsocketCommunicator

from events import services
from events.venue import display_path
from staff.scopes import Scope
from tests.events.support import complete_table
from tests.factories import Table, make_table, make_user
from tests.live.sockets import TIMEOUT, open_socket, session_cookie
from web.follow import qr_svg

pytestmark = pytest.mark.django_db(transaction=True)

LAN = "http://192.168.1.20:8000"  # the address House configures (SITE_URL)


def path(event_id: int) -> str:
    return f"/ws/events/{event_id}/board/"


def display_socket_path(table: Table) -> str:
    link = display_path(table.refresh())
    assert link is not None
    token = link.rstrip("/").rsplit("/", 1)[1]
    return f"/ws/events/{table.event.pk}/board/{token}/"


def switch(table: Table, enabled: bool) -> Callable[[], Any]:
    return lambda: services.self_check_in_switch(
        event_id=table.event.pk, by=table.house, enabled=enabled
    )


async def until_venue(socket: WebsocketCommunicator, seen: list[str]) -> dict[str, Any]:
    """Frames until the next "venue" one, which it answers; every frame's text goes to `seen`."""
    while True:
        text = await socket.receive_from(timeout=TIMEOUT)
        seen.append(text)
        frame = json.loads(text)
        if frame["stream"] == "venue":
            return frame


async def code_now(table: Table) -> str:
    event = await database_sync_to_async(table.refresh)()
    return event.check_in_code


def test_an_anonymous_board_never_receives_the_code() -> None:
    table = make_table("league", players=2)

    async def scenario() -> None:
        socket = await open_socket(path(table.event.pk))
        seen = [await socket.receive_from(timeout=TIMEOUT)]
        await database_sync_to_async(switch(table, True))()
        code = await code_now(table)
        # The change reaches the board (its version moves), never its code.
        frame = json.loads(await socket.receive_from(timeout=TIMEOUT))
        assert frame["stream"] == "board"
        seen.append(json.dumps(frame))
        assert await socket.receive_nothing(timeout=0.5)
        await socket.send_json_to({"type": "reload"})
        seen.append(await socket.receive_from(timeout=TIMEOUT))
        assert await socket.receive_nothing(timeout=0.5)
        assert all(code not in text for text in seen)
        assert all(json.loads(text)["stream"] == "board" for text in seen)
        await socket.disconnect()

    async_to_sync(scenario)()


def test_the_kiosk_opened_by_house_follows_the_switch_and_the_phase(settings: Any) -> None:
    settings.SITE_URL = LAN
    table = make_table("league", players=2)
    cookie = session_cookie(table.house)

    async def scenario() -> None:
        socket = await open_socket(path(table.event.pk), cookie=cookie)
        seen: list[str] = []
        first = await until_venue(socket, seen)
        assert first["type"] == "snapshot" and "check-in-code" not in first["html"]
        assert "Scan to follow the event" in first["html"]
        await database_sync_to_async(switch(table, True))()
        code = await code_now(table)
        on = await until_venue(socket, seen)
        assert f"data-check-in-code>{code}</strong>" in on["html"]
        assert "Scan to check in" in on["html"]
        here = f"{LAN}/events/{table.event.pk}/check-in"
        assert str(qr_svg(f"{here}?code={code}")) in on["html"]
        await database_sync_to_async(switch(table, False))()
        off = await until_venue(socket, seen)
        assert "check-in-code" not in off["html"] and code not in off["html"]
        await database_sync_to_async(switch(table, True))()
        again = await until_venue(socket, seen)
        new_code = await code_now(table)
        assert f"data-check-in-code>{new_code}</strong>" in again["html"]
        assert on["version"] < off["version"] < again["version"]
        # The start: late arrivals go to House; no code.
        await database_sync_to_async(table.start)()
        late = await until_venue(socket, seen)
        assert new_code not in late["html"] and "Late arrivals: see House" in late["html"]
        await socket.disconnect()

    async_to_sync(scenario)()


def test_finalization_takes_the_check_in_part_off_the_kiosk(settings: Any) -> None:
    settings.SITE_URL = LAN
    table = complete_table("league", players=2)
    services.self_check_in_switch(event_id=table.event.pk, by=table.house, enabled=True)
    services.pool_confirm(event_id=table.event.pk, by=table.house)
    cookie = session_cookie(table.house)

    async def scenario() -> None:
        socket = await open_socket(path(table.event.pk), cookie=cookie)
        seen: list[str] = []
        first = await until_venue(socket, seen)
        assert "Late arrivals: see House" in first["html"]
        await database_sync_to_async(services.event_finalize)(
            event_id=table.event.pk, by=table.house
        )
        final = await until_venue(socket, seen)
        assert "Late arrivals" not in final["html"] and "check-in-code" not in final["html"]
        assert "Scan to follow the event" in final["html"]
        await socket.disconnect()

    async_to_sync(scenario)()


def test_the_display_link_shows_the_code_until_the_code_changes() -> None:
    table = make_table("league", players=2)
    services.self_check_in_switch(event_id=table.event.pk, by=table.house, enabled=True)
    code = table.refresh().check_in_code
    display = display_socket_path(table)

    async def scenario() -> None:
        socket = await open_socket(display)  # a laptop that is not signed in
        seen: list[str] = []
        first = await until_venue(socket, seen)
        assert f"data-check-in-code>{code}</strong>" in first["html"]
        # No SITE_URL, and the socket's Origin (tests.live.sockets) is a loopback address: no
        # QR phones could not open, but the code for House to read out.
        assert "Phones cannot reach 127.0.0.1" in first["html"] and "<svg" not in first["html"]
        await database_sync_to_async(switch(table, False))()
        off = await until_venue(socket, seen)
        assert code not in off["html"] and "check-in-code" not in off["html"]
        await database_sync_to_async(switch(table, True))()
        new_code = await code_now(table)
        stale = await until_venue(socket, seen)
        assert new_code not in stale["html"] and "check-in-code" not in stale["html"]
        assert "This display link is out of date" in stale["html"]
        # A reload does not bring it back either.
        await socket.send_json_to({"type": "reload"})
        await socket.receive_from(timeout=TIMEOUT)  # the board
        again = await until_venue(socket, seen)
        assert new_code not in again["html"]
        assert all(new_code not in text for text in seen)
        await socket.disconnect()

    async_to_sync(scenario)()


def test_a_forged_display_link_is_a_plain_board() -> None:
    table = make_table("league", players=2)
    services.self_check_in_switch(event_id=table.event.pk, by=table.house, enabled=True)
    code = table.refresh().check_in_code
    display = display_socket_path(table)
    forged = display[:-3] + ("A" if display[-3] != "A" else "B") + display[-2:]

    async def scenario() -> None:
        socket = await open_socket(forged)
        text = await socket.receive_from(timeout=TIMEOUT)
        assert json.loads(text)["stream"] == "board" and code not in text
        assert await socket.receive_nothing(timeout=0.5)
        await socket.disconnect()

    async_to_sync(scenario)()


def test_a_removed_house_members_kiosk_loses_the_code() -> None:
    table = make_table("league", players=2)
    member = make_user("Helper")
    services.house_member_add(scope=Scope.of(table.event), by=table.house, member=member)
    services.self_check_in_switch(event_id=table.event.pk, by=table.house, enabled=True)
    code = table.refresh().check_in_code
    cookie = session_cookie(member)

    async def scenario() -> None:
        socket = await open_socket(path(table.event.pk), cookie=cookie)
        seen: list[str] = []
        first = await until_venue(socket, seen)
        assert f"data-check-in-code>{code}</strong>" in first["html"]
        await database_sync_to_async(services.house_member_remove)(
            scope=Scope.of(table.event), by=table.house, member=member
        )
        gone = await until_venue(socket, seen)
        assert code not in gone["html"] and "check-in-code" not in gone["html"]
        await database_sync_to_async(switch(table, False))()
        await database_sync_to_async(switch(table, True))()
        new_code = await code_now(table)
        # Still a board (its frames follow, the removal's, then each switch's), never the
        # venue's part again.
        versions: list[int] = []
        while len(versions) < 3 or not await socket.receive_nothing(timeout=0.5):
            text = await socket.receive_from(timeout=TIMEOUT)
            assert json.loads(text)["stream"] == "board" and new_code not in text
            versions.append(json.loads(text)["version"])
        assert versions[-1] == (await database_sync_to_async(table.refresh)()).version
        await socket.disconnect()

    async_to_sync(scenario)()
