"""House's cash box on open House pages: a ledger line moves the cash box and the pool's
ledger figure, live, and no other player's row."""

from __future__ import annotations

import pytest
from asgiref.sync import async_to_sync
from channels.db import database_sync_to_async

from ledger import services as ledger
from tests.factories import make_table
from tests.live.sockets import by_stream, open_socket, session_cookie
from tests.live.test_targeted_frames import forget_what_was_sent, house_path

pytestmark = pytest.mark.django_db(transaction=True)


def test_an_entry_by_card_moves_the_cash_box_live() -> None:
    table = make_table(players=3, contribution=10)
    ann = table.players[0]
    forget_what_was_sent(table.event.pk)
    cookie = session_cookie(table.house)
    rid = table.rid(ann)
    others = {f"house-row-{table.rid(p)}" for p in table.players[1:]}

    async def scenario() -> None:
        socket = await open_socket(house_path(table.event.pk), cookie=cookie)
        start = await by_stream(socket, 2)
        assert 'id="cash-box"' in start["house"][0]["html"]
        await database_sync_to_async(ledger.entry_payment)(
            event_id=table.event.pk, registration_id=rid, by=table.house, method="card"
        )
        parts = (await by_stream(socket, 2))["house"][0]["parts"]
        box = parts["cash-box"]
        assert '<td>at the door</td><td class="num">$10</td>' in box
        assert "The ledger's figure: <strong>$10</strong>" in parts["pool"]
        assert "Paid $10" in parts[f"house-row-{rid}"]
        assert not others & set(parts)
        await socket.disconnect()

    async_to_sync(scenario)()
