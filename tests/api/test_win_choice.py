"""Keeping one of a win's two cards: POST /api/registrations/{id}/win-choice/."""

from __future__ import annotations

import pytest

from tests.api.support import Api, error
from tests.factories import make_table

pytestmark = pytest.mark.django_db


def _won():
    table = make_table(players=2, start=True)
    player = table.players[0]
    table.choose_start(player)
    offered = table.win(player, 1)
    return table, player, offered, f"/api/registrations/{table.rid(player)}/win-choice/"


def test_it_keeps_the_chosen_card() -> None:
    table, player, offered, path = _won()
    response = Api(player).post(path, {"slot": 1})
    assert response.status_code == 200
    assert response.json() == {"registration_id": table.rid(player), "game": 1, "kept": offered[1]}
    assert table.kept(player)[-1] == offered[1]


def test_it_refuses_when_nothing_is_pending() -> None:
    _table, player, _, path = _won()
    Api(player).post(path, {"slot": 0})
    assert error(Api(player).post(path, {"slot": 0})) == (409, "nothing_pending")


@pytest.mark.parametrize("body", [{}, {"slot": -1}, {"slot": "left"}, {"slot": 52}])
def test_it_refuses_a_malformed_choice(body: dict) -> None:
    _, player, _, path = _won()
    response = Api(player).post(path, body)
    assert error(response) == (400, "invalid")
    assert response.json()["error"]["message"].startswith("slot: ")


def test_it_refuses_a_card_the_offer_does_not_have_naming_its_count() -> None:
    """A well-formed slot past the offer: the format decides how many cards a win offers."""
    table, player, _, path = _won()
    response = Api(player).post(path, {"slot": 2})
    assert error(response) == (400, "invalid")
    assert response.json()["error"]["message"] == "This win offers 2 cards: choose card 0 to 1."
    assert len(table.kept(player)) == 1


def test_it_lets_house_resolve_an_abandoned_choice_with_a_reason() -> None:
    table, _player, offered, path = _won()
    api = Api(table.house)
    assert error(api.post(path, {"slot": 0})) == (400, "reason_required")
    response = api.post(path, {"slot": 0, "reason": "Player left the venue"})
    assert response.status_code == 200
    assert response.json()["kept"] == offered[0]


def test_it_keeps_the_card_of_the_offer_it_names() -> None:
    table, player, offered, path = _won()
    me = Api(player).get(f"/api/events/{table.event.pk}/me/").json()
    response = Api(player).post(path, {"slot": 0, "offer_id": me["pending"]["id"]})
    assert response.status_code == 200
    assert table.kept(player)[-1] == offered[0]


def test_a_keep_for_an_earlier_offer_is_refused() -> None:
    table, player, _, path = _won()
    first = Api(player).get(f"/api/events/{table.event.pk}/me/").json()["pending"]["id"]
    house = Api(table.house)
    assert house.post(path, {"slot": 1, "reason": "Player stepped out"}).status_code == 200
    second = table.win(player, 2)
    kept = table.kept(player)
    response = Api(player).post(path, {"slot": 0, "offer_id": first})
    assert error(response) == (409, "offer_changed")
    assert response.json()["error"]["message"] == (
        "That choice was for an earlier offer: look at your cards again."
    )
    assert table.kept(player) == kept
    assert Api(player).post(path, {"slot": 0}).json()["kept"] == second[0]  # still optional


@pytest.mark.parametrize("offer_id", [0, -3, "first", True, None])
def test_it_refuses_a_malformed_offer_id(offer_id: object) -> None:
    _, player, _, path = _won()
    response = Api(player).post(path, {"slot": 0, "offer_id": offer_id})
    assert error(response) == (400, "invalid")
    assert response.json()["error"]["message"].startswith("offer_id: ")
