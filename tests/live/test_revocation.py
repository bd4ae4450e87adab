"""Revoked access ends live access: an access reset or a House member's removal closes the
account's open sockets at once, and only those that lost access. Real requests through Django's
test client, real sockets on the Redis channel layer."""

from __future__ import annotations

import pytest
from asgiref.sync import async_to_sync
from channels.db import database_sync_to_async

from events import services
from staff.scopes import Scope
from tests.api.support import Api
from tests.factories import make_table, make_user
from tests.live.sockets import (
    TIMEOUT,
    by_stream,
    communicator,
    open_socket,
    refusal,
    session_cookie,
)

pytestmark = pytest.mark.django_db(transaction=True)


def player_path(event_id: int) -> str:
    return f"/ws/events/{event_id}/player/"


def house_path(event_id: int) -> str:
    return f"/ws/events/{event_id}/house/"


def test_an_access_reset_closes_the_players_open_sockets_before_any_further_frame() -> None:
    table = make_table(players=2, start=True)
    player = table.players[0]
    # The player has two phones signed in, each with the event open.
    cookies = [session_cookie(player), session_cookie(player)]
    house = Api(table.house)
    reset = f"/api/registrations/{table.rid(player)}/access-reset/"

    async def scenario() -> None:
        sockets = [await open_socket(player_path(table.event.pk), cookie=c) for c in cookies]
        for socket in sockets:
            assert set(await by_stream(socket, 2)) == {"places", "player"}
        response = await database_sync_to_async(house.post)(reset, {"reason": "Phone stolen"})
        assert response.status_code == 200
        for socket in sockets:
            # The close comes first: not even the reset's own update reaches the stolen phone.
            message = await socket.receive_output(timeout=TIMEOUT)
            assert message == {"type": "websocket.close", "code": 4401}
        # The thief cannot reconnect with the old cookie either.
        assert await refusal(communicator(player_path(table.event.pk), cookie=cookies[0])) == 4401
        for socket in sockets:
            await socket.disconnect()

    async_to_sync(scenario)()


def test_an_access_reset_leaves_other_players_sockets_open() -> None:
    table = make_table(players=2, start=True)
    reset_player, other = table.players
    cookie = session_cookie(other)
    house = Api(table.house)
    reset = f"/api/registrations/{table.rid(reset_player)}/access-reset/"

    async def scenario() -> None:
        socket = await open_socket(player_path(table.event.pk), cookie=cookie)
        await by_stream(socket, 2)
        response = await database_sync_to_async(house.post)(reset, {"reason": "Lost phone"})
        assert response.status_code == 200
        # The reset is a public change (an audit entry): the places move on, the socket stays.
        frame = await socket.receive_json_from(timeout=TIMEOUT)
        assert frame["type"] == "snapshot" and frame["stream"] == "places"
        await database_sync_to_async(table.choose_start)(other)
        streams = await by_stream(socket, 2)
        assert set(streams) == {"places", "player"}
        await socket.disconnect()

    async_to_sync(scenario)()


def test_a_removed_house_member_loses_that_events_socket_and_keeps_the_others() -> None:
    kept = make_table(players=2, start=True)
    lost = make_table(players=2, start=True)
    member = make_user("Second House")
    for table in (kept, lost):
        services.house_member_add(scope=Scope.of(table.event), by=table.house, member=member)
    cookie = session_cookie(member)
    staff = Api(lost.house)
    removal = f"/api/events/{lost.event.pk}/house-members/{member.pk}/"

    async def scenario() -> None:
        lost_socket = await open_socket(house_path(lost.event.pk), cookie=cookie)
        kept_socket = await open_socket(house_path(kept.event.pk), cookie=cookie)
        await by_stream(lost_socket, 2)
        await by_stream(kept_socket, 2)
        response = await database_sync_to_async(staff.delete)(removal)
        assert response.status_code == 200
        message = await lost_socket.receive_output(timeout=TIMEOUT)
        assert message == {"type": "websocket.close", "code": 4403}
        # A change in the event the member lost reaches nobody through the closed socket ...
        await database_sync_to_async(lost.choose_start)(lost.players[0])
        assert await lost_socket.receive_nothing(timeout=0.3)
        # ... while the event they are still House for goes on as before.
        assert await kept_socket.receive_nothing(timeout=0.3)
        await database_sync_to_async(kept.choose_start)(kept.players[0])
        assert set(await by_stream(kept_socket, 2)) == {"board", "house"}
        assert await refusal(communicator(house_path(lost.event.pk), cookie=cookie)) == 4403
        await lost_socket.disconnect()
        await kept_socket.disconnect()

    async_to_sync(scenario)()


def test_a_removed_house_members_player_socket_in_the_same_event_stays_open() -> None:
    table = make_table(players=1, start=False)
    member = make_user("Door House")
    services.house_member_add(scope=Scope.of(table.event), by=table.house, member=member)
    services.player_register(event_id=table.event.pk, by=member)  # also plays in the event
    cookie = session_cookie(member)
    staff = Api(table.house)

    async def scenario() -> None:
        house_socket = await open_socket(house_path(table.event.pk), cookie=cookie)
        player_socket = await open_socket(player_path(table.event.pk), cookie=cookie)
        await by_stream(house_socket, 2)
        await by_stream(player_socket, 2)
        removal = f"/api/events/{table.event.pk}/house-members/{member.pk}/"
        response = await database_sync_to_async(staff.delete)(removal)
        assert response.status_code == 200
        message = await house_socket.receive_output(timeout=TIMEOUT)
        assert message == {"type": "websocket.close", "code": 4403}
        # Still a player there: their own socket checks its access again and stays; the event
        # has not started, so no places move, and a reload answers with the player's state.
        assert await player_socket.receive_nothing(timeout=0.3)
        await player_socket.send_json_to({"type": "reload"})
        assert set(await by_stream(player_socket, 2)) == {"player", "places"}
        await house_socket.disconnect()
        await player_socket.disconnect()

    async_to_sync(scenario)()


@pytest.mark.parametrize(
    "path",
    [
        "/ws/",
        "/ws/events/",
        "/ws/events/abc/board/",
        "/ws/events/1/admin/",
        "/ws/events/1/board/extra/",
        "/ws/../../etc/passwd",
        "/ws/events/1/board/%00/",
        "/" + "a" * 5000,
    ],
)
def test_a_websocket_path_with_no_route_is_closed_cleanly(path: str) -> None:
    async def scenario() -> int:
        return await refusal(communicator(path))

    assert async_to_sync(scenario)() == 4404


def test_an_event_id_beyond_any_integer_column_is_not_found() -> None:
    cookie = session_cookie(make_user())

    async def scenario() -> list[int]:
        huge = 10**30
        return [
            await refusal(communicator(f"/ws/events/{huge}/board/")),
            await refusal(communicator(f"/ws/events/{huge}/player/", cookie=cookie)),
            await refusal(communicator(f"/ws/events/{huge}/house/", cookie=cookie)),
        ]

    assert async_to_sync(scenario)() == [4404, 4404, 4404]
