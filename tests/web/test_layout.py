"""What every page shares: the icon a browser asks for, and one way of writing dates."""

from __future__ import annotations

import pytest
from django.contrib.staticfiles import finders
from django.test import Client

from tests.factories import make_table, make_user

pytestmark = pytest.mark.django_db


def test_favicon_ico_leads_to_an_icon_file(client: Client) -> None:
    response = client.get("/favicon.ico")
    assert response.status_code == 302
    path = response["Location"].removeprefix("/static/")
    found = finders.find(path)
    assert found, response["Location"]
    with open(found, "rb") as icon:
        assert icon.read(4) == b"\x00\x00\x01\x00"  # the ICO header


def test_pages_name_the_icon(client: Client) -> None:
    page = client.get("/").content.decode()
    assert "icons/favicon.ico" in page
    assert "icons/icon.svg" in page


def test_every_page_writes_the_event_date_the_same_way(client: Client) -> None:
    table = make_table(players=1)
    written = "Thu 3 Dec 2026"
    client.force_login(make_user())
    assert written in client.get("/").content.decode()
    assert written in client.get(f"/events/{table.event.pk}/").content.decode()
    client.force_login(table.house)
    assert written in client.get("/house/").content.decode()
    assert written in client.get(f"/house/events/{table.event.pk}/").content.decode()
