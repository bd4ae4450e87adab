"""Events: list, summary, create, edit (/api/events/, /api/events/{id}/) and the formats."""

from __future__ import annotations

import pytest

from events.models import Event
from tests.api.support import Api, error
from tests.factories import make_table, make_user
from tests.refusals import unchanged

pytestmark = pytest.mark.django_db

NEW_EVENT = {"name": "Friday Switch", "date": "2026-12-04", "format": "switch", "contribution": 5}


def test_it_lists_public_events_to_visitors_without_drafts() -> None:
    table = make_table()
    staff = make_user(staff=True)
    Api(staff).post("/api/events/", NEW_EVENT)  # a draft
    response = Api().get("/api/events/")
    assert response.status_code == 200
    assert [e["id"] for e in response.json()] == [table.event.pk]
    item = response.json()[0]
    assert item["house"] is False and item["registration_id"] is None
    assert item["format"] == "league" and item["phase"] == "open"


def test_it_lists_my_registration_and_my_house_drafts() -> None:
    table = make_table()
    player = make_user()
    registration_id = table.register(player)
    staff = make_user(staff=True)
    draft_id = Api(staff).post("/api/events/", NEW_EVENT).json()["event_id"]

    mine = {e["id"]: e for e in Api(player).get("/api/events/").json()}
    assert set(mine) == {table.event.pk}
    assert mine[table.event.pk]["registration_id"] == registration_id

    house = {e["id"]: e for e in Api(staff).get("/api/events/").json()}
    assert set(house) == {table.event.pk, draft_id}
    assert house[draft_id]["house"] is True and house[table.event.pk]["house"] is False


def test_it_shows_an_event_summary_to_anyone() -> None:
    table = make_table()
    response = Api().get(f"/api/events/{table.event.pk}/")
    assert response.status_code == 200
    summary = response.json()
    assert summary["id"] == table.event.pk
    assert summary["name"] == "Thursday League"
    assert summary["games"] == 6 and summary["kept"] == 7
    assert summary["registration_open"] is True


def test_it_hides_a_draft_from_players_and_visitors() -> None:
    staff = make_user(staff=True)
    draft_id = Api(staff).post("/api/events/", NEW_EVENT).json()["event_id"]
    for client in (Api(), Api(make_user())):
        assert error(client.get(f"/api/events/{draft_id}/")) == (404, "not_found")
        assert error(client.get(f"/api/events/{draft_id}/board/")) == (404, "not_found")
    assert Api(staff).get(f"/api/events/{draft_id}/").status_code == 200


def test_it_answers_404_for_an_unknown_event() -> None:
    assert error(Api().get("/api/events/999999/")) == (404, "not_found")


def test_it_lets_site_staff_create_an_event() -> None:
    staff = make_user(staff=True)
    response = Api(staff).post("/api/events/", NEW_EVENT)
    assert response.status_code == 201
    event = Event.objects.get(pk=response.json()["event_id"])
    assert response.json() == {"event_id": event.pk}
    assert (event.name, event.format, event.contribution, event.phase) == (
        "Friday Switch",
        "switch",
        5,
        "draft",
    )
    assert event.extra_decks == 1 and event.time_zone == "UTC"
    assert [m.user for m in event.staff.all()] == [staff]


def test_it_refuses_event_creation_by_a_player() -> None:
    response = Api(make_user()).post("/api/events/", NEW_EVENT)
    assert error(response) == (403, "not_allowed")
    assert not Event.objects.exists()


@pytest.mark.parametrize(
    ("body", "field"),
    [
        ({**NEW_EVENT, "format": "holdem"}, "format"),
        ({**NEW_EVENT, "contribution": -1}, "contribution"),
        ({**NEW_EVENT, "contribution": 2.5}, "contribution"),
        ({**NEW_EVENT, "date": "Friday"}, "date"),
        ({**NEW_EVENT, "extra_decks": 51}, "extra_decks"),
        ({"date": "2026-12-04", "format": "league"}, "name"),
        ({**NEW_EVENT, "phase": "finalized"}, "phase"),
    ],
)
def test_it_refuses_a_malformed_event_naming_the_field(body: dict, field: str) -> None:
    response = Api(make_user(staff=True)).post("/api/events/", body)
    assert error(response) == (400, "invalid")
    assert response.json()["error"]["message"].startswith(f"{field}: ")
    assert not Event.objects.exists()


def test_it_refuses_an_unknown_time_zone_with_the_service_message() -> None:
    response = Api(make_user(staff=True)).post("/api/events/", {**NEW_EVENT, "time_zone": "Mars"})
    assert error(response) == (400, "invalid")
    assert "Mars" in response.json()["error"]["message"]


def test_it_lets_house_edit_the_settings_sent() -> None:
    table = make_table()
    response = Api(table.house).patch(
        f"/api/events/{table.event.pk}/", {"venue": "The Barn", "extra_decks": 2}
    )
    assert response.status_code == 200
    assert response.json() == {"event_id": table.event.pk, "changed": ["extra_decks", "venue"]}
    event = table.refresh()
    assert (event.venue, event.extra_decks, event.name) == ("The Barn", 2, "Thursday League")


def test_it_refuses_edits_by_a_player() -> None:
    table = make_table()
    player = make_user()
    table.register(player)
    with unchanged(table.event):
        response = Api(player).patch(f"/api/events/{table.event.pk}/", {"venue": "Mine"})
        assert error(response) == (403, "not_allowed")


def test_it_tells_a_stranger_the_event_is_not_there() -> None:
    table = make_table()
    with unchanged(table.event):
        response = Api(make_user()).patch(f"/api/events/{table.event.pk}/", {"venue": "Mine"})
        assert response.status_code == 404
        assert response.json()["error"] == {"code": "not_found", "message": "No such event."}


def test_it_refuses_edits_after_the_start() -> None:
    table = make_table(players=2, start=True)
    response = Api(table.house).patch(f"/api/events/{table.event.pk}/", {"contribution": 20})
    assert error(response) == (409, "wrong_phase")
    assert table.refresh().contribution == 10


def test_it_refuses_an_edit_that_would_leave_a_paid_open_event_without_remainder_policy() -> None:
    table = make_table()
    response = Api(table.house).patch(f"/api/events/{table.event.pk}/", {"remainder_policy": "  "})
    assert error(response) == (409, "remainder_policy_required")


def test_it_lists_the_formats_to_anyone() -> None:
    response = Api().get("/api/formats/")
    assert response.status_code == 200
    by_name = {f["name"]: f for f in response.json()}
    assert set(by_name) == {"league", "switch", "standard-v1"}
    assert (by_name["switch"]["offered"], by_name["switch"]["starting"]) == (5, 3)
    assert (by_name["standard-v1"]["kept"], by_name["standard-v1"]["reserve"]) == (6, 12)
