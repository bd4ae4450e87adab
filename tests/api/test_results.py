"""Reporting results: POST /api/registrations/{id}/results/ (and House assist)."""

from __future__ import annotations

import pytest

from events.models import GameResult
from tests.api.support import Api, error
from tests.factories import make_table
from tests.refusals import unchanged

pytestmark = pytest.mark.django_db


def _ready():
    table = make_table(players=2, start=True)
    player = table.players[0]
    table.choose_start(player)
    return table, player, f"/api/registrations/{table.rid(player)}/results/"


def test_it_keeps_one_card_after_a_loss() -> None:
    table, player, path = _ready()
    response = Api(player).post(
        path, {"game": 1, "outcome": "loss", "opponent": "Bo", "score": "21-15"}
    )
    assert response.status_code == 201
    answer = response.json()
    assert answer == {
        "registration_id": table.rid(player),
        "game": 1,
        "result": "loss",
        "card": table.kept(player)[-1],
    }
    result = GameResult.objects.get(registration__player=player)
    assert (result.opponent, result.score, result.assisted) == ("Bo", "21-15", False)


def test_it_offers_two_face_up_cards_after_a_win() -> None:
    table, player, path = _ready()
    response = Api(player).post(path, {"game": 1, "outcome": "win"})
    assert response.status_code == 201
    offered = response.json()["offered"]
    assert len(offered) == 2
    pending = Api(player).get(f"/api/registrations/{table.rid(player)}/").json()["pending"]
    assert [card["code"] for card in pending["cards"]] == offered


def test_it_refuses_a_result_out_of_order() -> None:
    _table, player, path = _ready()
    response = Api(player).post(path, {"game": 2, "outcome": "loss"})
    assert error(response) == (409, "out_of_order")
    assert "game 1" in response.json()["error"]["message"]


def test_it_refuses_a_result_while_a_choice_is_pending() -> None:
    table, player, path = _ready()
    Api(player).post(path, {"game": 1, "outcome": "win"})
    with unchanged(table.event):
        assert error(Api(player).post(path, {"game": 2, "outcome": "loss"})) == (
            409,
            "pending_choice",
        )


def test_it_refuses_a_result_before_the_starting_selection() -> None:
    table = make_table(players=2, start=True)
    player = table.players[0]
    response = Api(player).post(
        f"/api/registrations/{table.rid(player)}/results/", {"game": 1, "outcome": "loss"}
    )
    assert error(response) == (409, "starting_selection_pending")


def test_it_refuses_more_results_than_games() -> None:
    table = make_table("standard-v1", players=2, start=True)
    player = table.players[0]
    table.play_out(player)
    response = Api(player).post(
        f"/api/registrations/{table.rid(player)}/results/", {"game": 7, "outcome": "loss"}
    )
    assert error(response) == (409, "out_of_order")


def test_it_refuses_a_result_once_the_hand_is_locked() -> None:
    table, player, path = _ready()
    table.play_out(player)  # League reveals the wild at once: the hand is locked
    assert error(Api(player).post(path, {"game": 7, "outcome": "loss"})) == (409, "hand_locked")


@pytest.mark.parametrize(
    ("body", "field"),
    [
        ({"game": 1, "outcome": "draw"}, "outcome"),
        ({"game": 0, "outcome": "loss"}, "game"),
        ({"game": "one", "outcome": "loss"}, "game"),
        ({"outcome": "loss"}, "game"),
        ({"game": 1, "outcome": "loss", "opponent": "x" * 81}, "opponent"),
    ],
)
def test_it_refuses_a_malformed_result(body: dict, field: str) -> None:
    _table, player, path = _ready()
    response = Api(player).post(path, body)
    assert error(response) == (400, "invalid")
    assert response.json()["error"]["message"].startswith(f"{field}: ")


def test_it_lets_house_report_for_a_player_with_a_reason() -> None:
    table, player, path = _ready()
    api = Api(table.house)
    assert error(api.post(path, {"game": 1, "outcome": "loss"})) == (400, "reason_required")
    response = api.post(path, {"game": 1, "outcome": "loss", "reason": "No phone"})
    assert response.status_code == 201
    assert GameResult.objects.get(registration__player=player).assisted is True


def test_it_refuses_a_paused_player() -> None:
    table, player, path = _ready()
    Api(table.house).post(
        f"/api/registrations/{table.rid(player)}/reviews/", {"reason": "Check scores"}
    )
    assert error(Api(player).post(path, {"game": 1, "outcome": "loss"})) == (409, "player_paused")


def test_it_refuses_a_result_after_finalization() -> None:
    table = make_table(players=2, start=True)
    for player in table.players:
        table.play_out(player)
    api = Api(table.house)
    api.post(f"/api/events/{table.event.pk}/pool/confirm/")
    api.post(f"/api/events/{table.event.pk}/finalize/")
    player = table.players[0]
    response = Api(player).post(
        f"/api/registrations/{table.rid(player)}/results/", {"game": 1, "outcome": "loss"}
    )
    assert error(response) == (409, "event_finalized")
