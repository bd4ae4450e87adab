"""Corrections, reviews and their resolution (House, with reasons)."""

from __future__ import annotations

import pytest

from events.models import GameResult, Review
from tests.api.support import Api, error
from tests.factories import make_table
from tests.refusals import unchanged

pytestmark = pytest.mark.django_db


def _reported():
    table = make_table(players=2, start=True)
    player = table.players[0]
    table.choose_start(player)
    table.report(player, 1, "loss")
    return table, player


def test_it_corrects_a_result_and_pauses_the_player() -> None:
    table, player = _reported()
    kept = table.kept(player)
    response = Api(table.house).post(
        f"/api/registrations/{table.rid(player)}/corrections/",
        {"game": 1, "outcome": "win", "reason": "Scoreholio shows a win"},
    )
    assert response.status_code == 200
    review = Review.objects.get(registration__player=player)
    assert response.json() == {"registration_id": table.rid(player), "review_id": review.pk}
    assert GameResult.objects.get(registration__player=player).outcome == "win"
    assert table.kept(player) == kept  # a correction never moves a card
    snapshot = Api(player).get(f"/api/events/{table.event.pk}/me/").json()
    assert snapshot["paused"] is True and snapshot["next_step"]["code"] == "review"


def test_it_needs_a_reason_for_a_correction() -> None:
    table, player = _reported()
    path = f"/api/registrations/{table.rid(player)}/corrections/"
    with unchanged(table.event):
        assert error(Api(table.house).post(path, {"game": 1, "outcome": "win"})) == (
            400,
            "reason_required",
        )


def test_it_refuses_a_correction_to_the_same_result() -> None:
    table, player = _reported()
    response = Api(table.house).post(
        f"/api/registrations/{table.rid(player)}/corrections/",
        {"game": 1, "outcome": "loss", "reason": "oops"},
    )
    assert error(response) == (400, "invalid")


def test_it_answers_404_for_a_game_without_a_result() -> None:
    table, player = _reported()
    response = Api(table.house).post(
        f"/api/registrations/{table.rid(player)}/corrections/",
        {"game": 4, "outcome": "win", "reason": "?"},
    )
    assert error(response) == (404, "not_found")


def test_it_refuses_a_player_correcting_their_own_result() -> None:
    table, player = _reported()
    response = Api(player).post(
        f"/api/registrations/{table.rid(player)}/corrections/",
        {"game": 1, "outcome": "win", "reason": "I won really"},
    )
    assert error(response) == (403, "not_allowed")


def test_it_opens_and_resolves_a_review() -> None:
    table, player = _reported()
    api = Api(table.house)
    opened = api.post(f"/api/registrations/{table.rid(player)}/reviews/", {"reason": "Check"})
    assert opened.status_code == 201
    review_id = opened.json()["review_id"]
    assert opened.json() == {"registration_id": table.rid(player), "review_id": review_id}
    assert table.registration(player).paused

    resolved = api.post(f"/api/reviews/{review_id}/resolve/", {"reason": "Scores match"})
    assert resolved.status_code == 200
    assert resolved.json() == {
        "registration_id": table.rid(player),
        "review_id": review_id,
        "paused": False,
    }
    assert not table.registration(player).paused


def test_it_keeps_the_player_paused_while_another_review_is_open() -> None:
    table, player = _reported()
    api = Api(table.house)
    first = api.post(f"/api/registrations/{table.rid(player)}/reviews/", {"reason": "One"})
    api.post(f"/api/registrations/{table.rid(player)}/reviews/", {"reason": "Two"})
    resolved = api.post(f"/api/reviews/{first.json()['review_id']}/resolve/", {"reason": "ok"})
    assert resolved.json()["paused"] is True


def test_it_needs_reasons_to_open_and_resolve_reviews() -> None:
    table, player = _reported()
    api = Api(table.house)
    assert error(api.post(f"/api/registrations/{table.rid(player)}/reviews/")) == (
        400,
        "reason_required",
    )
    review_id = api.post(
        f"/api/registrations/{table.rid(player)}/reviews/", {"reason": "Check"}
    ).json()["review_id"]
    assert error(api.post(f"/api/reviews/{review_id}/resolve/", {"reason": ""})) == (
        400,
        "reason_required",
    )


def test_it_refuses_to_resolve_a_review_twice() -> None:
    table, player = _reported()
    api = Api(table.house)
    review_id = api.post(
        f"/api/registrations/{table.rid(player)}/reviews/", {"reason": "Check"}
    ).json()["review_id"]
    api.post(f"/api/reviews/{review_id}/resolve/", {"reason": "ok"})
    assert error(api.post(f"/api/reviews/{review_id}/resolve/", {"reason": "again"})) == (
        409,
        "wrong_phase",
    )


def test_it_answers_404_for_an_unknown_review() -> None:
    table, _ = _reported()
    assert error(Api(table.house).post("/api/reviews/987654/resolve/", {"reason": "x"})) == (
        404,
        "not_found",
    )


def test_it_refuses_a_player_resolving_their_own_review() -> None:
    table, player = _reported()
    review_id = (
        Api(table.house)
        .post(f"/api/registrations/{table.rid(player)}/reviews/", {"reason": "Check"})
        .json()["review_id"]
    )
    response = Api(player).post(f"/api/reviews/{review_id}/resolve/", {"reason": "Fine"})
    assert error(response) == (403, "not_allowed")
    assert table.registration(player).paused
