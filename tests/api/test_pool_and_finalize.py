"""The pool, the checklist and finalization: /pool/confirm/, /checklist/, /finalize/."""

from __future__ import annotations

import pytest

from tests.api.support import Api, error
from tests.factories import make_table
from tests.refusals import unchanged

pytestmark = pytest.mark.django_db


def _complete(players: int = 2):
    table = make_table(players=players, start=True)
    for player in table.players:
        table.play_out(player)  # the last first result closes registration
    return table


def test_it_confirms_the_pool_with_adjustments() -> None:
    table = _complete()
    response = Api(table.house).post(
        f"/api/events/{table.event.pk}/pool/confirm/",
        {"adjustments": [{"amount": -5, "explanation": "Refund half an entry"}]},
    )
    assert response.status_code == 200
    assert response.json() == {"event_id": table.event.pk, "pool": 15, "base": 20}
    pool = Api(table.house).get(f"/api/events/{table.event.pk}/board/").json()["pool"]
    assert pool["confirmed"] is True and pool["pool"] == 15
    assert pool["adjustments"] == [{"amount": -5, "explanation": "Refund half an entry"}]


def test_it_refuses_to_confirm_while_registration_is_open() -> None:
    table = make_table(players=2, start=True)
    response = Api(table.house).post(f"/api/events/{table.event.pk}/pool/confirm/")
    assert error(response) == (409, "registration_closed")


@pytest.mark.parametrize(
    ("adjustment", "refusal"),
    [
        ({"amount": 0, "explanation": "nothing"}, (400, "invalid")),
        ({"amount": 5, "explanation": " "}, (400, "invalid")),
        # Fine for a larger pool: the event's state refuses it, not the request's shape.
        ({"amount": -21, "explanation": "more than the pool"}, (409, "wrong_state")),
    ],
)
def test_it_refuses_a_bad_adjustment(adjustment: dict, refusal: tuple[int, str]) -> None:
    table = _complete()
    with unchanged(table.event):
        response = Api(table.house).post(
            f"/api/events/{table.event.pk}/pool/confirm/", {"adjustments": [adjustment]}
        )
        assert error(response) == refusal
    assert table.refresh().pool_confirmed is False


def test_it_refuses_to_confirm_twice() -> None:
    table = _complete()
    api = Api(table.house)
    api.post(f"/api/events/{table.event.pk}/pool/confirm/")
    assert error(api.post(f"/api/events/{table.event.pk}/pool/confirm/")) == (409, "pool_locked")


def test_it_lists_each_blocker_naming_the_player() -> None:
    table = make_table(players=2, start=True)
    first, second = table.players
    table.play_out(first)
    response = Api(table.house).get(f"/api/events/{table.event.pk}/checklist/")
    assert response.status_code == 200
    checklist = response.json()
    assert checklist["event_id"] == table.event.pk
    assert checklist["phase"] == "started" and checklist["finalizable"] is False
    label = table.registration(second).label
    assert "Registration is still open." in checklist["blockers"]
    assert "The pool is not confirmed." in checklist["blockers"]
    assert f"{label} has not confirmed the starting selection." in checklist["blockers"]
    assert not any(table.registration(first).label in line for line in checklist["blockers"])


def test_it_shows_an_empty_checklist_when_ready() -> None:
    table = _complete()
    Api(table.house).post(f"/api/events/{table.event.pk}/pool/confirm/")
    checklist = Api(table.house).get(f"/api/events/{table.event.pk}/checklist/").json()
    assert checklist["blockers"] == [] and checklist["finalizable"] is True


def test_it_refuses_to_finalize_with_blockers_named() -> None:
    table = make_table(players=2, start=True)
    table.play_out(table.players[0])
    response = Api(table.house).post(f"/api/events/{table.event.pk}/finalize/")
    assert error(response) == (409, "finalization_blocked")
    assert table.registration(table.players[1]).label in response.json()["error"]["message"]
    assert table.refresh().phase == "started"


def test_it_refuses_to_finalize_before_the_pool_is_confirmed() -> None:
    table = _complete()
    response = Api(table.house).post(f"/api/events/{table.event.pk}/finalize/")
    assert error(response) == (409, "finalization_blocked")
    assert "The pool is not confirmed." in response.json()["error"]["message"]


def test_it_finalizes_and_locks_the_event() -> None:
    table = _complete()
    api = Api(table.house)
    api.post(f"/api/events/{table.event.pk}/pool/confirm/")
    response = api.post(f"/api/events/{table.event.pk}/finalize/")
    assert response.status_code == 200
    assert response.json()["event_id"] == table.event.pk
    assert table.refresh().phase == "finalized"
    assert Api().get(f"/api/events/{table.event.pk}/board/").json()["final"] is True
    awards = sum(table.registration(p).award or 0 for p in table.players)
    assert awards + response.json()["unallocated"] == 20
    assert error(api.post(f"/api/events/{table.event.pk}/finalize/")) == (409, "event_finalized")
    assert error(api.post(f"/api/events/{table.event.pk}/registration/open/")) == (
        409,
        "event_finalized",
    )


def test_it_refuses_players_confirming_or_finalizing() -> None:
    table = _complete()
    api = Api(table.players[0])
    with unchanged(table.event):
        assert error(api.post(f"/api/events/{table.event.pk}/pool/confirm/")) == (
            403,
            "not_allowed",
        )
        assert error(api.post(f"/api/events/{table.event.pk}/finalize/")) == (403, "not_allowed")
        assert error(api.get(f"/api/events/{table.event.pk}/checklist/")) == (403, "not_allowed")
