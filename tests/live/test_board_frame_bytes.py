"""A board page's live update stays small: the frame one result sends a board, on a night of 24
players mid-game (4 or 5 cards each), as `change_snapshots` makes it (JSON bytes, as a socket
receives it)."""

from __future__ import annotations

import json
import random
import statistics
from typing import Any

import pytest

from events.models import Event
from live import protocol, targeting
from tests.factories import Table, make_table

pytestmark = pytest.mark.django_db

PLAYERS = 24
# Medians over twelve results, measured, with some room. The HTML (the player's High and Low
# rows, the head's facts and progress) was 4,130 bytes while each card's corners and centre
# were in its markup and the head was one piece, and is 2,290 now. The whole frame adds the
# data's patch, the order and the places, which vary with the shuffle (how many rows a result
# passes): 4,860 to 5,070 bytes then, 3,010 to 3,620 now.
HTML_BYTES = 2_450
FRAME_BYTES = 4_000


def mid_game(table: Table, rng: random.Random) -> None:
    """Every player chose a starting card and played three or four games: 4 or 5 cards each."""
    for index, player in enumerate(table.players):
        table.choose_start(player)
        for game in range(1, 4 + index % 2):
            if rng.random() < 0.4:
                table.report(player, game, "win")
                table.choose_win(player)
            else:
                table.report(player, game, "loss")


def board_frame(event: Event, rid: int) -> dict[str, Any]:
    snapshots = targeting.change_snapshots(event.pk, [rid])
    (board,) = [s for s in snapshots if s.group == protocol.event_group(event.pk)]
    return board.frame()


def test_one_result_sends_a_board_a_small_frame(settings: Any) -> None:
    settings.LIVE_UPDATES = "off"  # each change is read here, by hand
    table = make_table(players=PLAYERS, start=True)
    mid_game(table, random.Random(7))
    event = table.refresh()
    group = protocol.event_group(event.pk)
    targeting.cache.delete(targeting._shown_key(group))  # ids repeat across test databases
    targeting.listening(targeting.board_audience(event.pk))
    targeting.board(event)  # a board page starts from the whole board
    html, whole = [], []
    # Each player holding four cards loses game 4: one card kept, their two rows move.
    for player in table.players[::2]:
        table.report(player, 4, "loss")
        rid = table.rid(player)
        frame = board_frame(table.refresh(), rid)
        assert frame["type"] == "update" and "html" not in frame
        rows = {f"board-row-{rid}", f"board-row-{rid}-low"}
        assert set(frame["parts"]) == {"board-facts", "board-progress"} | rows
        # Small, and each row still shows the player's five cards.
        assert all(frame["parts"][id].count('role="img"') == 5 for id in rows)
        html.append(len(json.dumps(frame["parts"])))
        whole.append(len(json.dumps(frame)))
    assert statistics.median(html) <= HTML_BYTES
    assert statistics.median(whole) <= FRAME_BYTES
