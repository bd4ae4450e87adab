"""Series, seasons and histories through the API (docs/rules.md sections 14 and 11): the same
keys, error codes and shapes as the rest of the API; a refusal changes nothing."""

from __future__ import annotations

import json

import pytest

from events.models import Registration, RegistrationStatus
from seasons.models import Season
from seasons.reads import public_id
from tests.api.support import Api, error
from tests.factories import make_user
from tests.seasons.support import FIRST, WEEK, make_league, seasons_unchanged

pytestmark = pytest.mark.django_db


def _season_body(**rules: object) -> dict[str, object]:
    return {
        "name": "Autumn",
        "starts_on": FIRST.isoformat(),
        "ends_on": (FIRST + 9 * WEEK).isoformat(),
        "rules": rules,
    }


def test_house_opens_a_series_and_a_season_once_per_key() -> None:
    staff = Api(make_user("Staff", staff=True))
    created = staff.post("/api/series/", {"name": "Thursday League", "venue": "The Dock"}, key="s1")
    assert created.status_code == 201
    again = staff.post("/api/series/", {"name": "Thursday League", "venue": "The Dock"}, key="s1")
    assert again.json() == created.json()
    assert error(staff.post("/api/series/", {"name": "Other"}, key="s1")) == (
        422,
        "idempotency_conflict",
    )
    assert error(staff.post("/api/series/", {"name": "No key"}, key=None)) == (
        400,
        "idempotency_key_required",
    )
    series = created.json()["series_id"]
    season = staff.post(f"/api/series/{series}/seasons/", _season_body(best_of=3))
    assert season.status_code == 201
    assert season.json() == {
        "season_id": season.json()["season_id"],
        "locked": False,
        "counted_events": 0,
    }
    rules = staff.get(f"/api/seasons/{season.json()['season_id']}/").json()["season"]["rules"]
    assert rules["best_of"] == 3 and rules["high_points"] == [10, 7, 5, 3, 2, 1]


@pytest.mark.parametrize(
    "rules",
    [
        {"high_points": [10, -1]},
        {"high_points": ["10"]},
        {"low_points": [1.5]},
        {"low_points": 3},
        {"best_of": -1},
        {"best_of": 0},
        {"attendance": True},
        {"bonus": 1},
    ],
)
def test_rules_that_are_not_whole_non_negative_numbers_are_refused(rules: dict) -> None:
    league = make_league()
    with seasons_unchanged():
        response = Api(league.house).post(
            f"/api/series/{league.series_id}/seasons/", _season_body(**rules)
        )
    assert error(response) == (400, "invalid")
    assert Season.objects.count() == 0


def test_locked_rules_and_dates_that_leave_out_an_event_are_refused() -> None:
    league = make_league(4)
    league.open_season({"best_of": 2})
    event_id = league.night(1, league.players, seed=31)
    house = Api(league.house)
    path = f"/api/seasons/{league.season_id}/"
    with seasons_unchanged():
        locked = house.patch(path, {"rules": {"best_of": 3}})
        short = house.patch(path, {"ends_on": FIRST.isoformat()})
        stranger = Api(make_user("Stranger")).patch(path, {"name": "Mine"})
        moved = house.post(f"/api/events/{event_id}/series/", {"series_id": None})
    assert error(locked) == (409, "wrong_state")
    assert "locked" in locked.json()["error"]["message"]
    assert error(short) == (409, "wrong_state")
    assert error(stranger) == (404, "not_found")
    assert error(moved) == (409, "wrong_phase")


def test_the_season_table_and_download_are_public_and_name_no_email() -> None:
    league = make_league(4)
    league.open_season()
    league.night(0, league.players, seed=32)
    visitor = Api()
    table = visitor.get(f"/api/seasons/{league.season_id}/")
    assert table.status_code == 200
    assert len(table.json()["rows"]) == 4
    download = visitor.get(f"/api/seasons/{league.season_id}/download/")
    document = download.json()
    assert list(document) == ["season", "events", "standings"]
    csv = visitor.get(f"/api/seasons/{league.season_id}/download/", format="csv")
    assert csv["Content-Type"].startswith("text/csv")
    for text in (table.content.decode(), json.dumps(document), csv.content.decode()):
        assert "@" not in text
    assert error(visitor.get(f"/api/seasons/{league.season_id}/download/", format="xml"))[0] == 400


def test_a_history_shows_others_only_what_the_board_showed() -> None:
    league = make_league(4)
    league.open_season()
    event_id = league.night(0, league.players, seed=33)
    withdrawn = Registration.objects.get(event_id=event_id, status=RegistrationStatus.WITHDRAWN)
    assert withdrawn.player is not None
    path = f"/api/players/{public_id(withdrawn.player)}/history/"
    seen = Api(make_user("Nosy")).get(path).json()
    assert seen["own"] is False
    assert seen["events"][0]["status"] == "withdrawn" and seen["events"][0]["hand"] == []
    mine = Api(withdrawn.player).get("/api/me/history/").json()
    assert mine["own"] is True and len(mine["events"][0]["hand"]) > 0
    assert error(Api().get("/api/players/pl_nobody/history/")) == (404, "not_found")
