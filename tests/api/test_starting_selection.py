"""Confirming the starting selection: POST /api/registrations/{id}/starting-selection/."""

from __future__ import annotations

import pytest

from cards.models import DealtCard
from tests.api.support import Api, error
from tests.factories import make_table
from tests.refusals import unchanged

pytestmark = pytest.mark.django_db


def _offer(table, player) -> list[str]:
    return list(
        DealtCard.objects.filter(registration=table.registration(player))
        .order_by("slot")
        .values_list("card", flat=True)
    )


def test_it_keeps_the_chosen_card_and_reveals_the_others() -> None:
    table = make_table(players=2, start=True)
    player = table.players[0]
    offer = _offer(table, player)
    response = Api(player).post(
        f"/api/registrations/{table.rid(player)}/starting-selection/", {"slots": [1]}
    )
    assert response.status_code == 200
    assert response.json() == {
        "registration_id": table.rid(player),
        "kept": [offer[1]],
        "not_kept": [offer[0], offer[2]],
    }
    assert table.kept(player) == [offer[1]]


def test_it_keeps_three_of_five_in_switch() -> None:
    table = make_table("switch", players=2, start=True)
    player = table.players[0]
    response = Api(player).post(
        f"/api/registrations/{table.rid(player)}/starting-selection/", {"slots": [4, 0, 2]}
    )
    assert response.status_code == 200
    offer = _offer(table, player)
    assert response.json()["kept"] == [offer[0], offer[2], offer[4]]


@pytest.mark.parametrize(
    ("slots", "code"),
    [([], "wrong_count"), ([0, 1], "wrong_count"), ([0, 0], "invalid"), ([5], "invalid")],
)
def test_it_refuses_a_wrong_selection(slots: list[int], code: str) -> None:
    table = make_table(players=2, start=True)
    player = table.players[0]
    with unchanged(table.event):
        response = Api(player).post(
            f"/api/registrations/{table.rid(player)}/starting-selection/", {"slots": slots}
        )
        assert error(response) == (400, code)


@pytest.mark.parametrize("body", [{}, {"slots": "0"}, {"slots": [-1]}, {"slots": [True]}])
def test_it_refuses_malformed_slots(body: dict) -> None:
    table = make_table(players=2, start=True)
    player = table.players[0]
    response = Api(player).post(f"/api/registrations/{table.rid(player)}/starting-selection/", body)
    assert error(response) == (400, "invalid")
    assert response.json()["error"]["message"].startswith("slots")


def test_it_refuses_a_second_confirmation() -> None:
    table = make_table(players=2, start=True)
    player = table.players[0]
    table.choose_start(player)
    response = Api(player).post(
        f"/api/registrations/{table.rid(player)}/starting-selection/", {"slots": [0]}
    )
    assert error(response) == (409, "nothing_pending")


def test_it_refuses_before_the_start() -> None:
    table = make_table(players=2)
    player = table.players[0]
    response = Api(player).post(
        f"/api/registrations/{table.rid(player)}/starting-selection/", {"slots": [0]}
    )
    assert error(response) == (409, "wrong_phase")


def test_it_lets_house_select_for_a_player_with_a_reason() -> None:
    table = make_table(players=2, start=True)
    player = table.players[0]
    path = f"/api/registrations/{table.rid(player)}/starting-selection/"
    api = Api(table.house)
    assert error(api.post(path, {"slots": [0]})) == (400, "reason_required")
    response = api.post(path, {"slots": [0], "reason": "Phone battery died"})
    assert response.status_code == 200
    hand = Api(player).get(f"/api/registrations/{table.rid(player)}/").json()["hand"]
    assert [card["source"] for card in hand] == ["house"]
