"""A series' staff over the API (docs/decisions.md, "Roles"): appointing with a role, changing
it, removal, leaving, handing ownership over, invitations, the series' defaults; and the role
matrix: every series write tried by each role of the series and by a player and an outsider,
each refusal a 403 with nothing changed."""

from __future__ import annotations

from typing import Any

import pytest

from seasons.models import Series
from staff.models import Invitation, Membership
from staff.reads import members
from tests.api.support import Api, error
from tests.seasons.test_series_staff import (
    CONTROLS,
    STAFF_ROLES,
    Crew,
    make_crew,
    nothing_changes,
    series_allowed,
)

pytestmark = pytest.mark.django_db


def _roles(crew: Crew) -> dict[int, str]:
    return dict(Membership.objects.filter(series=crew.series_id).values_list("user_id", "role"))


# Each series write of the API, by the series action it performs.
WRITES: dict[str, tuple[str, str, dict[str, Any]]] = {
    "series_defaults_set": ("PATCH", "/api/series/{s}/", {"minimum_age": 21}),
    "house_member_add": (
        "POST",
        "/api/series/{s}/house-members/",
        {"user_id": "{newcomer}", "role": "scorer"},
    ),
    "house_member_remove": ("DELETE", "/api/series/{s}/house-members/{spare}/", {}),
    "ownership_transfer": ("POST", "/api/series/{s}/owner/", {"user_id": "{spare}"}),
    "staff_invite": (
        "POST",
        "/api/series/{s}/staff-invitations/",
        {"email": "someone@example.com", "role": "cashier"},
    ),
    "series_next_event": ("POST", "/api/series/{s}/next-event/", {}),
    "season_create": (
        "POST",
        "/api/series/{s}/seasons/",
        {"name": "Spring", "starts_on": "2027-01-01", "ends_on": "2027-03-31"},
    ),
    "season_update": ("PATCH", "/api/seasons/{season}/", {"name": "Autumn 2026"}),
    "championship_create": ("POST", "/api/seasons/{season}/championship/", {"date": "2026-12-10"}),
    "display_link_create": (
        "POST",
        "/api/series/{s}/display-links/",
        {"label": "Door screen"},
    ),
    "display_link_revoke": ("POST", "/api/series/{s}/display-links/{link}/revoke/", {}),
}


def _send(api: Api, crew: Crew, action: str) -> Any:
    method, path, body = WRITES[action]
    ids = {
        "s": crew.series_id,
        "season": crew.season_id,
        "spare": crew.spare.pk,
        "newcomer": crew.newcomer.pk,
        "link": crew.link_id,
    }
    filled = {k: ids[v[1:-1]] if str(v).startswith("{") else v for k, v in body.items()}
    return api.send(method, path.format(**ids), filled)


def test_every_series_write_is_refused_to_each_role_that_may_not_make_it() -> None:
    crew = make_crew()
    tried = 0
    for role in STAFF_ROLES + CONTROLS:
        api = Api(crew.people[role])
        for action in WRITES:
            if series_allowed(role, action):
                continue
            with nothing_changes(crew, f"{role} {action}"):
                response = _send(api, crew, action)
            # A stranger to the series is told it is not there; a player of its events knows it.
            expected = (404, "not_found") if role == "outsider" else (403, "not_allowed")
            assert error(response) == expected, (role, action, response.json())
            message = response.json()["error"]["message"]
            if role in STAFF_ROLES:
                assert f"Your role in this series ({role}) does not include" in message
            tried += 1
        # Every member reads the series with its drafts; the controls do not see drafts.
        page = api.get(f"/api/series/{crew.series_id}/").json()
        assert page["house"] is (role in STAFF_ROLES)
    # 11 writes: the owner is refused none, a director the 4 staff ones, a cashier, a scorer, a
    # player and an outsider all 11: 48 cases.
    assert tried == 0 + 4 + 11 * 4 == 48


def test_the_owner_appoints_with_a_role_and_changes_it_by_posting_again() -> None:
    crew = make_crew()
    owner = Api(crew.people["owner"])
    path = f"/api/series/{crew.series_id}/house-members/"
    answer = owner.post(path, {"user_id": crew.newcomer.pk})
    assert answer.status_code == 201 and answer.json()["member"] == crew.newcomer.pk
    series = Series.objects.get(pk=crew.series_id)
    assert "Newcomer" in [m.user.display_name for m in members(series)]
    assert _roles(crew)[crew.newcomer.pk] == "director"
    assert owner.post(path, {"user_id": crew.newcomer.pk, "role": "cashier"}).status_code == 201
    assert _roles(crew)[crew.newcomer.pk] == "cashier"
    with nothing_changes(crew):
        refused = owner.post(path, {"user_id": crew.spare.pk, "role": "owner"})
    assert error(refused) == (400, "invalid")
    assert "handed over" in refused.json()["error"]["message"]
    with nothing_changes(crew):
        assert error(owner.post(path, {"user_id": 987654})) == (404, "not_found")


