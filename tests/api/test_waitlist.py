"""The waitlist over the API: capacity on the event, where a registration stands, claiming an
offered place, and House's waitlist, promotion and removal (events/waitlist.py)."""

from __future__ import annotations

import datetime

import pytest
from django.utils import timezone

from events.models import Event, Registration
from tests.api.support import Api, error
from tests.factories import Table, make_table, make_user
from tests.refusals import unchanged

pytestmark = pytest.mark.django_db


def capped(capacity: int) -> Table:
    table = make_table("league")
    response = Api(table.house).patch(f"/api/events/{table.event.pk}/", {"capacity": capacity})
    assert response.status_code == 200, response.content
    assert response.json()["changed"] == ["capacity"]
    return table


def test_capacity_and_the_window_are_set_at_creation_and_read_back() -> None:
    staff = Api(make_user(staff=True))
    created = staff.post(
        "/api/events/",
        {
            "name": "Capped",
            "date": "2026-12-10",
            "format": "league",
            "capacity": 64,
            "registration_opens_at": "2026-12-01T18:00:00Z",
            "registration_closes_at": "2026-12-10T17:00:00+00:00",
            "hold_minutes": 45,
            "day_hold_minutes": 5,
            "pay_ahead": True,
        },
    )
    assert created.status_code == 201, created.content
    event = staff.get(f"/api/events/{created.json()['event_id']}/").json()
    assert (event["capacity"], event["hold_minutes"], event["day_hold_minutes"]) == (64, 45, 5)
    assert event["registration_opens_at"] == "2026-12-01T18:00:00+00:00"
    assert event["registration_closes_at"] == "2026-12-10T17:00:00+00:00"
    assert event["pay_ahead"] is True
    uncapped = staff.post(
        "/api/events/", {"name": "Open", "date": "2026-12-10", "format": "league"}
    ).json()
    assert staff.get(f"/api/events/{uncapped['event_id']}/").json()["capacity"] is None


def test_past_capacity_registering_answers_waitlisted_with_a_position() -> None:
    table = capped(1)
    first = Api(make_user()).post(f"/api/events/{table.event.pk}/register/")
    assert first.status_code == 201
    assert first.json()["status"] == "registered"
    ben = make_user("Ben")
    second = Api(ben).post(f"/api/events/{table.event.pk}/register/")
    assert second.status_code == 201
    body = second.json()
    assert (body["status"], body["position"]) == ("waitlisted", 1)
    assert "offered_until" not in body
    state = Api(ben).get(f"/api/registrations/{body['registration_id']}/").json()
    assert (state["status"], state["position"]) == ("waitlisted", 1)
    assert state["next_step"]["code"] == "waitlisted"


def test_an_offered_place_is_claimed_in_one_tap() -> None:
    table = capped(1)
    ann, ben = make_user(), make_user()
    first = Api(ann).post(f"/api/events/{table.event.pk}/register/").json()["registration_id"]
    second = Api(ben).post(f"/api/events/{table.event.pk}/register/").json()["registration_id"]
    Api(ann).post(f"/api/registrations/{first}/cancel/")
    state = Api(ben).get(f"/api/registrations/{second}/").json()
    assert state["status"] == "offered" and "position" not in state
    held = Registration.objects.get(pk=second).hold_until
    assert held is not None
    assert datetime.datetime.fromisoformat(state["offered_until"]) == held
    claimed = Api(ben).post(f"/api/registrations/{second}/claim/")
    assert claimed.status_code == 200
    assert claimed.json() == {"registration_id": second, "status": "registered"}


