"""Every query parameter of every page goes through one bounded parser (events/query.py): a
hostile value falls back on a page and is refused 400 by the API, never a 500."""

from __future__ import annotations

from collections.abc import Iterator
from typing import Any

import pytest
from django.http import HttpRequest
from django.test import Client, RequestFactory
from django.urls import URLPattern, URLResolver, get_resolver, reverse

from events import services
from events.errors import Invalid
from events.query import query_choice, query_flag, query_int, query_text
from events.venue import display_path
from tests.factories import make_table

HOSTILE = ["²", "٣", "9" * 5000, "-1", "1e9", "", "NaN", "3\x00", "x" * 3000]
# What the pages and the API read, and names they do not.
NAMES = ["seconds", "kiosk", "code", "format", "next", "page", "q"]


def get(query: dict[str, str]) -> HttpRequest:
    return RequestFactory().get("/", query)


@pytest.mark.parametrize("value", HOSTILE)
def test_a_page_falls_back_to_the_default(value: str) -> None:
    request = get({"n": value})
    assert query_int(request, "n", 8, 2, 60) == (60 if value == "9" * 5000 else 8)
    assert query_flag(request, "n") is False
    assert query_choice(request, "n", ("json", "csv"), "json") == "json"
    text = query_text(request, "n", 12, "none")
    assert text in (value, "none") and len(text) <= 12 and "\x00" not in text


@pytest.mark.parametrize("value", HOSTILE)
def test_the_api_refuses_a_bad_value(value: str) -> None:
    request = get({"n": value})
    with pytest.raises(Invalid):
        query_int(request, "n", 8, 2, 60, strict=True)
    with pytest.raises(Invalid):
        query_choice(request, "n", ("json", "csv"), "json", strict=True)


def test_good_values_are_read_and_bounded() -> None:
    assert query_int(get({"n": "007"}), "n", 8, 2, 60) == 7
    assert query_int(get({"n": "0"}), "n", 8, 2, 60) == 2
    assert query_int(get({"n": "61"}), "n", 8, 2, 60) == 60
    assert query_int(get({}), "n", 8, 2, 60) == 8
    assert query_flag(get({"n": "1"}), "n") is True
    assert query_choice(get({"n": "csv"}), "n", ("json", "csv"), "json") == "csv"
    assert query_text(get({"n": "ab-cd"}), "n", 12) == "ab-cd"


def routes(resolver: URLResolver, prefix: str = "") -> Iterator[tuple[str, URLPattern]]:
    for entry in resolver.url_patterns:
        if isinstance(entry, URLResolver):
            if entry.namespace in ("web", "house", "api"):
                yield from routes(entry, entry.namespace)
        elif prefix and entry.name:
            yield f"{prefix}:{entry.name}", entry


def pages(kwargs: dict[str, Any]) -> list[str]:
    """The address of every named route of the pages and the API that `kwargs` can fill."""
    found = []
    for name, pattern in routes(get_resolver()):
        wanted = pattern.pattern.converters.keys()
        if set(wanted) <= set(kwargs):
            found.append(reverse(name, kwargs={k: kwargs[k] for k in wanted}))
    return found


@pytest.mark.django_db
@pytest.mark.parametrize("value", HOSTILE)
def test_no_page_answers_500_to_a_hostile_query(value: str, settings: Any) -> None:
    settings.DEBUG = False
    table = make_table("league", players=2)
    services.self_check_in_switch(event_id=table.event.pk, by=table.house, enabled=True)
    display = display_path(table.refresh())
    assert display is not None
    kwargs = {
        "event_id": table.event.pk,
        "registration_id": table.rid(table.players[0]),
        "review_id": 1,
        "user_id": table.house.pk,
        "token": display.rstrip("/").rsplit("/", 1)[1],
        "name": "swagger-ui.css",
    }
    addresses = pages(kwargs)
    assert len(addresses) > 40
    # House sees every page; a player (not House) sees the public board as anyone does.
    house, player = Client(), Client()
    house.force_login(table.house)
    player.force_login(table.players[0])
    query = {name: value for name in NAMES}
    for address in [*addresses, "/admin/login/"]:
        for client in (house, player):
            response = client.get(address, query)
            assert response.status_code < 500, (address, response.status_code)
    board = reverse("web:board", args=[table.event.pk])
    assert Client().get(board, query).status_code == 200  # a page falls back
    audit = reverse("api:audit", args=[table.event.pk])
    assert house.get(audit, {"format": value}).status_code == 400  # the API refuses
