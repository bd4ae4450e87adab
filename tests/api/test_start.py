"""House starts the event: POST /api/events/{id}/start/."""

from __future__ import annotations

import pytest

from cards.models import DealtCard
from tests.api.support import Api, error
from tests.factories import make_table, make_user
from tests.refusals import unchanged

pytestmark = pytest.mark.django_db


def test_it_starts_the_event_and_deals_face_down_offers() -> None:
    table = make_table(players=3)
    response = Api(table.house).post(f"/api/events/{table.event.pk}/start/")
    assert response.status_code == 200
    answer = response.json()
    event = table.refresh()
    assert answer == {
        "event_id": event.pk,
        "decks": 2,
        "supported_places": event.supported_places,
        "commitment": event.commitment,
    }
    assert event.phase == "started"
    dealt = DealtCard.objects.filter(registration__event=event)
    assert dealt.count() == 9 and all(card.face_down for card in dealt)


def test_it_refuses_to_start_with_fewer_than_two_players() -> None:
    table = make_table(players=1)
    response = Api(table.house).post(f"/api/events/{table.event.pk}/start/")
    assert error(response) == (409, "wrong_phase")
    assert table.refresh().phase == "open"


def test_it_refuses_to_start_twice() -> None:
    table = make_table(players=2, start=True)
    assert error(Api(table.house).post(f"/api/events/{table.event.pk}/start/")) == (
        409,
        "wrong_phase",
    )


def test_it_refuses_a_player_starting_the_event() -> None:
    table = make_table(players=2)
    with unchanged(table.event):
        response = Api(table.players[0]).post(f"/api/events/{table.event.pk}/start/")
        assert error(response) == (403, "not_allowed")


def test_it_refuses_staff_who_are_not_this_events_house() -> None:
    table = make_table(players=2)
    response = Api(make_user(staff=True)).post(f"/api/events/{table.event.pk}/start/")
    assert error(response) == (403, "not_allowed")


def test_it_refuses_a_body_with_unknown_fields() -> None:
    table = make_table(players=2)
    response = Api(table.house).post(f"/api/events/{table.event.pk}/start/", {"decks": 9})
    assert error(response) == (400, "invalid")
    assert response.json()["error"]["message"].startswith("decks: ")
