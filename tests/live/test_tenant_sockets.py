"""One organizer's staff open no socket of another's (tests/tenants.py builds both worlds): A's
staff, every role, are refused the House socket of each of B's events; the public board of B's
events is theirs as anyone's, without the venue's check-in part (only B's House and B's display
links hear it) and without anything private of B; B's display link opens no board of A's event;
a player of A opens no player socket in B's events; A's staff, an organization of their own, do
not hear the deployment's standby copies (Tonight's socket refuses them). A suspended
organization's own staff are refused its House sockets. Real sockets through the project's ASGI
application, on the Redis channel layer; the worlds committed, as the sockets' threads read
them."""

from __future__ import annotations

import json

import pytest
from asgiref.sync import async_to_sync

from organizations import operator
from organizations.models import Organization
from tests.live.sockets import communicator, frames, open_socket, refusal, session_cookie
from tests.tenants import LEVELS, PHASES, build_world

pytestmark = pytest.mark.django_db(transaction=True)

NOT_ALLOWED, GONE = 4403, 4410
STANDBY = "/ws/house/standby/"


@pytest.mark.parametrize("level", LEVELS)
def test_another_tenants_sockets_refuse_its_staff_and_players(level: str) -> None:
    a, b = build_world("Alpha", level), build_world("Bravo", level)
    staff = {user.display_name: session_cookie(user) for user in a.staff}
    player = session_cookie(a.players[0])
    b_director = session_cookie(b.house.director)
    b_events = [b.ids[phase]["event_id"] for phase in PHASES]
    a_started = a.ids["started"]["event_id"]
    private = b.private

    async def scenario() -> dict[str, list[int]]:
        closed: dict[str, list[int]] = {"house": [], "player": [], "display": [], "standby": []}
        for cookie in staff.values():
            if level == "organization":
                closed["standby"].append(await refusal(communicator(STANDBY, cookie=cookie)))
            for event_id in b_events:
                socket = communicator(f"/ws/events/{event_id}/house/", cookie=cookie)
                closed["house"].append(await refusal(socket))
            for event_id in b_events:
                board = await open_socket(f"/ws/events/{event_id}/board/", cookie=cookie)
                (snapshot,) = await frames(board, 1)
                assert snapshot["stream"] == "board", snapshot
                assert not [s for s in private if s in json.dumps(snapshot)]
                # The venue's part follows the board's at once for the venue's display only.
                assert await board.receive_nothing(timeout=0.3)
                await board.disconnect()
        for event_id in b_events:
            socket = communicator(f"/ws/events/{event_id}/player/", cookie=player)
            closed["player"].append(await refusal(socket))
        for token in (b.tokens["display"], b.tokens["series_display"]):
            socket = communicator(f"/ws/events/{a_started}/board/{token}/", cookie=player)
            closed["display"].append(await refusal(socket))
        # B's own staff open B's board as the venue's display: its check-in part follows.
        board = await open_socket(
            f"/ws/events/{b.ids['open']['event_id']}/board/", cookie=b_director
        )
        streams = [frame["stream"] for frame in await frames(board, 2)]
        await board.disconnect()
        assert streams == ["board", "venue"], streams
        return closed

    closed = async_to_sync(scenario)()
    assert closed == {
        "house": [NOT_ALLOWED] * len(staff) * len(b_events),
        "player": [NOT_ALLOWED] * len(b_events),
        "display": [GONE, GONE],
        "standby": [NOT_ALLOWED] * len(staff) if level == "organization" else [],
    }


def test_a_suspended_organizations_staff_are_refused_its_house_sockets() -> None:
    world = build_world("Alpha")
    event_id = world.ids["started"]["event_id"]
    cookies = [session_cookie(user) for user in world.staff]

    async def opened() -> list[bool]:
        shown = []
        for cookie in cookies:
            socket = await open_socket(f"/ws/events/{event_id}/house/", cookie=cookie)
            shown.append(bool(await frames(socket, 1)))
            await socket.disconnect()
        return shown

    assert async_to_sync(opened)() == [True] * len(cookies)
    operator.suspend(slug=Organization.objects.get(pk=world.house.organization_id).slug)

    async def refused() -> list[int]:
        return [
            await refusal(communicator(f"/ws/events/{event_id}/house/", cookie=cookie))
            for cookie in cookies
        ]

    assert async_to_sync(refused)() == [NOT_ALLOWED] * len(cookies)
