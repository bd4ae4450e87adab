"""Withdrawal: POST /api/registrations/{id}/withdraw/ (a player leaves, or House withdraws)."""

from __future__ import annotations

import pytest

from audit.models import AuditEntry
from cards.models import DealtCard
from tests.api.support import Api, error
from tests.factories import make_table, make_user

pytestmark = pytest.mark.django_db


def test_it_lets_a_player_leave_and_voids_the_pending_offer() -> None:
    table = make_table(players=2, start=True)
    player = table.players[0]
    response = Api(player).post(f"/api/registrations/{table.rid(player)}/withdraw/")
    assert response.status_code == 200
    assert response.json() == {"registration_id": table.rid(player), "status": "withdrawn"}
    offer = DealtCard.objects.filter(registration=table.registration(player))
    assert all(card.state == "discarded" and not card.face_down for card in offer)
    entry = AuditEntry.objects.get(event=table.event, action="player_withdrawn")
    assert entry.details["by"] == "self"
    assert sorted(c["card"] for c in entry.details["voided"]) == sorted(c.card for c in offer)


def test_it_refuses_a_second_withdrawal() -> None:
    table = make_table(players=2, start=True)
    player = table.players[0]
    api = Api(player)
    api.post(f"/api/registrations/{table.rid(player)}/withdraw/")
    response = api.post(f"/api/registrations/{table.rid(player)}/withdraw/")
    assert error(response) == (409, "player_withdrawn")


def test_it_needs_a_reason_when_house_withdraws_a_player() -> None:
    table = make_table(players=2, start=True)
    path = f"/api/registrations/{table.rid(table.players[0])}/withdraw/"
    api = Api(table.house)
    assert error(api.post(path)) == (400, "reason_required")
    assert error(api.post(path, {"reason": "  "})) == (400, "reason_required")
    response = api.post(path, {"reason": "Left without a word"})
    assert response.json()["status"] == "withdrawn"
    entry = AuditEntry.objects.get(event=table.event, action="player_withdrawn")
    assert (entry.details["by"], entry.reason) == ("house", "Left without a word")


def test_it_refuses_a_player_who_is_not_checked_in() -> None:
    table = make_table()
    player = make_user()
    registration_id = table.register(player)
    response = Api(player).post(f"/api/registrations/{registration_id}/withdraw/")
    assert error(response) == (409, "not_checked_in")


def test_registration_closes_when_the_last_player_without_a_first_result_withdraws() -> None:
    """The rule holds through the API as through the services: the withdrawal that leaves no
    active checked-in player without a first result closes registration (actor "system")."""
    table = make_table(players=2, start=True)
    first, second = table.players
    table.choose_start(first)
    table.report(first, 1, "loss")
    event_path = f"/api/events/{table.event.pk}/"
    assert Api(table.house).get(event_path).json()["registration_open"] is True
    response = Api(second).post(f"/api/registrations/{table.rid(second)}/withdraw/")
    assert response.status_code == 200
    assert Api(table.house).get(event_path).json()["registration_open"] is False
    closed = AuditEntry.objects.get(event=table.event, action="registration_closed")
    assert closed.actor == "system"
