"""House's socket: `ws/events/<id>/house/` (the board and House's table)."""

from __future__ import annotations

from typing import Any

import pytest
from asgiref.sync import async_to_sync
from channels.db import database_sync_to_async
from django.core.cache import cache

from events import services
from house.read_model import house_table, sight, sights
from live import protocol, targeting
from staff.scopes import Scope
from tests.factories import make_table, make_user
from tests.live.sockets import (
    by_stream,
    card_faces,
    communicator,
    html_card_names,
    open_socket,
    refusal,
    session_cookie,
)

pytestmark = pytest.mark.django_db(transaction=True)


def path(event_id: int) -> str:
    return f"/ws/events/{event_id}/house/"


def test_it_sends_the_board_and_house_snapshots_on_connect_and_after_changes() -> None:
    table = make_table(players=2, start=True)
    event = table.refresh()
    expected = house_table(event).data()
    cookie = session_cookie(table.house)
    label = table.registration(table.players[0]).label

    async def scenario() -> list[dict]:
        socket = await open_socket(path(event.pk), cookie=cookie)
        streams = await by_stream(socket, 2)
        assert streams["board"][0]["version"] == event.version
        (snapshot,) = streams["house"]
        assert snapshot["type"] == "snapshot" and snapshot["version"] == event.version
        assert _timeless(snapshot["data"]) == _timeless(expected)
        await database_sync_to_async(table.choose_start)(table.players[0])
        changed = await by_stream(socket, 2)
        assert changed["house"][0]["type"] == "update"
        assert changed["house"][0]["version"] == changed["board"][0]["version"] == event.version + 1
        rows = {row["label"]: row for row in changed["house"][0]["data"]["players"]}
        assert rows[label]["kept"] == 1
        assert await socket.receive_nothing(timeout=0.2)
        await socket.disconnect()
        return [streams["house"][0], changed["house"][0]]

    # House sees no face-down card either: before the confirmation, no card at all.
    first, _ = async_to_sync(scenario)()
    assert card_faces(first) == [] and html_card_names(first) == set()
    assert "@example.com" not in str(first)
    assert 'class="players' in first["html"] or "Players" in first["html"]


def test_it_refuses_a_user_who_is_not_house_of_this_event() -> None:
    table = make_table(players=2, start=True)
    other_house = make_table().house
    cookies = [
        session_cookie(table.players[0]),
        session_cookie(other_house),
        session_cookie(make_user(staff=True)),
    ]

    async def scenario() -> None:
        for cookie in cookies:
            assert await refusal(communicator(path(table.event.pk), cookie=cookie)) == 4403
        assert await refusal(communicator(path(table.event.pk))) == 4401

    async_to_sync(scenario)()


def test_it_accepts_a_house_member_added_later() -> None:
    table = make_table(players=2)
    member = make_user("Second House")
    services.house_member_add(scope=Scope.of(table.event), by=table.house, member=member)
    cookie = session_cookie(member)

    async def scenario() -> None:
        socket = await open_socket(path(table.event.pk), cookie=cookie)
        assert set(await by_stream(socket, 2)) == {"board", "house"}
        await socket.disconnect()

    async_to_sync(scenario)()


def test_a_house_socket_gets_every_change_once_with_the_next_version() -> None:
    table = make_table(players=2, start=True)
    cookie = session_cookie(table.house)

    async def scenario() -> None:
        socket = await open_socket(path(table.event.pk), cookie=cookie)
        version = (await by_stream(socket, 2))["house"][0]["version"]
        for player in table.players:
            await database_sync_to_async(table.choose_start)(player)
            streams = await by_stream(socket, 2)
            assert streams["house"][0]["version"] == version + 1
            version += 1
        assert await socket.receive_nothing(timeout=0.2)
        await socket.disconnect()

    async_to_sync(scenario)()


def _timeless(house: Any) -> Any:
    """A House snapshot without the waiting times, which grow by the second."""
    for row in house["players"]:
        if row["pending"]:
            row["pending"].pop("waited_seconds")
    return house


def test_houses_fragment_is_rendered_only_while_a_house_page_listens() -> None:
    table = make_table(players=2, start=True)
    event_id = table.event.pk
    for each in sights():  # event ids repeat across tests
        cache.delete(targeting._house_mark(event_id, each.name))
    owner = protocol.house_group(event_id, sight(["owner"]).name)
    cookie = session_cookie(table.house)
    second = table.rid(table.players[1])
    label = table.registration(table.players[1]).label

    def house_frame() -> protocol.Snapshot:
        (house,) = [s for s in targeting.change_snapshots(event_id, []) if s.group == owner]
        return house

    assert not house_frame().fragment  # nobody listens: nothing rendered
    table.choose_start(table.players[0])

    async def scenario() -> None:
        socket = await open_socket(path(event_id), cookie=cookie)
        streams = await by_stream(socket, 2)
        assert "html" in streams["house"][0]
        await database_sync_to_async(table.choose_start)(table.players[1])
        changed = await by_stream(socket, 2)
        # The update carries the fragment's pieces that changed: the player's row.
        assert label in changed["house"][0]["parts"][f"house-row-{second}"]
        await socket.disconnect()

    async_to_sync(scenario)()
    assert house_frame().fragment  # the mark outlasts a reload of the page
