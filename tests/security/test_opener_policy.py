"""Cross-Origin-Opener-Policy only where browsers honour it (docs/decisions.md, "The opener
policy over a LAN address"): HTTPS or a loopback host. Over plain http on a LAN address the
browser ignores it and logs a console error on every page, so it is not sent."""

from __future__ import annotations

from typing import Any

import pytest
from django.test import Client

pytestmark = pytest.mark.django_db

POLICY = "Cross-Origin-Opener-Policy"


@pytest.fixture(autouse=True)
def lan_hosts(settings: Any) -> None:
    settings.ALLOWED_HOSTS = [*settings.ALLOWED_HOSTS, "[::1]", "192.168.1.20", "poker.example.com"]


@pytest.mark.parametrize("host", ["127.0.0.1:8000", "localhost:8000", "[::1]:8000"])
def test_the_opener_policy_is_sent_to_a_loopback_address(host: str) -> None:
    response = Client(headers={"host": host}).get("/")
    assert response[POLICY] == "same-origin"


@pytest.mark.parametrize("path", ["/", "/no-such-page/", "/static/css/app.css"])
def test_the_opener_policy_is_not_sent_over_plain_http_to_a_lan_address(path: str) -> None:
    response = Client(headers={"host": "192.168.1.20:8000"}).get(path)
    assert response.status_code in {200, 404}
    assert POLICY not in response


def test_the_opener_policy_is_sent_over_https_whatever_the_host() -> None:
    for host in ("192.168.1.20:8000", "poker.example.com"):
        response = Client(headers={"host": host}).get("/", secure=True)
        assert response[POLICY] == "same-origin"
