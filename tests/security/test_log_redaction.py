"""No secret in any log: a password-reset key, a display link's or an invitation's token (every
route argument named a secret, on every HTTP and websocket route) or a session id never reaches a
log line: daphne's access log, Django's request log, or anything else our handler writes. A real
daphne serves the requests."""

from __future__ import annotations

import http.client
import io
import logging
import re
from collections.abc import Sequence
from pathlib import Path
from typing import Any
from urllib.parse import urlsplit

import pytest
from django.core import mail
from django.test import Client
from django.urls import URLPattern, URLResolver, get_resolver, reverse
from django.urls.resolvers import RoutePattern

from events import services
from helpers.redaction import SECRET_URL_ARGUMENTS, RedactSecrets, redact
from staff.scopes import Scope
from syndicate.routing import websocket_urlpatterns
from tests.factories import make_table, make_user
from tests.faults.processes import Processes, app_env

pytestmark = pytest.mark.django_db(transaction=True)


def get(port: int, path: str, cookie: str = "", method: str = "GET") -> http.client.HTTPResponse:
    connection = http.client.HTTPConnection("127.0.0.1", port, timeout=20)
    connection.request(method, path, headers={"Cookie": cookie} if cookie else {})
    response = connection.getresponse()
    response.read()
    connection.close()
    return response


def reset_link(email: str) -> str:
    Client().post("/accounts/password/reset/", {"email": email})
    (message,) = mail.outbox
    link = next(word for word in message.body.split() if "/password/reset/key/" in word)
    return urlsplit(link).path


def test_daphne_and_django_log_no_reset_key_and_no_session_id(
    tmp_path: Path, settings: object
) -> None:
    player = make_user()
    path = reset_link(player.email)
    secret = path.rstrip("/").rsplit("/", 1)[-1]  # <uidb36>-<key>
    key = secret.split("-", 1)[1]
    assert len(key) > 10

    processes = Processes(folder=tmp_path)
    try:
        env = app_env(settings.REDIS_URL, LOG_LEVEL="INFO")  # type: ignore[attr-defined]
        daphne = processes.daphne("daphne", env)
        daphne.wait_ready()
        first = get(daphne.port, path)  # allauth keeps the key and redirects
        assert first.status == 302
        session = re.search(r"sessionid=([^;]+)", first.getheader("Set-Cookie") or "")
        assert session is not None
        get(daphne.port, first.getheader("Location") or "/", f"sessionid={session[1]}")
        refused = get(daphne.port, path, method="POST")  # no CSRF token: Django logs the path
        assert refused.status == 403
        get(daphne.port, f"/accounts/login/?next={path}")
    finally:
        processes.stop_all()

    log = daphne.log.read_text()
    assert "/password/reset/key/<redacted>" in log  # the lines were written, redacted
    assert "Forbidden (CSRF" in log
    assert key not in log
    assert session[1] not in log


def test_every_line_our_handler_writes_is_redacted() -> None:
    stream = io.StringIO()
    handler = logging.StreamHandler(stream)
    handler.addFilter(RedactSecrets())
    logger = logging.getLogger("tests.redaction")
    logger.addHandler(handler)
    # A level of its own: an earlier test (a Celery worker) may have raised the root logger's.
    logger.setLevel(logging.INFO)
    try:
        logger.warning("Not Found: %s", "/accounts/password/reset/key/4-abc123secret/")
        logger.warning("cookie sessionid=s3cr3tsession; csrftoken=t0ken")
        try:
            raise ValueError("/accounts/password/reset/key/4-deadbeefkey/")
        except ValueError:
            logger.exception("failed")
    finally:
        logger.removeHandler(handler)
        logger.setLevel(logging.NOTSET)
    written = stream.getvalue()
    for secret in ("abc123secret", "s3cr3tsession", "t0ken", "deadbeefkey"):
        assert secret not in written
    assert written.count("<redacted>") >= 4


def test_any_logger_any_handler_gets_the_record_redacted(caplog: pytest.LogCaptureFixture) -> None:
    caplog.set_level(logging.INFO)
    logging.getLogger("django.request").warning(
        "Not Found: %s", "/accounts/password/reset/key/4-abc123secret/"
    )
    logging.getLogger("anything.else").info("sessionid=s3cr3tsession")
    assert "abc123secret" not in caplog.text and "s3cr3tsession" not in caplog.text
    assert caplog.text.count("<redacted>") == 2


@pytest.mark.parametrize(
    ("line", "kept"),
    [
        ("GET /accounts/password/reset/key/4-set-password/", "/accounts/password/reset/key/"),
        ("GET /accounts/confirm-email/MQ:1abc:xyz/", "/accounts/confirm-email/"),
        ("GET /events/4/?token=abc", "/events/4/?token="),
    ],
)
def test_redact_keeps_the_shape_of_the_line(line: str, kept: str) -> None:
    cleaned = redact(line)
    assert kept in cleaned and "<redacted>" in cleaned


