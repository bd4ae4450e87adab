"""House's pushed parts are in the language of the page that opened the socket: the account's
choice, else the handshake's language cookie or Accept-Language, as the page was rendered. Each
change is read and rendered once per language a House page of the event is open in, for every
sight heard in it; the standby panel follows the page's language too."""

from __future__ import annotations

import re
from collections.abc import Iterator
from datetime import UTC, datetime
from typing import Any

import pytest
from asgiref.sync import async_to_sync, sync_to_async
from channels.db import database_sync_to_async
from channels.testing import WebsocketCommunicator
from django.core.cache import cache
from django.utils import translation

from accounts.language import CODES
from accounts.models import User
from events import services
from house.read_model import HousePage, house_page, sight, sights
from live import protocol, targeting
from staff.scopes import Scope
from standby import state
from standby.state import Copy
from syndicate.asgi import application
from tests.factories import Table, make_table, make_user
from tests.live.sockets import ORIGIN, TIMEOUT, by_stream, session_cookie
from tests.standby.support import forget_everything

pytestmark = pytest.mark.django_db(transaction=True)

SPANISH = b"es-MX,es;q=0.9,en;q=0.5"


def path(event_id: int) -> str:
    return f"/ws/events/{event_id}/house/"


def forget_marks(event_id: int) -> None:
    """Event ids repeat across tests: no House page of another test's event may seem open."""
    for each in sights():
        for code in CODES:
            cache.delete(targeting._house_mark(event_id, each.name, code))
    for group in targeting.house_groups(event_id):
        cache.delete(targeting._shown_key(group))


@pytest.fixture
def table() -> Iterator[Table]:
    table = make_table(players=2, start=True)
    forget_marks(table.event.pk)
    yield table
    forget_marks(table.event.pk)


async def open_page_socket(
    url: str, cookie: bytes, accept_language: bytes | None = None
) -> WebsocketCommunicator:
    headers = [(b"origin", ORIGIN), (b"cookie", cookie)]
    if accept_language is not None:
        headers.append((b"accept-language", accept_language))
    socket = WebsocketCommunicator(application, url, headers=headers)
    connected, code = await socket.connect(timeout=TIMEOUT)
    assert connected, code
    return socket


def shown(frame: dict[str, Any]) -> str:
    """What a House frame's fragment shows, whole or in pieces."""
    return (frame.get("html") or "") + "".join((frame.get("parts") or {}).values())


def status_of(html: str, registration_id: int) -> str:
    """The status a player's row shows (a word the read model writes as it reads)."""
    row = re.search(rf'<tr id="house-row-{registration_id}".*?</tr>', html, re.S)
    assert row is not None, html
    status = re.search(r'<span class="status">([^<]*)</span>', row.group(0))
    assert status is not None
    return status.group(1)


def test_two_house_members_are_each_pushed_the_dashboard_in_their_own_language(
    table: Table,
) -> None:
    # The owner chose Spanish; two directors (the owner's sight) never chose: one reads English,
    # the other's browser asks for French.
    owner = table.house
    User.objects.filter(pk=owner.pk).update(language="es")
    director, other = make_user("Dee"), make_user("Fern")
    for member, role in ((director, "director"), (other, "director")):
        services.house_member_add(scope=Scope.of(table.event), by=owner, member=member, role=role)
    first_player = table.players[0]
    rid = table.rid(first_player)
    cookies = {who: session_cookie(user) for who, user in (("es", owner), ("en", director))}
    cookies["fr"] = session_cookie(other)
    event_id = table.event.pk

    async def scenario() -> dict[str, tuple[dict[str, Any], dict[str, Any]]]:
        sockets = {
            "es": await open_page_socket(path(event_id), cookies["es"], b"en"),  # the account's
            "en": await open_page_socket(path(event_id), cookies["en"]),
            "fr": await open_page_socket(path(event_id), cookies["fr"], b"fr-CA,fr;q=0.9"),
        }
        first = {code: (await by_stream(socket, 2))["house"][0] for code, socket in sockets.items()}
        await database_sync_to_async(table.choose_start)(first_player)
        heard = {}
        for code, socket in sockets.items():
            (update,) = (await by_stream(socket, 2))["house"]
            heard[code] = (first[code], update)
            assert await socket.receive_nothing(timeout=0.3), code  # one House frame, its own
            await socket.disconnect()
        return heard

    heard = async_to_sync(scenario)()
    words = {
        "es": ("Elegir cartas iniciales", "Enviar partida 1", "Presente"),
        "en": ("Choose starting cards", "Submit game 1", "Checked in"),
        "fr": ("Choisir les cartes de départ", "Déclarer la partie 1", "Présent"),
    }
    for code, (first, update) in heard.items():
        choose, submit, checked_in = words[code]
        assert first["type"] == "snapshot" and choose in first["html"], code
        assert status_of(first["html"], rid) == checked_in, code
        # A targeted update from the version the page holds: the player's row, in its language.
        assert update["type"] == "update" and update["base"] == first["version"], code
        row = update["parts"][f"house-row-{rid}"]
        assert submit in row and choose not in row, code
        assert status_of(row, rid) == checked_in, code
        others = {w for other, said in words.items() if other != code for w in said[:2]}
        assert not any(word in shown(update) for word in others), code
    # The three share a sight, yet each page has its own language's part.
    assert sight({"owner"}) == sight({"director"})


