"""Every pooled database connection taken: a request is answered 503 with Retry-After, in the
API's error shape or as a plain page, with one warning line and no traceback. A request whose
client left while it waited, and that the server gave up on, still finishes and gives its
connection back.

A small real pool (two connections, half a second's wait) on the test database, and real threads
holding both of its connections while the requests come.
"""

from __future__ import annotations

import contextlib
import logging
import threading
from collections.abc import Iterator
from typing import Any

import pytest
from asgiref.sync import async_to_sync
from asgiref.testing import ApplicationCommunicator
from django.db import connection
from django.test import Client

from events.models import Registration
from syndicate.asgi import application
from tests.factories import make_table, make_user
from tests.live.sockets import session_cookie
from tests.waiting import wait_until_async

pytestmark = pytest.mark.django_db(transaction=True)

CONNECTIONS = 2
POOL = {"min_size": 1, "max_size": CONNECTIONS, "timeout": 0.5}


@contextlib.contextmanager
def pooled(pool: dict[str, Any]) -> Iterator[None]:
    """The default database through a pool of two connections, for one test only."""
    shared = connection.settings_dict  # the one dict every thread's connection is made from
    saved = shared["OPTIONS"], shared["CONN_MAX_AGE"]
    connection.close()
    shared["OPTIONS"] = {**saved[0], "pool": pool}
    shared["CONN_MAX_AGE"] = 0
    try:
        yield
    finally:
        connection.close()
        connection.close_pool()  # type: ignore[attr-defined]
        shared["OPTIONS"], shared["CONN_MAX_AGE"] = saved


@pytest.fixture
def small_pool() -> Iterator[None]:
    with pooled(POOL):
        yield


class Holders:
    """Threads that each take a pooled connection and hold it until released."""

    def __init__(self, count: int) -> None:
        self.release = threading.Event()
        self.ready = threading.Barrier(count + 1, timeout=10)
        self.errors: list[BaseException] = []
        self.threads = [threading.Thread(target=self.hold) for _ in range(count)]

    def hold(self) -> None:
        try:
            with connection.cursor() as cursor:
                cursor.execute("SELECT 1")
            self.ready.wait()
            self.release.wait(timeout=30)
        except BaseException as exc:  # reported by the test
            self.errors.append(exc)
            self.ready.abort()
        finally:
            connection.close()  # back to the pool

    def __enter__(self) -> Holders:
        for thread in self.threads:
            thread.start()
        self.ready.wait()
        return self

    def __exit__(self, *exc: Any) -> None:
        self.release.set()
        for thread in self.threads:
            thread.join(timeout=10)
        assert not self.errors


def test_with_every_connection_taken_the_api_answers_503_with_retry_after(
    small_pool: None, caplog: pytest.LogCaptureFixture
) -> None:
    event_id = make_table(players=2, start=True).event.pk
    connection.close()
    client = Client(raise_request_exception=False)
    with caplog.at_level(logging.INFO), Holders(CONNECTIONS):
        response = client.get(f"/api/events/{event_id}/board/")
    assert response.status_code == 503
    assert response["Retry-After"] == "5"
    assert response.json() == {
        "error": {
            "code": "unavailable",
            "message": "The server is busy: try again in 5 seconds. Nothing was changed.",
        }
    }
    failures = [r for r in caplog.records if r.levelno >= logging.WARNING]
    assert [(r.name, r.levelname, r.exc_info) for r in failures] == [
        ("helpers.busy", "WARNING", None)
    ]
    assert f"GET /api/events/{event_id}/board/" in failures[0].getMessage()
    # Connections free again: the same request is answered.
    assert client.get(f"/api/events/{event_id}/board/").status_code == 200


def test_with_every_connection_taken_a_page_answers_a_plain_503(
    small_pool: None, caplog: pytest.LogCaptureFixture
) -> None:
    event_id = make_table(players=2, start=True).event.pk
    connection.close()
    client = Client(raise_request_exception=False)
    with caplog.at_level(logging.INFO), Holders(CONNECTIONS):
        response = client.get(f"/board/{event_id}/")
    assert response.status_code == 503
    assert response["Retry-After"] == "5"
    assert response["Content-Type"].startswith("text/html")
    page = response.content.decode()
    assert "The server is busy: try again in 5 seconds. Nothing was changed." in page
    assert "Traceback" not in page
    failures = [r for r in caplog.records if r.levelno >= logging.WARNING]
    assert [(r.name, r.levelname, r.exc_info) for r in failures] == [
        ("helpers.busy", "WARNING", None)
    ]
    assert client.get(f"/board/{event_id}/").status_code == 200


def test_a_write_whose_client_left_while_it_waited_reads_its_body_and_gives_back_its_connection(
    caplog: pytest.LogCaptureFixture,
) -> None:
    """The server closes a request's body when its client goes away; a JSON write that was still
    waiting for a database connection then read a closed file (ValueError, a traceback). And once
    the server gave up on the request, Django's handler stopped waiting for the request's thread
    and never sent `request_finished` (which gives a connection back) on it: the thread took a
    connection and kept it, and the pool was one short for good (syndicate.abandoned)."""
    table = make_table(players=0)
    board = f"/api/events/{make_table(players=2, start=True).event.pk}/board/"
    player = make_user()
    cookie = session_cookie(player).decode()
    token = "a" * 32  # a CSRF secret, sent as cookie and header
    path = f"/api/events/{table.event.pk}/register/"
    body = b"{}"
    scope = {
        "type": "http",
        "asgi": {"version": "3.0"},
        "http_version": "1.1",
        "method": "POST",
        "scheme": "http",
        "path": path,
        "raw_path": path.encode(),
        "query_string": b"",
        "root_path": "",
        "client": ("127.0.0.1", 50000),
        "server": ("testserver", 80),
        "headers": [
            (b"host", b"testserver"),
            (b"content-type", b"application/json"),
            (b"content-length", str(len(body)).encode()),
            (b"cookie", f"{cookie}; csrftoken={token}".encode()),
            (b"x-csrftoken", token.encode()),
            (b"idempotency-key", b"client-gone-1"),
        ],
    }
    holders = Holders(CONNECTIONS)

    async def scenario() -> None:
        request = ApplicationCommunicator(application, scope)
        await request.send_input({"type": "http.request", "body": body, "more_body": False})
        await wait_until_async(
            lambda: pool.get_stats().get("requests_waiting", 0) >= 1,
            "the request to wait for a connection",
        )
        await request.send_input({"type": "http.disconnect"})
        # The server gives up on the request (daphne cancels an application 10 s after its client
        # left; here after a second) and closes its body; its thread still waits.
        await request.wait(timeout=1)
        assert request.future.cancelled()
        holders.release.set()  # the request's thread goes on
        # The server's event loop runs on (daphne's does): the request's thread takes a
        # connection, writes, and gives the connection back as it finishes.
        await wait_until_async(
            lambda: pool.get_stats()["pool_available"] == CONNECTIONS,
            "the request's connection to come back",
        )

    with pooled({**POOL, "timeout": 10}), caplog.at_level(logging.INFO):
        pool = connection.pool  # type: ignore[attr-defined]
        with holders:
            async_to_sync(scenario)()
        assert pool.get_stats()["pool_available"] == CONNECTIONS, pool.get_stats()
        assert Registration.objects.filter(event=table.event, player=player).exists()
        connection.close()
        # One connection taken, a request is answered with the other.
        with Holders(1):
            response = Client(raise_request_exception=False).get(board)
        assert response.status_code == 200
    failures = [r for r in caplog.records if r.levelno >= logging.WARNING]
    assert failures == []
