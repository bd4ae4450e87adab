"""Site staff appoint and remove House members: /api/events/{id}/house-members/."""

from __future__ import annotations

import pytest

from tests.api.support import Api, error
from tests.factories import make_table, make_user

pytestmark = pytest.mark.django_db


def test_it_lets_staff_appoint_a_house_member_who_can_then_act() -> None:
    table = make_table()
    member = make_user("Helper")
    response = Api(table.house).post(
        f"/api/events/{table.event.pk}/house-members/", {"user_id": member.pk}
    )
    assert response.status_code == 201
    assert response.json() == {"scope": "event", "scope_id": table.event.pk, "member": member.pk}
    assert Api(member).get(f"/api/events/{table.event.pk}/house/").status_code == 200


def test_it_lets_staff_remove_a_house_member() -> None:
    table = make_table()
    member = make_user()
    api = Api(table.house)
    api.post(f"/api/events/{table.event.pk}/house-members/", {"user_id": member.pk})
    response = api.delete(f"/api/events/{table.event.pk}/house-members/{member.pk}/")
    assert response.status_code == 200
    assert response.json() == {"scope": "event", "scope_id": table.event.pk, "member": member.pk}
    # No role and no place in the event any more: it is not theirs.
    assert error(Api(member).get(f"/api/events/{table.event.pk}/house/")) == (404, "not_found")


def test_it_refuses_a_house_member_who_is_not_staff() -> None:
    table = make_table()
    member = make_user()
    Api(table.house).post(f"/api/events/{table.event.pk}/house-members/", {"user_id": member.pk})
    response = Api(member).post(
        f"/api/events/{table.event.pk}/house-members/", {"user_id": make_user().pk}
    )
    assert error(response) == (403, "not_allowed")
    response = Api(member).delete(f"/api/events/{table.event.pk}/house-members/{table.house.pk}/")
    assert error(response) == (403, "not_allowed")
    assert table.event.staff.filter(user=table.house).exists()


def test_it_answers_404_for_an_unknown_account_or_event() -> None:
    table = make_table()
    api = Api(table.house)
    assert error(api.post(f"/api/events/{table.event.pk}/house-members/", {"user_id": 987654})) == (
        404,
        "not_found",
    )
    assert error(api.post("/api/events/987654/house-members/", {"user_id": table.house.pk})) == (
        404,
        "not_found",
    )


def test_it_needs_a_key_to_remove_a_member() -> None:
    table = make_table()
    response = Api(table.house).delete(
        f"/api/events/{table.event.pk}/house-members/{table.house.pk}/", key=None
    )
    assert error(response) == (400, "idempotency_key_required")
    assert table.event.staff.filter(user=table.house).exists()


def test_it_refuses_changes_to_a_finalized_event() -> None:
    table = make_table(players=2, start=True)
    for player in table.players:
        table.play_out(player)
    api = Api(table.house)
    api.post(f"/api/events/{table.event.pk}/pool/confirm/")
    assert api.post(f"/api/events/{table.event.pk}/finalize/").status_code == 200
    response = api.post(f"/api/events/{table.event.pk}/house-members/", {"user_id": make_user().pk})
    assert error(response) == (409, "event_finalized")