def test_the_owner_removes_a_member_and_a_member_leaves() -> None:
    crew = make_crew()
    owner = Api(crew.people["owner"])
    path = f"/api/series/{crew.series_id}/house-members/"
    assert owner.delete(f"{path}{crew.spare.pk}/").status_code == 200
    cashier = crew.people["cashier"]
    assert Api(cashier).delete(f"{path}{cashier.pk}/").status_code == 200
    assert crew.spare.pk not in _roles(crew) and cashier.pk not in _roles(crew)
    with nothing_changes(crew):
        response = owner.delete(f"{path}{crew.people['owner'].pk}/")
    assert error(response) == (403, "not_allowed")
    # A cashier who left is nobody in the series: they learn nothing of its accounts, and are
    # told it is not theirs.
    with nothing_changes(crew):
        gone = Api(cashier).delete(f"{path}{crew.people['scorer'].pk}/")
    assert error(gone) == (404, "not_found")


def test_ownership_is_handed_over_and_the_former_owner_stays_as_director() -> None:
    crew = make_crew()
    owner = crew.people["owner"]
    path = f"/api/series/{crew.series_id}/owner/"
    with nothing_changes(crew):
        response = Api(owner).post(path, {"user_id": crew.newcomer.pk})
    assert error(response) == (403, "not_allowed")
    answer = Api(owner).post(path, {"user_id": crew.spare.pk})
    assert answer.status_code == 200
    assert answer.json() == {"scope": "series", "scope_id": crew.series_id, "owner": crew.spare.pk}
    roles = _roles(crew)
    assert roles[crew.spare.pk] == "owner" and roles[owner.pk] == "director"
    assert list(roles.values()).count("owner") == 1


def test_an_invitation_answers_with_its_token_and_its_invitee_accepts_it_once() -> None:
    crew = make_crew()
    path = f"/api/series/{crew.series_id}/staff-invitations/"
    made = Api(crew.people["owner"]).post(path, {"email": crew.newcomer.email, "role": "scorer"})
    assert made.status_code == 201
    token = made.json()["token"]
    assert Invitation.objects.of_kind(Series).get(token=token).role == "scorer"
    with nothing_changes(crew):
        wrong = Api(crew.people["outsider"]).post(f"{path}accept/", {"token": token})
    assert error(wrong) == (403, "not_allowed")
    accepted = Api(crew.newcomer).post(f"{path}accept/", {"token": token})
    assert accepted.json() == {"scope": "series", "scope_id": crew.series_id, "role": "scorer"}
    assert _roles(crew)[crew.newcomer.pk] == "scorer"
    with nothing_changes(crew):
        again = Api(crew.newcomer).post(f"{path}accept/", {"token": token})
    assert error(again) == (409, "wrong_state")


def test_the_defaults_are_set_over_the_api_and_read_with_the_series() -> None:
    crew = make_crew()
    path = f"/api/series/{crew.series_id}/"
    saved = Api(crew.people["director"]).patch(path, {"entry_mode": "sponsored", "minimum_age": 21})
    assert saved.json() == {
        "series_id": crew.series_id,
        "entry_mode": "sponsored",
        "minimum_age": 21,
        "capacity": None,
        "hold_minutes": 30,
        "day_hold_minutes": 10,
        "pay_ahead": False,
        "registration_opens_days_before": None,
        "registration_closes_time": None,
        "language": "",
    }
    shown = Api().get(path).json()
    assert (shown["entry_mode"], shown["minimum_age"]) == ("sponsored", 21)
    window = {"capacity": 64, "registration_opens_days_before": 7}
    saved = Api(crew.people["director"]).patch(
        path, {**window, "registration_closes_time": "18:30", "pay_ahead": True}
    )
    assert saved.status_code == 200
    assert {k: saved.json()[k] for k in window} == window
    assert (saved.json()["registration_closes_time"], saved.json()["pay_ahead"]) == ("18:30", True)
    shown = Api().get(path).json()
    assert (shown["capacity"], shown["registration_closes_time"]) == (64, "18:30")
    cleared = Api(crew.people["director"]).patch(path, {"capacity": None}).json()
    assert (cleared["capacity"], cleared["registration_opens_days_before"]) == (None, 7)
    owner = Api(crew.people["owner"])
    with nothing_changes(crew):
        for body in (
            {"minimum_age": 100},
            {"entry_mode": "free"},
            {"minimum_age": "21"},
            {"capacity": 0},
            {"hold_minutes": 0},
            {"registration_closes_time": "6pm"},
        ):
            assert error(owner.patch(path, body)) == (400, "invalid"), body
