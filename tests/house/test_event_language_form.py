"""The board's language on the event's settings page: chosen with the other settings before the
start, alone once the event started, not at all once it is finalized; an unknown code is refused
and changes nothing."""

from __future__ import annotations

import pytest

from tests.events.support import finalized_table
from tests.factories import make_table
from tests.house.support import house_client, url
from tests.refusals import said

SETTINGS = {
    "name": "Jueves",
    "venue": "El Bar",
    "date": "2026-12-04",
    "time_zone": "America/Chicago",
    "format": "league",
    "contribution": "10",
    "extra_decks": "1",
    "remainder_policy": "Unallocated dollars go to the next event.",
}

pytestmark = pytest.mark.django_db


def test_house_chooses_the_boards_language_with_the_settings(client):
    table = make_table()
    house_client(client, table)
    page = client.get(url("event_edit", table.event.pk)).content.decode()
    assert 'name="language"' in page and "Board and printed sheets" in page
    response = client.post(
        url("event_edit", table.event.pk),
        {**SETTINGS, "language": "es", "idempotency_key": "lang-1"},
    )
    assert response.status_code == 302
    assert (table.refresh().language, table.refresh().name) == ("es", "Jueves")


def test_an_unknown_language_is_refused_and_nothing_changes(client):
    table = make_table()
    house_client(client, table)
    response = client.post(
        url("event_edit", table.event.pk),
        {**SETTINGS, "language": "de", "idempotency_key": "lang-2"},
    )
    assert response.status_code == 200
    assert "Select a valid choice" in response.content.decode()
    event = table.refresh()
    assert (event.language, event.name) == ("", "Thursday League")


def test_once_started_only_the_language_can_change(client):
    table = make_table(players=2, start=True)
    house_client(client, table)
    page = client.get(url("event_edit", table.event.pk)).content.decode()
    assert "Save settings" in page
    response = client.post(
        url("event_edit", table.event.pk),
        {**SETTINGS, "language": "fr", "idempotency_key": "lang-3"},
    )
    assert response.status_code == 302
    assert "Settings saved." in said(response)
    event = table.refresh()
    assert (event.language, event.name, event.venue) == ("fr", "Thursday League", "")


def test_once_finalized_nothing_can_change(client):
    table = finalized_table(players=2)
    house_client(client, table)
    page = client.get(url("event_edit", table.event.pk)).content.decode()
    assert "Save settings" not in page
    client.post(
        url("event_edit", table.event.pk),
        {**SETTINGS, "language": "fr", "idempotency_key": "lang-4"},
    )
    assert table.refresh().language == ""
