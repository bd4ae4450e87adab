"""The read models as the API and the sockets send them (`events.reads.common.to_json`)."""

from __future__ import annotations

import datetime
import json

import pytest

from events.reads.board import board_view
from events.reads.common import to_json
from events.reads.final import final_winners
from events.reads.player import player_state
from tests.events.support import finalized_table
from tests.factories import make_table

pytestmark = pytest.mark.django_db


def test_a_live_board_row_has_no_award_and_a_final_one_has_it() -> None:
    table = make_table("league", players=2, start=True)
    for player in table.players:
        table.choose_start(player)
    live = to_json(board_view(table.refresh()).data)
    assert live["high"] and all("award" not in row for row in live["high"] + live["low"])
    final = to_json(board_view(finalized_table("league", players=2).refresh()).data)
    assert all(isinstance(row["award"], int) for row in final["high"] + final["low"])


def test_dates_and_times_stay_so_until_the_json() -> None:
    table = make_table("league", players=2, start=True)
    table.choose_start(table.players[0])
    table.report(table.players[0], 1, "win")
    me = player_state(table.registration(table.players[0]))
    assert me.pending is not None and isinstance(me.pending.since, datetime.datetime)
    sent = to_json(me)
    assert sent["pending"]["since"] == me.pending.since.isoformat()
    assert sent["pending"]["kind"] == "win" and sent["status"] == "checked_in"
    assert json.loads(json.dumps(sent)) == sent  # plain JSON, nothing left to convert
    event = to_json(board_view(table.refresh()).data)["event"]
    assert event["date"] == table.event.date.isoformat()


def test_the_pages_own_fields_stay_out_of_the_json() -> None:
    winners = final_winners(finalized_table("standard-v1", players=3).refresh())
    assert winners is not None and winners.high
    assert all("stands_for" not in winner for winner in to_json(winners)["high"])
