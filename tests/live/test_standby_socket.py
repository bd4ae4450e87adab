"""House's view of the standby copies on its sockets: the event's House socket and Tonight's
`ws/house/standby/` (house.copies, standby.state)."""

from __future__ import annotations

from collections.abc import Iterator
from datetime import UTC, datetime, timedelta
from typing import Any

import pytest
from asgiref.sync import async_to_sync, sync_to_async

from events import services as events
from organizations import services as organizations
from organizations.models import Organization
from seasons import services as seasons
from seasons.models import Series
from staff.scopes import Scope
from standby import snapshots, state
from standby.state import Copy
from tests.factories import make_table, make_user
from tests.live.sockets import (
    TIMEOUT,
    by_stream,
    communicator,
    open_socket,
    refusal,
    session_cookie,
)
from tests.standby.support import forget_everything

pytestmark = pytest.mark.django_db(transaction=True)

TONIGHT = "/ws/house/standby/"


@pytest.fixture(autouse=True)
def no_copies() -> Iterator[None]:
    forget_everything()
    yield
    forget_everything()


def folder(
    copy_state: state.State,
    *,
    reason: str = "",
    behind: float | None = None,
    at: datetime | None = None,
) -> Copy:
    return Copy(
        name="folder",
        where="/media/usb/night",
        state=copy_state,
        synchronous=copy_state == "in_step",
        seconds_behind=behind,
        reason=reason,
        reported_at=at or datetime.now(UTC),
    )


def house_path(event_id: int) -> str:
    return f"/ws/events/{event_id}/house/"


def test_the_house_socket_sends_the_panel_when_a_copy_changes() -> None:
    table = make_table(players=2, start=True)
    cookie = session_cookie(table.house)

    async def scenario() -> list[dict[str, Any]]:
        socket = await open_socket(house_path(table.event.pk), cookie=cookie)
        first = await by_stream(socket, 2)
        assert set(first) == {"board", "house"}  # no copy reported: no standby frame
        await sync_to_async(state.publish)(folder("in_step"))
        (step,) = (await by_stream(socket, 1))["standby"]
        # The same state again tells nobody; a change does.
        await sync_to_async(state.publish)(folder("in_step"))
        await sync_to_async(state.publish)(folder("lost", reason="The folder is gone."))
        (lost,) = (await by_stream(socket, 1))["standby"]
        assert await socket.receive_nothing(timeout=0.2)
        await socket.disconnect()
        return [step, lost]

    step, lost = async_to_sync(scenario)()
    assert step["type"] == "snapshot" and "In step" in step["html"]
    assert "/media/usb/night" in step["html"] and "Lost" not in step["html"]
    assert lost["version"] > step["version"]
    assert "Lost: The folder is gone." in lost["html"] and 'role="alert"' in lost["html"]


def test_a_reconnecting_house_socket_gets_the_copies_with_its_snapshots() -> None:
    table = make_table(players=2, start=True)
    cookie = session_cookie(table.house)
    state.publish(folder("behind", behind=4.4, reason="Catching up."))

    async def scenario() -> dict[str, list[dict[str, Any]]]:
        socket = await open_socket(house_path(table.event.pk), cookie=cookie)
        streams = await by_stream(socket, 3)
        await socket.disconnect()
        return streams

    streams = async_to_sync(scenario)()
    assert "Behind by 4 s" in streams["standby"][0]["html"]


def test_a_copy_whose_keeper_goes_silent_turns_lost_without_a_message() -> None:
    table = make_table(players=2, start=True)
    cookies = [session_cookie(table.house), session_cookie(table.house)]
    # Reported long enough ago that it reads as silent a moment after the sockets open.
    almost = datetime.now(UTC) - state.SILENT_AFTER + timedelta(seconds=1)
    state.report(folder("in_step", at=almost))

    async def scenario() -> list[dict[str, Any]]:
        house = await open_socket(house_path(table.event.pk), cookie=cookies[0])
        tonight = await open_socket(TONIGHT, cookie=cookies[1])
        opened = [(await by_stream(house, 3))["standby"][0], await tonight.receive_json_from()]
        # Nothing is published: each socket wakes when the copy's reports are overdue.
        late = TIMEOUT + state.SILENT_AFTER.total_seconds()
        woke = [await house.receive_json_from(timeout=late), await tonight.receive_json_from(late)]
        await house.disconnect()
        await tonight.disconnect()
        return opened + woke

    house_open, tonight_open, house_woke, tonight_woke = async_to_sync(scenario)()
    assert "In step" in house_open["html"] and "In step" in tonight_open["html"]
    for frame in (house_woke, tonight_woke):
        assert frame["stream"] == "standby"
        assert "Lost: Its keeper stopped reporting." in frame["html"]


