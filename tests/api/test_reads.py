"""The reads: the public board, my state, a registration, House's table."""

from __future__ import annotations

import pytest

from tests.api.support import Api, error
from tests.factories import make_table, make_user

pytestmark = pytest.mark.django_db


def test_it_shows_the_board_to_visitors() -> None:
    table = make_table(players=2, start=True)
    player = table.players[0]
    table.choose_start(player)
    response = Api().get(f"/api/events/{table.event.pk}/board/")
    assert response.status_code == 200
    board = response.json()
    assert board["event"]["id"] == table.event.pk and board["final"] is False
    assert board["progress"] == {"players": 2, "kept": 1, "to_keep": 14}
    assert [row["player"] for row in board["high"]] == [table.registration(player).label]
    assert board["high"][0]["cards"][0]["code"] == table.kept(player)[0]
    assert board["pool"]["base"] == 20


def test_it_never_shows_emails_on_the_board() -> None:
    table = make_table(players=2, start=True)
    for player in table.players:
        table.choose_start(player)
    text = Api().get(f"/api/events/{table.event.pk}/board/").content.decode()
    assert "@" not in text


def test_it_shows_me_my_own_state() -> None:
    table = make_table(players=2, start=True)
    player = table.players[0]
    response = Api(player).get(f"/api/events/{table.event.pk}/me/")
    assert response.status_code == 200
    me = response.json()
    assert me["registration_id"] == table.rid(player)
    assert me["next_step"]["code"] == "choose_start"
    assert me["pending"]["kind"] == "starting" and me["pending"]["offered"] == 3
    assert me["pending"]["cards"] == [
        {"slot": 0, "face_down": True},
        {"slot": 1, "face_down": True},
        {"slot": 2, "face_down": True},
    ]


def test_it_answers_404_when_i_am_not_registered() -> None:
    table = make_table(players=2)
    assert error(Api(make_user()).get(f"/api/events/{table.event.pk}/me/")) == (404, "not_found")


def test_it_shows_a_registration_to_its_player_and_to_house() -> None:
    table = make_table(players=2, start=True)
    player = table.players[0]
    path = f"/api/registrations/{table.rid(player)}/"
    mine = Api(player).get(path)
    house = Api(table.house).get(path)
    assert mine.status_code == house.status_code == 200
    assert mine.json()["label"] == house.json()["label"] == table.registration(player).label


def test_it_answers_404_for_an_unknown_registration() -> None:
    assert error(Api(make_user()).get("/api/registrations/987654/")) == (404, "not_found")


def test_it_shows_house_the_players_table() -> None:
    table = make_table(players=2, start=True)
    response = Api(table.house).get(f"/api/events/{table.event.pk}/house/")
    assert response.status_code == 200
    house = response.json()
    assert [row["registration_id"] for row in house["players"]] == [
        table.rid(p) for p in table.players
    ]
    assert house["players"][0]["pending"]["kind"] == "starting"
    assert house["counts"] == {"checked_in": 2}
    assert house["supported_places"] == table.refresh().supported_places


def test_it_lets_a_superuser_act_as_house_everywhere() -> None:
    from accounts.models import User

    table = make_table(players=2)
    boss = User.objects.create_superuser(email="boss@example.com", display_name="Boss")
    assert Api(boss).get(f"/api/events/{table.event.pk}/house/").status_code == 200
    assert Api(boss).post(f"/api/events/{table.event.pk}/start/").status_code == 200
