"""A player's pushed panel is in the language of the page that opened the socket: the account's
choice, else the handshake's language cookie or Accept-Language, as the page was rendered; each
change is rendered once per language a page of the player is open in."""

from __future__ import annotations

from typing import Any

import pytest
from asgiref.sync import async_to_sync
from channels.db import database_sync_to_async
from channels.testing import WebsocketCommunicator
from django.core.cache import cache

from accounts.models import User
from events.models import Registration
from live import targeting
from syndicate.asgi import application
from tests.factories import Table, make_table
from tests.live.sockets import ORIGIN, TIMEOUT, by_stream, session_cookie

pytestmark = pytest.mark.django_db(transaction=True)


def path(event_id: int) -> str:
    return f"/ws/events/{event_id}/player/"


async def open_page_socket(
    table: Table, cookie: bytes, accept_language: bytes | None = None
) -> WebsocketCommunicator:
    headers = [(b"origin", ORIGIN), (b"cookie", cookie)]
    if accept_language is not None:
        headers.append((b"accept-language", accept_language))
    socket = WebsocketCommunicator(application, path(table.event.pk), headers=headers)
    connected, code = await socket.connect(timeout=TIMEOUT)
    assert connected, code
    return socket


def step(frame: dict[str, Any]) -> str:
    return str(frame["data"]["next_step"]["text"])


def test_a_player_who_never_chose_gets_pushed_panels_in_each_pages_language() -> None:
    table = make_table(players=2, start=True)
    player = table.players[0]
    cookie = session_cookie(player)

    async def scenario() -> None:
        spanish = await open_page_socket(table, cookie, b"es-MX,es;q=0.9,en;q=0.5")
        english = await open_page_socket(table, cookie)
        french = await open_page_socket(table, cookie + b"; django_language=fr", b"es")
        first = {
            name: (await by_stream(socket, 2))["player"][0]
            for name, socket in (("es", spanish), ("en", english), ("fr", french))
        }
        assert step(first["es"]).startswith("Elige ")
        assert step(first["en"]).startswith("Choose ")
        assert step(first["fr"]).startswith("Choisissez ")

        await database_sync_to_async(table.choose_start)(player)

        seen = {
            name: (await by_stream(socket, 2))["player"]
            for name, socket in (("es", spanish), ("en", english), ("fr", french))
        }
        for name, (frame,) in seen.items():
            assert frame["type"] == "update", name
            assert frame["version"] == first[name]["version"] + 1
        assert step(seen["es"][0]) == "Informa de la partida 1"
        assert "Informa de la partida 1" in seen["es"][0]["html"]
        assert step(seen["en"][0]) == "Report game 1"
        assert step(seen["fr"][0]) == "Déclarez la partie 1"
        for socket in (spanish, english, french):
            assert await socket.receive_nothing(timeout=0.3)  # one frame each, its own
            await socket.disconnect()

    async_to_sync(scenario)()


def test_a_page_whose_mark_lapsed_is_sent_its_own_snapshot() -> None:
    table = make_table(players=2, start=True)
    player = table.players[0]
    cookie = session_cookie(player)
    rid = table.rid(player)

    async def scenario() -> None:
        spanish = await open_page_socket(table, cookie, b"es")
        own = (await by_stream(spanish, 2))["player"][0]["version"]
        # The mark outlived (a quiet page, a cache restart): the publisher knows only the site's.
        await database_sync_to_async(cache.delete)(targeting._player_mark(rid, "es"))

        await database_sync_to_async(table.choose_start)(player)

        # The change's places, then the page's own snapshots (its panel and its places again).
        streams = await by_stream(spanish, 3)
        assert len(streams["places"]) == 2
        (frame,) = streams["player"]
        assert frame["type"] == "snapshot" and frame["version"] == own + 1
        assert step(frame) == "Informa de la partida 1"
        assert await spanish.receive_nothing(timeout=0.3)  # not the English one too
        assert await database_sync_to_async(cache.get)(targeting._player_mark(rid, "es")) == 1
        await spanish.disconnect()

    async_to_sync(scenario)()


def test_each_change_is_rendered_once_per_language_open() -> None:
    table = make_table(players=3, start=True)
    ann, bob, cy = table.players
    User.objects.filter(pk=cy.pk).update(language="fr")
    rids = [table.rid(p) for p in (ann, bob, cy)]

    def languages() -> dict[int, list[str | None]]:
        found: dict[int, list[str | None]] = {rid: [] for rid in rids}
        for snapshot in targeting.change_snapshots(table.event.pk, rids):
            if snapshot.stream == "player":
                found[int(snapshot.group.split(".")[1])].append(snapshot.language)
        for listed in found.values():
            listed.sort()
        return found

    # No page open: nothing is read nor rendered, each player's group hears their version alone.
    assert languages() == {rids[0]: [None], rids[1]: [None], rids[2]: [None]}
    for snapshot in targeting.change_snapshots(table.event.pk, rids):
        if snapshot.stream == "player":
            assert snapshot.unheard and snapshot.frame().keys() == {"type", "stream", "version"}
    # Each language a page is open in; the account's choice wins.
    targeting.player_listening(rids[0], "es")
    targeting.player_listening(rids[1], "es")
    targeting.player_listening(rids[1], "en")
    targeting.player_listening(rids[2], "es")  # an old page: the account chose French since
    assert languages() == {rids[0]: ["es"], rids[1]: ["en", "es"], rids[2]: ["fr"]}
    assert Registration.objects.filter(pk__in=rids).count() == 3
