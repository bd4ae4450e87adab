"""House reveals a Standard v1 wild: POST /api/registrations/{id}/wild-reveal/."""

from __future__ import annotations

import pytest

from tests.api.support import Api, error
from tests.factories import make_table

pytestmark = pytest.mark.django_db


def test_it_reveals_a_complete_players_wild() -> None:
    table = make_table("standard-v1", players=2, start=True)
    player = table.players[0]
    table.play_out(player)
    response = Api(table.house).post(f"/api/registrations/{table.rid(player)}/wild-reveal/")
    assert response.status_code == 200
    wild = table.registration(player).wild_rank
    assert wild and response.json() == {"registration_id": table.rid(player), "wild_rank": wild}


def test_it_refuses_an_incomplete_hand() -> None:
    table = make_table("standard-v1", players=2, start=True)
    player = table.players[0]
    table.report(player, 1, "loss")
    response = Api(table.house).post(f"/api/registrations/{table.rid(player)}/wild-reveal/")
    assert error(response) == (409, "not_complete")


def test_it_refuses_a_second_reveal() -> None:
    table = make_table("standard-v1", players=2, start=True)
    player = table.players[0]
    table.play_out(player)
    api = Api(table.house)
    api.post(f"/api/registrations/{table.rid(player)}/wild-reveal/")
    response = api.post(f"/api/registrations/{table.rid(player)}/wild-reveal/")
    assert error(response) == (409, "hand_locked")


def test_it_refuses_formats_that_reveal_automatically() -> None:
    table = make_table(players=2, start=True)
    player = table.players[0]
    response = Api(table.house).post(f"/api/registrations/{table.rid(player)}/wild-reveal/")
    assert error(response) == (409, "wrong_phase")


def test_it_refuses_a_player_revealing_their_own_wild() -> None:
    table = make_table("standard-v1", players=2, start=True)
    player = table.players[0]
    table.play_out(player)
    response = Api(player).post(f"/api/registrations/{table.rid(player)}/wild-reveal/")
    assert error(response) == (403, "not_allowed")
    assert not table.registration(player).wild_rank
