"""`events.venue.phone_url`: the address phones at the venue open, never a loopback one."""

from __future__ import annotations

from typing import Any

import pytest
from django.test import Client, RequestFactory
from django.urls import reverse

from events import services
from events.venue import phone_url, reachable
from tests.factories import make_table


@pytest.mark.parametrize(
    ("origin", "phones_reach"),
    [
        ("http://127.0.0.1:8000", False),
        ("http://127.3.4.5", False),
        ("http://localhost:8000", False),
        ("http://board.localhost", False),
        ("http://[::1]:8000", False),
        ("http://0.0.0.0:8000", False),
        ("ftp://192.168.1.20", False),
        ("", False),
        ("http://192.168.1.20:8000", True),
        ("http://[fe80::1]:8000", True),
        ("https://poker.example.com", True),
        ("http://laptop.local:8000", True),
    ],
)
def test_it_knows_which_addresses_phones_reach(origin: str, phones_reach: bool) -> None:
    assert reachable(origin) is phones_reach


def test_the_address_house_configures_comes_first(settings: Any) -> None:
    settings.SITE_URL = "https://poker.example.com/"
    request = RequestFactory().get("/", HTTP_HOST="192.168.1.20:8000")
    settings.ALLOWED_HOSTS = ["192.168.1.20"]
    assert phone_url("/events/3/", request) == "https://poker.example.com/events/3/"
    assert phone_url("/events/3/") == "https://poker.example.com/events/3/"


def test_without_it_the_address_the_page_was_opened_at(settings: Any) -> None:
    settings.SITE_URL = "http://127.0.0.1:8000"  # the default of `make run` without SITE_URL
    settings.ALLOWED_HOSTS = ["192.168.1.20", "127.0.0.1"]
    lan = RequestFactory().get("/", HTTP_HOST="192.168.1.20:8000")
    assert phone_url("/events/3/", lan) == "http://192.168.1.20:8000/events/3/"
    assert phone_url("/events/3/", origin="http://192.168.1.20:8000") == (
        "http://192.168.1.20:8000/events/3/"
    )
    here = RequestFactory().get("/", HTTP_HOST="127.0.0.1:8000")
    assert phone_url("/events/3/", here) is None
    assert phone_url("/events/3/") is None
    assert phone_url("/events/3/", origin="http://localhost:8000") is None


@pytest.mark.django_db
def test_a_kiosk_opened_at_a_loopback_address_warns_instead_of_a_qr(
    client: Client, settings: Any
) -> None:
    settings.SITE_URL = "http://127.0.0.1:8000"
    table = make_table("league", players=2)
    services.self_check_in_switch(event_id=table.event.pk, by=table.house, enabled=True)
    code = table.refresh().check_in_code
    client.force_login(table.house)
    page = client.get(
        reverse("web:board", args=[table.event.pk]), {"kiosk": "1"}, HTTP_HOST="127.0.0.1:8000"
    ).content.decode()
    assert "Phones cannot reach 127.0.0.1: start with HOST=0.0.0.0 or set SITE_URL" in page
    assert "<svg" not in page and "127.0.0.1:8000/events" not in page
    assert f"data-check-in-code>{code}</strong>" in page  # House can still read it out
    settings.SITE_URL = "http://192.168.1.20:8000"
    page = client.get(
        reverse("web:board", args=[table.event.pk]), {"kiosk": "1"}, HTTP_HOST="127.0.0.1:8000"
    ).content.decode()
    assert "Phones cannot reach" not in page
    assert f"192.168.1.20:8000/events/{table.event.pk}/check-in</strong>" in page
