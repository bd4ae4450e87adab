"""No technical page at the venue (docs/decisions.md, "Error pages at the venue"): with DEBUG off
by default, a mistyped address, a refusal and a failure answer the site's own page (JSON under
/api/), and a path with a NUL byte is a 404 on every route, never a server error."""

from __future__ import annotations

import os
import re
import subprocess
import sys
from collections.abc import Iterator
from pathlib import Path

import pytest
from django.test import Client
from django.urls import URLPattern, URLResolver, get_resolver
from django.urls.resolvers import RoutePattern

from tests.factories import make_user

ROOT = Path(__file__).resolve().parents[2]
TECHNICAL = ("Traceback", "URLconf", "Django tried these URL patterns", "DEBUG = True")


def debug_setting(**extra: str) -> bool:
    """settings.DEBUG as a fresh `make run` process reads it, with `extra` in its environment."""
    env = {
        key: value
        for key, value in os.environ.items()
        if key not in {"DEBUG", "DJANGO_DEBUG", "SYNDICATE_PRODUCTION"}
    }
    env |= {"DJANGO_SETTINGS_MODULE": "syndicate.settings", **extra}
    result = subprocess.run(
        [sys.executable, "-c", "from django.conf import settings; print(settings.DEBUG)"],
        cwd=ROOT,
        env=env,
        capture_output=True,
        text=True,
        timeout=60,
    )
    assert result.returncode == 0, result.stderr
    return result.stdout.strip().splitlines()[-1] == "True"


def test_the_debug_pages_are_off_unless_asked_for() -> None:
    assert debug_setting() is False
    assert debug_setting(DEBUG="0") is False
    assert debug_setting(DEBUG="1") is True
    assert debug_setting(DJANGO_DEBUG="1") is True
    # Production never takes the short name.
    assert debug_setting(DEBUG="1", SYNDICATE_PRODUCTION="1", **_production()) is False


def _production() -> dict[str, str]:
    return {
        "DJANGO_SECRET_KEY": "a-production-secret-for-this-test-only-0123456789abcdef",
        "DJANGO_ALLOWED_HOSTS": "poker.example.com",
        "DATABASE_URL": os.environ.get("DATABASE_URL", "postgres://postgres@127.0.0.1:5432/x"),
        "REDIS_URL": os.environ.get("REDIS_URL", "redis://127.0.0.1:6379/0"),
    }


def assert_own_page(response: object, status: int, title: str) -> None:
    assert response.status_code == status  # type: ignore[attr-defined]
    assert response["Content-Type"].startswith("text/html")  # type: ignore[index]
    text = response.content.decode()  # type: ignore[attr-defined]
    assert f"<h1>{title}</h1>" in text
    assert "css/app.css" in text
    for marker in TECHNICAL:
        assert marker not in text


@pytest.mark.django_db
def test_a_mistyped_address_shows_the_sites_own_page_not_the_address_list() -> None:
    response = Client().get("/evnts/1/")
    assert_own_page(response, 404, "Page not found")
    assert "admin/" not in response.content.decode()


@pytest.mark.django_db
def test_an_unknown_api_path_still_answers_in_the_api_error_shape() -> None:
    response = Client().get("/api/no-such-endpoint/")
    assert response.status_code == 404
    assert response.json()["error"]["code"] == "not_found"


@pytest.mark.django_db
def test_an_unknown_host_is_refused_with_the_sites_own_page() -> None:
    response = Client(headers={"host": "evil.example.com"}).get("/")
    assert_own_page(response, 400, "Bad request")


@pytest.mark.django_db
@pytest.mark.urls("tests.security.error_routes")
def test_a_failure_shows_the_sites_own_page_not_a_traceback() -> None:
    response = Client(raise_request_exception=False).get("/failing-page/")
    assert_own_page(response, 500, "Something went wrong")
    assert "secret detail" not in response.content.decode()


@pytest.mark.django_db
@pytest.mark.urls("tests.security.error_routes")
def test_a_failure_under_the_api_answers_the_api_error_shape() -> None:
    response = Client(raise_request_exception=False).get("/api/failing-endpoint/")
    assert response.status_code == 500
    assert response.json() == {
        "error": {
            "code": "server_error",
            "message": "The server could not complete this request. Try again in a moment.",
        }
    }


@pytest.mark.django_db
def test_a_refused_page_shows_the_sites_own_page() -> None:
    client = Client()
    client.force_login(make_user())
    # Signed in but not site staff: the admin's sign-in refuses (syndicate/security.py).
    assert_own_page(client.get("/admin/login/"), 403, "Not allowed")


@pytest.mark.django_db
def test_a_failed_form_check_shows_the_sites_own_page() -> None:
    response = Client(enforce_csrf_checks=True).post("/accounts/login/", {"login": "a"})
    assert_own_page(response, 403, "Form expired")


def _routes(
    patterns: list[URLPattern | URLResolver] | None = None, prefix: str = "/"
) -> Iterator[str]:
    """Every route's path with a NUL byte in each argument (and after a route without any)."""
    for entry in get_resolver().url_patterns if patterns is None else patterns:
        pattern = entry.pattern
        if isinstance(pattern, RoutePattern):
            literal = re.sub(r"<int:[^>]+>", "1", str(pattern))
            literal = re.sub(r"<[^>]+>", "%00", literal)
        else:
            # A regular expression's literal start (allauth's routes, the API's catch-all).
            literal = re.split(r"[\\(\[.*+?$]", str(pattern).lstrip("^"), maxsplit=1)[0]
        if isinstance(entry, URLResolver):
            yield from _routes(entry.url_patterns, prefix + literal)
        else:
            path = prefix + literal
            yield path if "%00" in path else path + "%00"


@pytest.mark.django_db
def test_a_nul_byte_in_any_route_is_not_found_not_a_server_error() -> None:
    client = Client(raise_request_exception=False)
    client.force_login(make_user(staff=True))
    paths = sorted(set(_routes()))
    assert "/players/%00/" in paths
    assert "/api/players/%00/history/" in paths
    assert "/house/invitations/%00" in paths
    for path in paths:
        for method in (client.get, client.post):
            response = method(path)
            assert response.status_code == 404, (path, response.status_code)
            if path.startswith("/api/"):
                assert response.json()["error"]["code"] == "not_found"
            else:
                assert "<h1>Page not found</h1>" in response.content.decode()
