"""A format whose Win offers three cards, played through the API: the request bodies, the answers
and the player's read model follow the format."""

from __future__ import annotations

from collections.abc import Iterator

import pytest

from tests.api.support import Api, error
from tests.factories import THREE_CARD_WIN, Table, format_registered, make_table

pytestmark = pytest.mark.django_db


@pytest.fixture
def table() -> Iterator[Table]:
    with format_registered(THREE_CARD_WIN) as rules:
        table = make_table(rules.name, players=2, start=True)
        yield table


def test_a_player_wins_three_cards_keeps_the_third_and_completes_the_hand(table: Table) -> None:
    ann = table.players[0]
    api = Api(ann)
    rid = table.rid(ann)
    start = api.post(f"/api/registrations/{rid}/starting-selection/", {"slots": [1]})
    assert start.status_code == 200
    won = api.post(f"/api/registrations/{rid}/results/", {"game": 1, "outcome": "win"})
    assert won.status_code == 201
    offered = won.json()["offered"]
    assert len(offered) == 3
    pending = api.get(f"/api/events/{table.event.pk}/me/").json()["pending"]
    assert (pending["kind"], pending["keep"], pending["offered"]) == ("win", 1, 3)
    assert [card["slot"] for card in pending["cards"]] == [0, 1, 2]
    path = f"/api/registrations/{rid}/win-choice/"
    response = api.post(path, {"slot": 2, "offer_id": pending["id"]})
    assert response.status_code == 200
    assert response.json() == {"registration_id": rid, "game": 1, "kept": offered[2]}
    for game, outcome in ((2, "loss"), (3, "win")):
        response = api.post(
            f"/api/registrations/{rid}/results/", {"game": game, "outcome": outcome}
        )
        assert response.status_code == 201
    assert api.post(path, {"slot": 0}).status_code == 200
    me = api.get(f"/api/events/{table.event.pk}/me/").json()
    assert len(me["hand"]) == 4
    assert me["wild_rank"]
    assert me["next_step"]["code"] == "done"


def test_a_slot_past_the_three_cards_is_refused_by_the_engine(table: Table) -> None:
    ann = table.players[0]
    table.choose_start(ann)
    table.win(ann, 1)
    response = Api(ann).post(f"/api/registrations/{table.rid(ann)}/win-choice/", {"slot": 3})
    assert error(response) == (400, "invalid")
    assert response.json()["error"]["message"] == "This win offers 3 cards: choose card 0 to 2."
    assert len(table.kept(ann)) == 1  # the starting card only: nothing kept
