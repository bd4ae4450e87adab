"""What every page shares: the icon a browser asks for, and one way of writing dates."""

from __future__ import annotations

import pytest
from django.contrib.staticfiles import finders
from django.test import Client

from cards.models import Shoe, ShoeKind
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


def test_counts_of_one_read_in_the_singular(client: Client) -> None:
    table = make_table(players=1, extra_decks=0)
    client.force_login(table.house)
    page = client.get(f"/house/events/{table.event.pk}/").content.decode()
    assert "with 1 checked-in player?" in page
    assert "1 checked-in players" not in page
    board = client.get(f"/board/{table.event.pk}/").content.decode()
    assert "· 1 player\n" in board
    assert "1 players" not in board
    table.join()
    response = client.post(
        f"/house/events/{table.event.pk}/start", {"idempotency_key": "start-one"}, follow=True
    )
    said = [str(message) for message in response.context["messages"]]
    started = [text for text in said if text.startswith("The event has started")]
    assert started and "1 decks" not in started[0]
    decks = Shoe.objects.get(event=table.event, kind=ShoeKind.STOCK).decks
    assert started[0].startswith(f"The event has started: {decks} deck{'s' if decks > 1 else ''} ")