def test_each_change_is_read_and_rendered_once_per_language_open(
    table: Table, monkeypatch: pytest.MonkeyPatch
) -> None:
    event_id = table.event.pk
    owner = sight(["owner"])
    read: list[str] = []

    def reading(event: Any, **kwargs: Any) -> HousePage:
        read.append(translation.get_language())
        return house_page(event, **kwargs)

    monkeypatch.setattr(targeting, "house_page", reading)

    def rendered() -> list[str]:
        read.clear()
        snapshots = targeting.change_snapshots(event_id, [])
        return sorted(s.group for s in snapshots if s.stream == "house" and s.fragment)

    # One language open: one read and one render per sight heard, as before languages.
    targeting.house_listening(event_id, owner.name, "es")
    assert rendered() == [protocol.house_group(event_id, owner.name, "es")]
    assert read == ["es"]
    # Two languages open for one sight, one of them for a second sight: one read per language.
    cashier = sight(["cashier"])
    targeting.house_listening(event_id, owner.name, "en")
    targeting.house_listening(event_id, cashier.name, "es")
    assert rendered() == sorted(
        [
            protocol.house_group(event_id, owner.name, "en"),
            protocol.house_group(event_id, owner.name, "es"),
            protocol.house_group(event_id, cashier.name, "es"),
        ]
    )
    assert sorted(read) == ["en", "es"]
    # Every other group hears the version alone, so a page whose mark lapsed asks again.
    versions = [
        s
        for s in targeting.change_snapshots(event_id, [])
        if s.stream == "house" and not s.fragment
    ]
    assert len(versions) == len(targeting.house_groups(event_id)) - 3


def test_an_unknown_language_reads_english() -> None:
    table = make_table(players=2, start=True)
    forget_marks(table.event.pk)
    cookie = session_cookie(table.house)

    async def scenario() -> dict[str, Any]:
        socket = await open_page_socket(path(table.event.pk), cookie, b"xx-YY,zz;q=0.9")
        (first,) = (await by_stream(socket, 2))["house"]
        await socket.disconnect()
        return first

    try:
        first = async_to_sync(scenario)()
        assert "Choose starting cards" in first["html"]
        marked = cache.get(targeting._house_mark(table.event.pk, sight(["owner"]).name, "en"))
        assert marked == 1
    finally:
        forget_marks(table.event.pk)


def folder_lost() -> Copy:
    return Copy(
        name="folder",
        where="/media/usb/night",
        state="lost",
        synchronous=False,
        seconds_behind=None,
        reason="",
        reported_at=datetime.now(UTC),
    )


def test_the_standby_panel_is_pushed_in_each_pages_language() -> None:
    forget_everything()
    table = make_table(players=2, start=True)
    forget_marks(table.event.pk)
    cookie = session_cookie(table.house)

    async def scenario() -> dict[str, dict[str, Any]]:
        tonight = await open_page_socket("/ws/house/standby/", cookie, SPANISH)
        dashboard = await open_page_socket(path(table.event.pk), cookie, b"fr")
        english = await open_page_socket(path(table.event.pk), cookie)
        for socket in (dashboard, english):
            await by_stream(socket, 2)  # the board and House
        await sync_to_async(state.publish)(folder_lost())
        frames = {}
        for code, socket in (("es", tonight), ("fr", dashboard), ("en", english)):
            (frames[code],) = (await by_stream(socket, 1))["standby"]
            await socket.disconnect()
        return frames

    try:
        frames = async_to_sync(scenario)()
    finally:
        forget_everything()
        forget_marks(table.event.pk)
    words = {
        "es": ("Carpeta de respaldo", "Perdida"),
        "fr": ("Dossier de secours", "Perdue"),
        "en": ("Standby folder", "Lost"),
    }
    for code, (name, lost) in words.items():
        html = frames[code]["html"]
        assert f"<strong>{name}</strong>" in html and f">{lost}</span>" in html, code
