"""Idempotency-Key on every write (docs/rules.md section 11.1): replays, refusals replayed, 422 on
misuse."""

from __future__ import annotations

import pytest

from events.models import Event, GameResult, Registration
from tests.api.support import Api, error
from tests.factories import make_table, make_user
from tests.refusals import unchanged

pytestmark = pytest.mark.django_db


def _playing():
    table = make_table(players=2, start=True)
    player = table.players[0]
    table.choose_start(player)
    return table, player, f"/api/registrations/{table.rid(player)}/results/"


def test_it_replays_a_success_with_the_same_body_and_changes_nothing() -> None:
    table, player, path = _playing()
    api = Api(player)
    first = api.post(path, {"game": 1, "outcome": "loss"}, key="game-1")
    assert first.status_code == 201
    with unchanged(table.event):
        again = api.post(path, {"game": 1, "outcome": "loss"}, key="game-1")
        assert again.status_code == 201
        assert again.json() == first.json()
    assert GameResult.objects.filter(registration__player=player).count() == 1


def test_it_replays_a_refusal_even_after_the_state_changed() -> None:
    table, player, path = _playing()
    api = Api(player)
    refused = api.post(path, {"game": 2, "outcome": "loss"}, key="too-early")
    assert error(refused) == (409, "out_of_order")
    assert api.post(path, {"game": 1, "outcome": "loss"}).status_code == 201
    # Game 2 would now be accepted, but the key already holds its answer: the refusal.
    with unchanged(table.event):
        replay = api.post(path, {"game": 2, "outcome": "loss"}, key="too-early")
        assert replay.status_code == 409
        assert replay.json() == refused.json()
    assert GameResult.objects.filter(registration__player=player).count() == 1


def test_it_refuses_the_same_key_with_different_content_with_422() -> None:
    table, player, path = _playing()
    api = Api(player)
    assert api.post(path, {"game": 1, "outcome": "loss"}, key="k").status_code == 201
    with unchanged(table.event):
        response = api.post(path, {"game": 1, "outcome": "win"}, key="k")
        assert error(response) == (422, "idempotency_conflict")
    assert GameResult.objects.get(registration__player=player).outcome == "loss"


def test_it_refuses_the_same_key_on_another_endpoint_with_422() -> None:
    table, player, path = _playing()
    api = Api(player)
    assert api.post(path, {"game": 1, "outcome": "loss"}, key="k").status_code == 201
    response = api.post(f"/api/registrations/{table.rid(player)}/withdraw/", key="k")
    assert error(response) == (422, "idempotency_conflict")
    assert table.registration(player).status == "checked_in"


def test_it_scopes_keys_to_the_user() -> None:
    table = make_table(players=2, start=True)
    for player in table.players:
        table.choose_start(player)
        response = Api(player).post(
            f"/api/registrations/{table.rid(player)}/results/",
            {"game": 1, "outcome": "loss"},
            key="same-key",
        )
        assert response.status_code == 201
        assert response.json()["registration_id"] == table.rid(player)


def test_it_replays_a_creation_without_creating_twice() -> None:
    staff = make_user(staff=True)
    body = {"name": "Once", "date": "2026-12-04", "format": "league"}
    first = Api(staff).post("/api/events/", body, key="create-once")
    again = Api(staff).post("/api/events/", body, key="create-once")
    assert (first.status_code, again.status_code) == (201, 201)
    assert again.json() == first.json()
    assert Event.objects.count() == 1


def test_it_replays_an_old_answer_without_undoing_what_came_after() -> None:
    table = make_table()
    player = make_user()
    api = Api(player)
    registered = api.post(f"/api/events/{table.event.pk}/register/", key="join")
    registration_id = registered.json()["registration_id"]
    assert api.post(f"/api/registrations/{registration_id}/cancel/").status_code == 200
    replay = api.post(f"/api/events/{table.event.pk}/register/", key="join")
    assert (replay.status_code, replay.json()) == (201, registered.json())
    assert Registration.objects.get(pk=registration_id).status == "cancelled"


def test_it_refuses_a_key_longer_than_200_characters() -> None:
    table = make_table()
    player = make_user()
    response = Api(player).post(f"/api/events/{table.event.pk}/register/", key="k" * 201)
    assert error(response) == (400, "invalid")
    assert not Registration.objects.filter(player=player).exists()


def test_it_refuses_a_key_reused_with_new_content_after_a_reason_refusal() -> None:
    table = make_table(players=2, start=True)
    player = table.players[0]
    path = f"/api/registrations/{table.rid(player)}/access-reset/"
    house = Api(table.house)
    signed_in = Api(player)
    assert error(house.post(path, {"reason": ""}, key="reset")) == (400, "reason_required")
    with unchanged(table.event):
        response = house.post(path, {"reason": "Lost phone"}, key="reset")
        assert error(response) == (422, "idempotency_conflict")
    assert signed_in.get(f"/api/events/{table.event.pk}/me/").status_code == 200
