"""Joining and leaving before play: register, cancel, the registration switch, check-in, undo."""

from __future__ import annotations

import pytest

from events.models import Registration
from tests.api.support import Api, error
from tests.factories import make_table, make_user
from tests.refusals import unchanged

pytestmark = pytest.mark.django_db


def test_it_registers_a_player() -> None:
    table = make_table()
    player = make_user("Ada")
    response = Api(player).post(f"/api/events/{table.event.pk}/register/")
    assert response.status_code == 201
    registration = Registration.objects.get(player=player)
    assert response.json() == {
        "registration_id": registration.pk,
        "label": "Ada",
        "status": "registered",
    }
    assert registration.status == "registered"


def test_it_makes_labels_unique_within_the_event() -> None:
    table = make_table()
    Api(make_user("Ada")).post(f"/api/events/{table.event.pk}/register/")
    response = Api(make_user("Ada")).post(f"/api/events/{table.event.pk}/register/")
    assert response.json()["label"] == "Ada #2"


def test_it_refuses_a_second_registration() -> None:
    table = make_table()
    player = make_user()
    Api(player).post(f"/api/events/{table.event.pk}/register/")
    response = Api(player).post(f"/api/events/{table.event.pk}/register/")
    assert error(response) == (409, "already_registered")


def test_it_refuses_registration_while_closed() -> None:
    table = make_table()
    Api(table.house).post(f"/api/events/{table.event.pk}/registration/close/")
    response = Api(make_user()).post(f"/api/events/{table.event.pk}/register/")
    assert error(response) == (409, "registration_closed")


def test_it_refuses_registration_for_an_unknown_event() -> None:
    assert error(Api(make_user()).post("/api/events/424242/register/")) == (404, "not_found")


def test_it_lets_a_player_cancel_before_check_in() -> None:
    table = make_table()
    player = make_user()
    registration_id = table.register(player)
    response = Api(player).post(f"/api/registrations/{registration_id}/cancel/")
    assert response.status_code == 200
    assert response.json() == {"registration_id": registration_id, "status": "cancelled"}


def test_it_lets_house_cancel_a_registration() -> None:
    table = make_table()
    registration_id = table.register(make_user())
    response = Api(table.house).post(f"/api/registrations/{registration_id}/cancel/")
    assert response.json()["status"] == "cancelled"


def test_it_refuses_to_cancel_after_check_in() -> None:
    table = make_table(players=1)
    response = Api(table.players[0]).post(
        f"/api/registrations/{table.rid(table.players[0])}/cancel/"
    )
    assert error(response) == (409, "wrong_phase")


def test_it_opens_registration_and_the_draft_event() -> None:
    staff = make_user(staff=True)
    api = Api(staff)
    event_id = api.post(
        "/api/events/", {"name": "Free", "date": "2026-12-04", "format": "league"}
    ).json()["event_id"]
    response = api.post(f"/api/events/{event_id}/registration/open/")
    assert response.status_code == 200
    assert response.json() == {"event_id": event_id, "registration_open": True}
    assert api.get(f"/api/events/{event_id}/").json()["phase"] == "open"


def test_it_refuses_to_open_a_paid_event_without_a_remainder_policy() -> None:
    staff = make_user(staff=True)
    api = Api(staff)
    event_id = api.post(
        "/api/events/",
        {"name": "Paid", "date": "2026-12-04", "format": "league", "contribution": 10},
    ).json()["event_id"]
    response = api.post(f"/api/events/{event_id}/registration/open/")
    assert error(response) == (409, "remainder_policy_required")
    message = response.json()["error"]["message"]
    assert "Registration cannot open" in message
    assert "remainder policy" in message


def test_it_refuses_to_open_registration_twice() -> None:
    table = make_table()
    response = Api(table.house).post(f"/api/events/{table.event.pk}/registration/open/")
    assert error(response) == (409, "registration_closed")