def test_a_claim_after_the_hold_is_refused_409_offer_lapsed() -> None:
    table = capped(1)
    ann, ben = make_user(), make_user()
    first = Api(ann).post(f"/api/events/{table.event.pk}/register/").json()["registration_id"]
    second = Api(ben).post(f"/api/events/{table.event.pk}/register/").json()["registration_id"]
    Api(ann).post(f"/api/registrations/{first}/cancel/")
    Registration.objects.filter(pk=second).update(
        hold_until=timezone.now() - datetime.timedelta(seconds=1)
    )
    with unchanged(table.event):
        response = Api(ben).post(f"/api/registrations/{second}/claim/")
    assert error(response) == (409, "offer_lapsed")
    with unchanged(table.event):
        response = Api(ann).post(f"/api/registrations/{first}/claim/")
    assert error(response) == (409, "no_place_offered")


def test_house_reads_the_line_promotes_and_removes_with_a_reason() -> None:
    table = capped(1)
    house = Api(table.house)
    ids = [
        Api(make_user(name))
        .post(f"/api/events/{table.event.pk}/register/")
        .json()["registration_id"]
        for name in ("Ann", "Ben", "Cy", "Dee")
    ]
    line = house.get(f"/api/events/{table.event.pk}/waitlist/").json()
    assert (line["capacity"], line["places_held"], line["offering"]) == (1, 1, True)
    assert [(p["label"], p["position"]) for p in line["players"]] == [
        ("Ben", 1),
        ("Cy", 2),
        ("Dee", 3),
    ]
    with unchanged(table.event):
        response = house.post(f"/api/registrations/{ids[1]}/promote/", {"reason": " "})
    assert error(response) == (400, "reason_required")
    promoted = house.post(f"/api/registrations/{ids[1]}/promote/", {"reason": "Regular"})
    assert promoted.json() == {"registration_id": ids[1], "status": "registered"}
    removed = house.post(f"/api/registrations/{ids[0]}/remove/", {"reason": "Duplicate"})
    assert removed.json() == {"registration_id": ids[0], "status": "cancelled"}
    # Two held (Ben past the capacity): Ann's place freed nothing below the capacity.
    line = house.get(f"/api/events/{table.event.pk}/waitlist/").json()
    assert [(p["label"], p["status"]) for p in line["players"]] == [
        ("Cy", "waitlisted"),
        ("Dee", "waitlisted"),
    ]
    # A player reads no waitlist; a stranger is told the event is not theirs.
    response = Api(Registration.objects.get(pk=ids[0]).player).get(
        f"/api/events/{table.event.pk}/waitlist/"
    )
    assert error(response) == (403, "not_allowed")
    response = Api(make_user()).get(f"/api/events/{table.event.pk}/waitlist/")
    assert error(response) == (404, "not_found")


def test_capacity_below_the_places_held_is_refused_409() -> None:
    table = capped(3)
    for _ in range(2):
        Api(make_user()).post(f"/api/events/{table.event.pk}/register/")
    with unchanged(table.event):
        response = Api(table.house).patch(f"/api/events/{table.event.pk}/", {"capacity": 1})
    assert error(response) == (409, "capacity_below_field")
    assert Event.objects.get(pk=table.event.pk).capacity == 3


@pytest.mark.parametrize(
    "body",
    [{"capacity": 0}, {"hold_minutes": 0}, {"day_hold_minutes": 2000}, {"pay_ahead": "maybe"}],
)
def test_bad_settings_are_refused_400(body: dict[str, object]) -> None:
    table = make_table("league")
    with unchanged(table.event):
        response = Api(table.house).patch(f"/api/events/{table.event.pk}/", body)
    assert response.status_code == 400


def test_registering_before_the_window_opens_is_refused_409() -> None:
    table = make_table("league")
    opens = timezone.now() + datetime.timedelta(days=3)
    Api(table.house).patch(
        f"/api/events/{table.event.pk}/", {"registration_opens_at": opens.isoformat()}
    )
    with unchanged(table.event):
        response = Api(make_user()).post(f"/api/events/{table.event.pk}/register/")
    assert error(response) == (409, "registration_closed")
    assert "Registration opens on" in response.json()["error"]["message"]
