"""Every page carries a nonce Content-Security-Policy, and its HTML runs no script the policy
would not: scripts are same-origin files or carry the header's nonce; no inline handlers, no
`javascript:` URLs, no inline `style` attributes (style-src has no 'unsafe-inline')."""

from __future__ import annotations

import re
from dataclasses import dataclass, field
from html.parser import HTMLParser
from urllib.parse import urlsplit

import pytest
from django.test import Client

from accounts.models import User
from tests.factories import make_table, make_user

pytestmark = pytest.mark.django_db

URL_ATTRIBUTES = {"href", "src", "action", "formaction", "xlink:href", "data", "poster"}


@dataclass
class Page(HTMLParser):
    """The scripts, styles and risky attributes of one HTML page."""

    problems: list[str] = field(default_factory=list)
    scripts: list[dict[str, str | None]] = field(default_factory=list)
    styles: list[dict[str, str | None]] = field(default_factory=list)

    def __post_init__(self) -> None:
        super().__init__(convert_charrefs=True)

    def handle_starttag(self, tag: str, attrs: list[tuple[str, str | None]]) -> None:
        found = dict(attrs)
        if tag == "script":
            self.scripts.append(found)
        if tag == "style":
            self.styles.append(found)
        for name, value in attrs:
            if name.startswith("on") or name.startswith("hx-on"):
                self.problems.append(f"<{tag} {name}=...>: an inline event handler")
            if name == "style":
                self.problems.append(f"<{tag} style=...>: an inline style the policy blocks")
            if name in URL_ATTRIBUTES and value and re.match(r"\s*javascript:", value, re.I):
                self.problems.append(f"<{tag} {name}={value!r}>: a javascript: URL")

    handle_startendtag = handle_starttag


def policy_of(response: object) -> dict[str, list[str]]:
    header = response["Content-Security-Policy"]  # type: ignore[index]
    directives = [part.split() for part in header.split(";") if part.strip()]
    return {words[0]: words[1:] for words in directives}


def same_origin(url: str) -> bool:
    parts = urlsplit(url)
    return (not parts.scheme and not parts.netloc and url.startswith("/")) or (
        parts.scheme in {"http", "https"} and parts.netloc == "testserver"
    )


def check_page(client: Client, path: str) -> None:
    response = client.get(path)
    assert response.status_code == 200, (path, response.status_code)
    assert response["Content-Type"].startswith("text/html"), path
    policy = policy_of(response)
    nonces = [v for v in policy["script-src"] if v.startswith("'nonce-")]
    assert len(nonces) == 1, (path, policy["script-src"])
    nonce = nonces[0].removeprefix("'nonce-").removesuffix("'")
    assert "'unsafe-inline'" not in policy["script-src"], path
    assert "'unsafe-eval'" not in policy["script-src"], path
    assert policy["frame-ancestors"] == ["'none'"], path

    page = Page()
    page.feed(response.content.decode())
    assert page.scripts, f"{path}: no script at all? (the page did not render base.html)"
    for script in page.scripts:
        src, given = script.get("src"), script.get("nonce")
        if src is not None:
            assert same_origin(src), f"{path}: script from another origin: {src}"
        else:
            assert given, f"{path}: an inline script without a nonce"
        if given is not None:
            assert given == nonce, f"{path}: a script nonce that is not the header's"
    for style in page.styles:
        assert style.get("nonce") == nonce, f"{path}: an inline <style> without the nonce"
    assert page.problems == [], (path, page.problems)


@pytest.fixture
def scene() -> tuple[int, User, User, User]:
    table = make_table("league", players=2, start=True)
    outsider = make_user("Not registered")
    return table.event.pk, table.house, table.players[0], outsider


def signed_in(user: User) -> Client:
    client = Client()
    client.force_login(user)
    return client


@pytest.mark.parametrize(
    "path",
    ["/", "/accounts/login/", "/accounts/signup/", "/accounts/password/reset/", "/api/docs/"],
)
def test_a_visitors_page_runs_only_allowed_script(path: str) -> None:
    check_page(Client(), path)


def test_the_public_board(scene: tuple[int, User, User, User]) -> None:
    event_id, *_ = scene
    check_page(Client(), f"/board/{event_id}/")


def test_the_players_pages(scene: tuple[int, User, User, User]) -> None:
    event_id, _, player, outsider = scene
    client = signed_in(player)
    for path in ("/", f"/events/{event_id}/", "/settings/"):
        check_page(client, path)
    check_page(signed_in(outsider), f"/events/{event_id}/")  # the registration page


def test_the_house_pages(scene: tuple[int, User, User, User]) -> None:
    event_id, house, *_ = scene
    client = signed_in(house)
    for path in (
        "/house/",
        "/house/events/new",
        f"/house/events/{event_id}/",
        f"/house/events/{event_id}/edit",
        "/api/docs/",
    ):
        check_page(client, path)


def test_the_check_itself_catches_what_the_policy_would_block() -> None:
    page = Page()
    page.feed(
        '<a href=" JavaScript:go()">x</a><button onclick="go()">y</button>'
        '<p style="color: red" hx-on:click="go()">z</p>'
    )
    assert len(page.problems) == 4, page.problems
