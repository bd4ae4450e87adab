"""Removal from a series ends live access in its events (accounts/revocation.py): the removed
member's open House sockets of the series' events close before any further House frame, a new
self check-in code included, while their sockets elsewhere stay open. Real requests, real sockets
on the Redis channel layer."""

from __future__ import annotations

import pytest
from asgiref.sync import async_to_sync
from channels.db import database_sync_to_async

from events import services as events
from seasons import services
from seasons.models import Series
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


def house_path(event_id: int) -> str:
    return f"/ws/events/{event_id}/house/"


def test_removal_from_a_series_closes_the_members_house_sockets_of_its_events() -> None:
    night = make_table(players=2)  # an event of the series, registration open
    elsewhere = make_table(players=2)  # an event of no series
    owner = night.house
    series_id = services.series_create(by=owner, name="Thursday League").series_id
    services.event_series_set(event_id=night.event.pk, series_id=series_id, by=owner)
    member = make_user("Series Director")
    events.house_member_add(scope=Scope(Series, series_id), by=owner, member=member)
    events.house_member_add(scope=Scope.of(elsewhere.event), by=elsewhere.house, member=member)
    cookie = session_cookie(member)
    api = Api(owner)

    async def scenario() -> None:
        lost = await open_socket(house_path(night.event.pk), cookie=cookie)
        kept = await open_socket(house_path(elsewhere.event.pk), cookie=cookie)
        await by_stream(lost, 2)
        await by_stream(kept, 2)
        removal = f"/api/series/{series_id}/house-members/{member.pk}/"
        response = await database_sync_to_async(api.delete)(removal)
        assert response.status_code == 200, response.content
        message = await lost.receive_output(timeout=TIMEOUT)
        assert message == {"type": "websocket.close", "code": 4403}
        # The self check-in code House turns on next reaches nobody through the closed socket.
        await database_sync_to_async(events.self_check_in_switch)(
            event_id=night.event.pk, by=owner, enabled=True
        )
        assert await lost.receive_nothing(timeout=0.3)
        assert await kept.receive_nothing(timeout=0.3)
        assert await refusal(communicator(house_path(night.event.pk), cookie=cookie)) == 4403
        await lost.disconnect()
        await kept.disconnect()

    async_to_sync(scenario)()
