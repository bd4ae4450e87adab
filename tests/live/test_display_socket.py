"""A display link's board socket (`ws/events/<id>/board/<token>/`, events/display.py): it hears
the venue's check-in part like the board House opens; when House revokes the link its open
sockets close at once with 4410 and a new connect is refused alike, while other boards stay open.
Real sockets on the Redis channel layer."""

from __future__ import annotations

import datetime
import json
from typing import Any

import pytest
from asgiref.sync import async_to_sync
from channels.db import database_sync_to_async
from channels.testing import WebsocketCommunicator
from django.utils import timezone

from events import services
from events.models import Event
from seasons import services as seasons
from seasons.models import Series
from staff.scopes import Scope
from tests.factories import make_table
from tests.live.sockets import TIMEOUT, communicator, open_socket, refusal

pytestmark = pytest.mark.django_db(transaction=True)

GONE = 4410


def socket_path(event_id: int, path: str) -> str:
    token = path.rstrip("/").rsplit("/", 1)[1]
    return f"/ws/events/{event_id}/board/{token}/"


async def until_closed(socket: WebsocketCommunicator) -> tuple[int, list[dict[str, Any]]]:
    """The close code, and the frames that came before it (a public board update may)."""
    before: list[dict[str, Any]] = []
    while True:
        message = await socket.receive_output(timeout=TIMEOUT)
        if message["type"] == "websocket.close":
            return int(message.get("code", 1000)), before
        before.append(json.loads(message["text"]))


def test_revoking_a_link_closes_its_open_display_and_no_other_board() -> None:
    table = make_table("league", players=2)
    services.self_check_in_switch(event_id=table.event.pk, by=table.house, enabled=True)
    code = table.refresh().check_in_code
    made = services.display_link_create(scope=Scope.of(table.event), by=table.house, label="Bar")
    other = services.display_link_create(scope=Scope.of(table.event), by=table.house, label="Door")
    display = socket_path(table.event.pk, made.path)

    async def scenario() -> None:
        socket = await open_socket(display)  # a laptop that is not signed in
        first = [await socket.receive_json_from(timeout=TIMEOUT) for _ in range(2)]
        assert {frame["stream"] for frame in first} == {"board", "venue"}
        venue = next(frame for frame in first if frame["stream"] == "venue")
        assert f"data-check-in-code>{code}</strong>" in venue["html"]
        door = await open_socket(socket_path(table.event.pk, other.path))
        public = await open_socket(f"/ws/events/{table.event.pk}/board/")
        for kept in (door, public):
            await kept.receive_from(timeout=TIMEOUT)
        await database_sync_to_async(services.display_link_revoke)(
            scope=Scope.of(table.event), by=table.house, link_id=made.link_id
        )
        closed, before = await until_closed(socket)
        assert closed == GONE
        assert all(code not in json.dumps(frame) for frame in before)
        assert all(frame["stream"] == "board" for frame in before)
        # Reused, the link is refused at once.
        assert await refusal(communicator(display)) == GONE
        # The other link's display and the public board stay open and live.
        for kept in (door, public):
            await kept.send_json_to({"type": "reload"})
            frame = await kept.receive_json_from(timeout=TIMEOUT)
            while frame["type"] != "snapshot":  # the revocation's own board update first
                frame = await kept.receive_json_from(timeout=TIMEOUT)
            await kept.disconnect()
        await socket.disconnect()

    async_to_sync(scenario)()


def test_a_series_link_is_refused_on_an_event_its_series_no_longer_shows() -> None:
    tonight = make_table("league", players=2)
    house = tonight.house
    series = seasons.series_create(by=house, name="Thursday League").series_id
    seasons.event_series_set(event_id=tonight.event.pk, series_id=series, by=house)
    Event.objects.filter(pk=tonight.event.pk).update(date=timezone.now().date())
    made = services.display_link_create(scope=Scope(Series, series), by=house, label="Bar TV")
    display = socket_path(tonight.event.pk, made.path)

    async def scenario() -> None:
        socket = await open_socket(display)
        assert (await socket.receive_json_from(timeout=TIMEOUT))["stream"] in {"board", "venue"}
        await socket.disconnect()
        yesterday = timezone.now().date() - datetime.timedelta(days=1)
        await database_sync_to_async(
            lambda: Event.objects.filter(pk=tonight.event.pk).update(date=yesterday)
        )()
        # Nothing tonight, ahead or final: the series shows no event, so not this one.
        assert await refusal(communicator(display)) == GONE

    async_to_sync(scenario)()