def _secret_routes(
    patterns: Sequence[URLPattern | URLResolver], prefix: str = "/", namespace: str = ""
) -> list[tuple[str, list[str]]]:
    """Each route with a secret argument: a path to it, and the secrets in that path."""
    found = []
    for entry in patterns:
        if isinstance(entry, URLResolver):
            inner = f"{namespace}{entry.namespace}:" if entry.namespace else namespace
            literal = (
                str(entry.pattern).lstrip("^") if isinstance(entry.pattern, RoutePattern) else ""
            )
            found += _secret_routes(entry.url_patterns, prefix + literal, inner)
            continue
        if isinstance(entry.pattern, RoutePattern):
            names = re.findall(r"<(?:\w+:)?(\w+)>", str(entry.pattern))
            values = {name: f"Sec{name}{index}Zz" for index, name in enumerate(names)}
            route = str(entry.pattern)
            for name, value in values.items():
                route = re.sub(rf"<int:{name}>", "17", route)
                route = re.sub(rf"<(?:\w+:)?{name}>", value, route)
            path = prefix + route
        else:
            names = list(entry.pattern.regex.groupindex)
            if SECRET_URL_ARGUMENTS.isdisjoint(names):
                continue
            values = {name: f"Sec{name}{index}Zz" for index, name in enumerate(names)}
            path = reverse(f"{namespace}{entry.name}", kwargs=values)
        secrets = [value for name, value in values.items() if name in SECRET_URL_ARGUMENTS]
        if secrets:
            found.append((path, secrets))
    return found


def test_every_secret_argument_of_every_route_is_kept_out_of_a_log_line() -> None:
    routes = _secret_routes(get_resolver().url_patterns) + _secret_routes(websocket_urlpatterns)
    paths = {path for path, _ in routes}
    # The known ones are among them: a new route with a secret argument joins by itself.
    assert {
        "/display/Sectoken0Zz/",
        "/house/invitations/Sectoken0Zz",
        "/house/series/invitations/Sectoken0Zz/",
        "/board/17/venue/Sectoken1Zz/",
        "/ws/events/17/board/Secdisplay1Zz/",
    } <= paths
    assert any(path.startswith("/accounts/password/reset/key/") for path in paths)
    for path, secrets in routes:
        for line in (
            f'127.0.0.1:5000 - - [05/Dec/2026:02:00:00] "GET {path} HTTP/1.1" 200 5',
            f"WSCONNECT {path} 127.0.0.1:5000",
            f"Not Found: {path.rstrip('/')}",  # mistyped, without its slash
            f"Not Found: {path}extra/more",
        ):
            cleaned = redact(line)
            assert "<redacted>" in cleaned, line
            for secret in secrets:
                assert secret not in cleaned, line


def test_daphne_logs_no_display_token_and_no_invitation_token(
    tmp_path: Path, settings: object
) -> None:
    table = make_table()
    display = services.display_link_create(scope=Scope.of(table.event), by=table.house, label="Bar")
    invited = services.staff_invite(
        scope=Scope.of(table.event), by=table.house, email="a@example.com"
    )
    token = display.path.rstrip("/").rsplit("/", 1)[-1]
    processes = Processes(folder=tmp_path)
    try:
        env = app_env(settings.REDIS_URL, LOG_LEVEL="INFO")  # type: ignore[attr-defined]
        daphne = processes.daphne("daphne", env)
        daphne.wait_ready()
        assert get(daphne.port, display.path).status == 200
        assert get(daphne.port, display.path.rstrip("/")).status in {301, 404}
        invitation = reverse("house:invitation", kwargs={"token": invited.token})
        assert get(daphne.port, invitation).status == 302  # to sign in
        assert get(daphne.port, invitation, method="POST").status == 403  # Django logs it
    finally:
        processes.stop_all()

    log = daphne.log.read_text()
    assert "/display/<redacted>/" in log and "/house/invitations/<redacted>" in log
    assert token not in log and invited.token not in log


def test_the_console_mailer_prints_no_reset_key_and_an_unbroken_body(
    settings: Any, capsys: pytest.CaptureFixture[str]
) -> None:
    # A laptop with no mail server prints each email (make run's output, the worker's log).
    settings.MAILERS = {"default": {"BACKEND": "helpers.console_mail.ConsoleBackend"}}
    player = make_user("Zoë Ünicode")  # a name that would make the body quoted-printable
    Client().post("/accounts/password/reset/", {"email": player.email})
    out = capsys.readouterr().out
    assert f"To: {player.email}" in out
    link = next(word for word in out.split() if "/password/reset/key/" in word)
    assert link.endswith("/password/reset/key/<redacted>/")
    assert "=\n" not in out and "=3D" not in out
