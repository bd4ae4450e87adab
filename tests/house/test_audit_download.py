"""Audit downloads from the dashboard: CSV and JSON, House only."""

from __future__ import annotations

import csv
import io
import json

import pytest

from tests.factories import make_table
from tests.house.support import house_client, url


@pytest.mark.django_db
def test_it_downloads_the_audit_as_csv(client):
    table = make_table("league", players=2, start=True)
    response = house_client(client, table).get(url("audit_csv", table.event.pk))
    assert response.status_code == 200
    assert response["Content-Type"] == "text/csv; charset=utf-8"
    assert "attachment" in response["Content-Disposition"]
    rows = list(csv.reader(io.StringIO(response.content.decode())))
    assert rows[0] == [
        "seq",
        "at",
        "actor",
        "actor_kind",
        "action",
        "player",
        "details",
        "reason",
        "prev_hash",
        "hash",
        "actor_role",
        "head_signature",
        "head_key_id",
    ]
    assert [row[4] for row in rows[1:3]] == ["event_created", "house_member_added"]
    assert [row[10] for row in rows[1:3]] == ["owner", "owner"]  # the creator owns the event
    assert "event_started" in {row[4] for row in rows[1:]}


@pytest.mark.django_db
def test_it_downloads_the_audit_as_json(client):
    table = make_table("league", players=2, start=True)
    response = house_client(client, table).get(url("audit_json", table.event.pk))
    assert response.status_code == 200
    assert response["Content-Type"] == "application/json"
    assert f'filename="event-{table.event.pk}-audit.json"' in response["Content-Disposition"]
    document = json.loads(response.content)
    assert document["event"]["name"] == "Thursday League"
    assert document["event"]["commitment"] == table.event.commitment
    assert document["seed"] is None and document["result"] is None
    assert document["entries"][0]["seq"] == 1


@pytest.mark.django_db
@pytest.mark.parametrize("name", ["audit_csv", "audit_json"])
def test_it_refuses_the_audit_to_non_house_users(client, name):
    table = make_table("league", players=2, start=True)
    client.force_login(table.players[0])
    assert client.get(url(name, table.event.pk)).status_code == 404
    client.logout()
    assert client.get(url(name, table.event.pk)).status_code == 302
