"""A password-reset key or a session id never reaches a log line: daphne's access log, Django's
request log, or anything else our handler writes. A real daphne serves the requests."""

from __future__ import annotations

import http.client
import io
import logging
import re
from pathlib import Path
from urllib.parse import urlsplit

import pytest
from django.core import mail
from django.test import Client

from syndicate.redaction import RedactSecrets, redact
from tests.factories import make_user
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