def test_it_closes_registration_and_marks_no_shows() -> None:
    table = make_table(players=1)
    waiting = make_user()
    registration_id = table.register(waiting)
    response = Api(table.house).post(f"/api/events/{table.event.pk}/registration/close/")
    assert response.status_code == 200
    assert response.json() == {"event_id": table.event.pk, "registration_open": False}
    assert Registration.objects.get(pk=registration_id).status == "no_show"


def test_it_refuses_to_close_registration_twice() -> None:
    table = make_table()
    api = Api(table.house)
    api.post(f"/api/events/{table.event.pk}/registration/close/")
    assert error(api.post(f"/api/events/{table.event.pk}/registration/close/")) == (
        409,
        "registration_closed",
    )


def test_it_lets_house_check_a_player_in() -> None:
    table = make_table()
    registration_id = table.register(make_user())
    response = Api(table.house).post(f"/api/registrations/{registration_id}/check-in/")
    assert response.status_code == 200
    assert response.json() == {"registration_id": registration_id, "status": "checked_in"}


def test_it_refuses_a_player_checking_themself_in() -> None:
    table = make_table()
    player = make_user()
    registration_id = table.register(player)
    with unchanged(table.event):
        response = Api(player).post(f"/api/registrations/{registration_id}/check-in/")
        assert error(response) == (403, "not_allowed")


def test_it_refuses_a_second_check_in() -> None:
    table = make_table(players=1)
    response = Api(table.house).post(f"/api/registrations/{table.rid(table.players[0])}/check-in/")
    assert error(response) == (409, "wrong_phase")


def test_it_undoes_a_check_in_before_the_start() -> None:
    table = make_table(players=1)
    registration_id = table.rid(table.players[0])
    response = Api(table.house).post(f"/api/registrations/{registration_id}/check-in/undo/")
    assert response.status_code == 200
    assert response.json() == {"registration_id": registration_id, "status": "registered"}


def test_it_refuses_to_undo_a_check_in_after_the_start() -> None:
    table = make_table(players=2, start=True)
    response = Api(table.house).post(
        f"/api/registrations/{table.rid(table.players[0])}/check-in/undo/"
    )
    assert error(response) == (409, "wrong_phase")


def test_it_refuses_to_undo_a_check_in_that_never_happened() -> None:
    table = make_table()
    registration_id = table.register(make_user())
    response = Api(table.house).post(f"/api/registrations/{registration_id}/check-in/undo/")
    assert error(response) == (409, "not_checked_in")


def test_registration_cannot_reopen_once_the_pool_has_been_confirmed() -> None:
    """Also after a late addition made the pool provisional again."""
    table = make_table(players=2, start=True)
    api = Api(table.house)
    event = f"/api/events/{table.event.pk}"
    api.post(f"{event}/registration/close/")
    assert api.post(f"{event}/pool/confirm/").status_code == 200
    assert api.post(f"{event}/participants/", {"user_id": make_user().pk}).status_code == 201
    assert api.get(f"{event}/board/").json()["pool"]["confirmed"] is False
    response = api.post(f"{event}/registration/open/")
    assert error(response) == (409, "registration_cannot_reopen")
    assert api.get(f"{event}/").json()["registration_open"] is False


def test_the_remainder_policy_stays_once_registration_has_opened() -> None:
    """House announces the remainder policy before accepting any paid entry, however the
    contribution came to be above $0: clearing it, or making a free event paid without one, is
    refused once registration has opened, also when it is closed again."""
    paid = make_table(players=2, contribution=10)
    free = make_table(players=2, contribution=0)
    for table in (paid, free):
        api = Api(table.house)
        api.post(f"/api/events/{table.event.pk}/registration/close/")
    paid_api, free_api = Api(paid.house), Api(free.house)
    response = paid_api.patch(f"/api/events/{paid.event.pk}/", {"remainder_policy": ""})
    assert error(response) == (409, "remainder_policy_required")
    free_api.patch(f"/api/events/{free.event.pk}/", {"remainder_policy": ""})
    response = free_api.patch(f"/api/events/{free.event.pk}/", {"contribution": 10})
    assert error(response) == (409, "remainder_policy_required")
    assert free.refresh().contribution == 0