def test_tonight_socket_sends_nothing_until_a_copy_is_reported() -> None:
    table = make_table(players=1)
    cookie = session_cookie(table.house)

    async def scenario() -> dict[str, Any]:
        socket = await open_socket(TONIGHT, cookie=cookie)
        assert await socket.receive_nothing(timeout=0.2)
        await sync_to_async(state.publish)(folder("starting"))
        frame = await socket.receive_json_from(timeout=TIMEOUT)
        await socket.disconnect()
        return frame

    frame = async_to_sync(scenario)()
    assert frame["stream"] == "standby" and "Starting" in frame["html"]
    # Tonight's panel never carries the dashboard's "only copy" line.
    assert "only copy" not in frame["html"]


def test_tonight_socket_is_for_the_deployments_house_only() -> None:
    """The copies are the deployment's: its site staff and the House of its own organization
    (an event's staff, its series') hear them; a player and another organization's staff, every
    role, are refused."""
    table = make_table(players=1)
    player = session_cookie(table.players[0])
    organizer = make_user("Organizer")
    elsewhere = organizations.organization_create(by=organizer, name="Elsewhere").organization_id
    scorer = make_user("Their scorer")
    events.house_member_add(
        scope=Scope(Organization, elsewhere), by=organizer, member=scorer, role="scorer"
    )
    theirs = [session_cookie(organizer), session_cookie(scorer)]
    series_id = seasons.series_create(by=make_user(staff=True), name="Thursdays").series_id
    series_member = make_user("Series scorer")
    events.house_member_add(
        scope=Scope(Series, series_id),
        by=Series.objects.get(pk=series_id).staff.get().user,
        member=series_member,
        role="scorer",
    )
    seeing = [
        session_cookie(table.house),
        session_cookie(make_user(staff=True)),
        session_cookie(series_member),
    ]

    async def scenario() -> tuple[list[int], list[bool]]:
        refused = [
            await refusal(communicator(TONIGHT)),
            await refusal(communicator(TONIGHT, cookie=player)),
            *[await refusal(communicator(TONIGHT, cookie=cookie)) for cookie in theirs],
        ]
        opened = []
        for cookie in seeing:
            socket = await open_socket(TONIGHT, cookie=cookie)
            await sync_to_async(state.publish)(folder("starting"))
            frame = await socket.receive_json_from(timeout=TIMEOUT)
            opened.append(frame["stream"] == "standby")
            await socket.disconnect()
        return refused, opened

    assert async_to_sync(scenario)() == ([4401, 4403, 4403, 4403], [True, True, True])


def test_another_organizations_house_socket_hears_no_copies() -> None:
    organizer = make_user("Organizer")
    elsewhere = organizations.organization_create(by=organizer, name="Elsewhere").organization_id
    event_id = events.event_create(
        by=organizer,
        organization_id=elsewhere,
        name="Their Friday",
        date=datetime.now(UTC).date(),
        format="league",
    ).event_id
    events.registration_open(event_id=event_id, by=organizer)
    cookie = session_cookie(organizer)

    async def scenario() -> bool:
        socket = await open_socket(house_path(event_id), cookie=cookie)
        assert set(await by_stream(socket, 2)) == {"board", "house"}
        await sync_to_async(state.publish)(folder("starting"))
        heard = not await socket.receive_nothing(timeout=0.5)
        await socket.disconnect()
        return heard

    assert async_to_sync(scenario)() is False


def test_a_snapshot_reaches_open_house_pages(tmp_path: Any, settings: Any) -> None:
    settings.STANDBY_DIR = str(tmp_path)
    table = make_table(players=2, start=True)  # its snapshot, before any socket opened
    cookie = session_cookie(table.house)

    async def scenario() -> list[dict[str, Any]]:
        socket = await open_socket(TONIGHT, cookie=cookie)
        opened = await socket.receive_json_from(timeout=TIMEOUT)  # a snapshot is shown
        await sync_to_async(snapshots.take)(event_id=table.event.pk, step="finalized")
        told = await socket.receive_json_from(timeout=TIMEOUT)
        await socket.disconnect()
        return [opened, told]

    opened, told = async_to_sync(scenario)()
    assert f"Snapshot at the start of {table.event.name}" in opened["html"]
    assert f"Snapshot at the finalization of {table.event.name}" in told["html"]
