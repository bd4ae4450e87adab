"""The board's socket speaks the event's language (docs/decisions.md, "Languages"): the snapshot
and every pushed update, rendered outside any request, in the language House chose."""

from __future__ import annotations

import json

import pytest
from asgiref.sync import async_to_sync
from channels.db import database_sync_to_async
from django.utils import translation

from events import player_words, services
from events.reads.board import board_view
from tests.factories import make_table
from tests.live.sockets import TIMEOUT, open_socket

pytestmark = pytest.mark.django_db(transaction=True)


def test_the_snapshot_and_each_update_are_in_the_events_language() -> None:
    table = make_table(players=2)
    services.event_update(event_id=table.event.pk, by=table.house, changes={"language": "es"})
    table.start()
    first = table.players[0]

    async def scenario() -> None:
        socket = await open_socket(f"/ws/events/{table.event.pk}/board/")
        snapshot = await socket.receive_json_from(timeout=TIMEOUT)
        assert "cartas guardadas" in snapshot["html"]
        assert '<h2 id="high-title">Alta</h2>' in snapshot["html"]
        assert "cards kept" not in snapshot["html"]
        await database_sync_to_async(table.choose_start)(first)
        frame = await socket.receive_json_from(timeout=TIMEOUT)
        assert frame["type"] == "update"
        text = json.dumps(frame, ensure_ascii=False)
        assert "cartas guardadas" in text
        assert "cards kept" not in text
        view = await database_sync_to_async(lambda: board_view(table.refresh()))()
        row = view.high[0].row
        with translation.override("es"):
            words = player_words.shown_hand_words(
                [card.code for card in row.cards], row.wild_rank, low=False
            )
        assert words in text
        await socket.disconnect()

    async_to_sync(scenario)()


def test_a_language_changed_during_play_reaches_the_board_whole() -> None:
    table = make_table(players=2, start=True)
    table.choose_start(table.players[0])

    def to_french() -> None:
        services.event_update(event_id=table.event.pk, by=table.house, changes={"language": "fr"})

    async def scenario() -> None:
        socket = await open_socket(f"/ws/events/{table.event.pk}/board/")
        snapshot = await socket.receive_json_from(timeout=TIMEOUT)
        assert "cards kept" in snapshot["html"]
        await database_sync_to_async(to_french)()
        frame = await socket.receive_json_from(timeout=TIMEOUT)
        text = json.dumps(frame, ensure_ascii=False)
        assert "cartes gardées" in text
        view = await database_sync_to_async(lambda: board_view(table.refresh()))()
        row = view.high[0].row
        with translation.override("fr"):
            words = player_words.shown_hand_words(
                [card.code for card in row.cards], row.wild_rank, low=False
            )
        assert words in text
        await socket.disconnect()

    async_to_sync(scenario)()
