"""House downloads the audit: GET /api/events/{id}/audit/?format=json|csv."""

from __future__ import annotations

import csv
import io
import json

import pytest

from tests.api.support import Api, error
from tests.factories import make_table

pytestmark = pytest.mark.django_db


def test_it_exports_the_audit_as_json() -> None:
    table = make_table(players=2, start=True)
    response = Api(table.house).get(f"/api/events/{table.event.pk}/audit/")
    assert response.status_code == 200
    document = response.json()
    assert document["event"]["format"] == "league"
    assert [entry["seq"] for entry in document["entries"]] == list(
        range(1, len(document["entries"]) + 1)
    )
    assert document["entries"][0]["prev_hash"] == "0" * 64
    assert document["seed"] is None and document["result"] is None
    assert Api(table.house).get(f"/api/events/{table.event.pk}/audit/", format="json").json() == (
        document
    )


def test_it_exports_the_audit_as_csv() -> None:
    table = make_table(players=2, start=True)
    response = Api(table.house).get(f"/api/events/{table.event.pk}/audit/", format="csv")
    assert response.status_code == 200
    assert response["Content-Type"].startswith("text/csv")
    assert "attachment" in response["Content-Disposition"]
    rows = list(csv.DictReader(io.StringIO(response.content.decode())))
    document = Api(table.house).get(f"/api/events/{table.event.pk}/audit/").json()
    assert [row["hash"] for row in rows] == [entry["hash"] for entry in document["entries"]]
    assert json.loads(rows[-1]["details"]) == document["entries"][-1]["details"]


def test_it_ends_the_json_with_the_seed_and_result_after_finalization() -> None:
    table = make_table(players=2, start=True)
    for player in table.players:
        table.play_out(player)
    api = Api(table.house)
    api.post(f"/api/events/{table.event.pk}/pool/confirm/")
    api.post(f"/api/events/{table.event.pk}/finalize/")
    document = api.get(f"/api/events/{table.event.pk}/audit/").json()
    assert len(document["seed"]) == 64
    assert document["result"]["pool"] == 20
    assert {p["player"] for p in document["result"]["players"]} == {
        table.registration(p).label for p in table.players
    }


@pytest.mark.parametrize("fmt", ["xml", ""])
def test_it_refuses_an_unknown_format(fmt: str) -> None:
    """An empty `?format=` is not one of the schema's two either: refused, not read as json."""
    table = make_table()
    response = Api(table.house).get(f"/api/events/{table.event.pk}/audit/", format=fmt)
    assert error(response) == (400, "invalid")
    assert response.json()["error"]["message"].startswith("format: ")


def test_it_refuses_an_unknown_parameter() -> None:
    table = make_table()
    response = Api(table.house).get(f"/api/events/{table.event.pk}/audit/", fromat="csv")
    assert error(response) == (400, "invalid")
    assert response.json()["error"]["message"].startswith("fromat: ")


def test_it_refuses_players() -> None:
    table = make_table(players=2, start=True)
    for fmt in ("json", "csv"):
        response = Api(table.players[0]).get(f"/api/events/{table.event.pk}/audit/", format=fmt)
        assert error(response) == (403, "not_allowed")
