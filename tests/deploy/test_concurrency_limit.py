"""`syndicate.limits.ConcurrencyLimit`: a bound on the HTTP requests a process runs at once, on
those of one session, and the refused API sessions answered before Django."""

from __future__ import annotations

import asyncio
import math
from typing import Any

import pytest
from django.conf import settings

from syndicate.asgi import application
from syndicate.limits import ConcurrencyLimit, refusals
from tests.waiting import wait_until_async


class Recorder:
    """An ASGI app that takes a while and records how many of its calls overlap, by session."""

    def __init__(self) -> None:
        self.running = 0
        self.most = 0
        self.calls = 0
        self.running_by: dict[str, int] = {}
        self.most_by: dict[str, int] = {}
        self.finished: list[str] = []

    async def __call__(self, scope: Any, receive: Any, send: Any) -> None:
        who = dict(scope.get("headers", ())).get(b"cookie", b"").decode()
        self.running += 1
        self.calls += 1
        self.most = max(self.most, self.running)
        self.running_by[who] = self.running_by.get(who, 0) + 1
        self.most_by[who] = max(self.most_by.get(who, 0), self.running_by[who])
        await asyncio.sleep(0.02)
        self.running_by[who] -= 1
        self.running -= 1
        self.finished.append(who)


async def nothing() -> dict[str, Any]:
    return {}


async def ignore(message: Any) -> None:
    return None


def run(limit: int, scopes: list[dict[str, Any]], per_client: int = 0) -> Recorder:
    recorder = Recorder()
    app = ConcurrencyLimit(recorder, limit, per_client)

    async def all_at_once() -> None:
        await asyncio.gather(*(app(scope, nothing, ignore) for scope in scopes))

    asyncio.run(all_at_once())
    return recorder


def http(
    path: str = "/events/1/report", session: str | None = None, method: str = "GET"
) -> dict[str, Any]:
    headers = [(b"cookie", f"sessionid={session}".encode())] if session else []
    return {"type": "http", "path": path, "method": method, "headers": headers}


def test_it_runs_at_most_the_limit_and_every_request_in_the_end() -> None:
    recorder = run(3, [http() for _ in range(10)])

    assert recorder.most == 3
    assert recorder.calls == 10


def test_health_checks_and_websockets_do_not_wait() -> None:
    scopes = [http("/healthz") for _ in range(4)] + [
        {"type": "websocket", "path": "/ws/events/1/board/"} for _ in range(4)
    ]

    assert run(1, scopes).most == 8


def test_zero_means_no_limit() -> None:
    assert run(0, [http() for _ in range(6)]).most == 6


def test_the_server_application_limits_http() -> None:
    http_app = application.application_mapping["http"]

    assert isinstance(http_app, ConcurrencyLimit)
    assert http_app.limit == settings.HTTP_CONCURRENCY > 0


def test_one_session_holds_at_most_its_share_of_the_places() -> None:
    flood = [http(session="flood") for _ in range(12)]
    others = [http(session=f"player{n}") for n in range(3)] + [http() for _ in range(2)]
    recorder = run(4, flood + others, per_client=2)

    assert recorder.most_by["sessionid=flood"] == 2
    assert recorder.most == 4
    assert recorder.calls == 17
    # Queued after the whole flood, the other players ran while most of it still waited.
    last_other = max(
        recorder.finished.index(who) for who in recorder.finished if "flood" not in who
    )
    assert last_other < 8, recorder.finished


def test_files_from_disk_skip_the_sessions_line() -> None:
    recorder = run(8, [http("/static/css/app.css", session="page") for _ in range(6)], per_client=1)

    assert recorder.most_by["sessionid=page"] == 6


class Answers:
    def __init__(self) -> None:
        self.messages: list[dict[str, Any]] = []

    async def __call__(self, message: dict[str, Any]) -> None:
        self.messages.append(message)


def call(app: ConcurrencyLimit, scope: dict[str, Any]) -> Answers:
    answers = Answers()
    asyncio.run(app(scope, nothing, answers))
    return answers


def test_a_refused_api_session_is_answered_before_django() -> None:
    import json
    import time

    recorder = Recorder()
    app = ConcurrencyLimit(recorder, 8, 2)
    refused_at = time.time()
    refusals.refuse("greedy", writes=True, until=refused_at + 30, user_id=7)
    try:
        answers = call(app, http("/api/events/1/register/", session="greedy", method="POST"))
        answered_at = time.time()

        assert recorder.calls == 0
        start, body = answers.messages
        assert start["status"] == 429
        headers = dict(start["headers"])
        assert headers[b"content-type"] == b"application/json"
        # Whole seconds left of the 30, however long the call took.
        assert math.ceil(30 - (answered_at - refused_at)) <= int(headers[b"retry-after"]) <= 30
        error = json.loads(body["body"])["error"]
        assert error["code"] == "throttled"
        assert (
            error["message"]
            == f"Too many requests: try again in {int(headers[b'retry-after'])} seconds."
        )
        # Its reads, its pages, and everyone else's writes go on to Django.
        call(app, http("/api/events/", session="greedy"))
        call(app, http("/events/1/", session="greedy", method="POST"))
        call(app, http("/api/events/1/register/", session="other", method="POST"))
        call(app, http("/api/events/1/register/", method="POST"))
        assert recorder.calls == 4
        # Once the window has moved on, its writes go on too.
        refusals.refuse("greedy", writes=True, until=time.time() - 1, user_id=7)
        call(app, http("/api/events/1/register/", session="greedy", method="POST"))
        assert recorder.calls == 5
    finally:
        refusals.clear()


def test_refusals_answered_before_django_are_logged_with_their_count(
    caplog: pytest.LogCaptureFixture, monkeypatch: pytest.MonkeyPatch
) -> None:
    import time

    from syndicate import limits

    monkeypatch.setattr(limits, "LOG_EVERY", 0.05)
    app = ConcurrencyLimit(Recorder(), 8, 2)
    refusals.refuse("greedy", writes=True, until=time.time() + 30, user_id=7)

    async def flood_then_wait() -> None:
        for _ in range(3):
            await app(http("/api/events/1/register/", "greedy", "POST"), nothing, Answers())
        await wait_until_async(lambda: caplog.records, "the refusal log's line")

    try:
        with caplog.at_level("INFO", logger="syndicate.security"):
            asyncio.run(flood_then_wait())
    finally:
        refusals.clear()
    (record,) = caplog.records
    assert record.security == {  # type: ignore[attr-defined]
        "status": 429,
        "code": "throttled",
        "action": "",
        "method": "POST",
        "path": "/api/events/1/register/",
        "user": 7,
        "ip": "unknown",
        "repeated": 3,
    }
    assert "greedy" not in record.getMessage()  # never a session key
