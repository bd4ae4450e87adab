"""`syndicate.limits.ConcurrencyLimit`: a bound on the HTTP requests a process runs at once."""

from __future__ import annotations

import asyncio
from typing import Any

from django.conf import settings

from syndicate.asgi import application
from syndicate.limits import ConcurrencyLimit


class Recorder:
    """An ASGI app that takes a while and records how many of its calls overlap."""

    def __init__(self) -> None:
        self.running = 0
        self.most = 0
        self.calls = 0

    async def __call__(self, scope: Any, receive: Any, send: Any) -> None:
        self.running += 1
        self.calls += 1
        self.most = max(self.most, self.running)
        await asyncio.sleep(0.02)
        self.running -= 1


async def nothing() -> dict[str, Any]:
    return {}


async def ignore(message: Any) -> None:
    return None


def run(limit: int, scopes: list[dict[str, Any]]) -> Recorder:
    recorder = Recorder()
    app = ConcurrencyLimit(recorder, limit)

    async def all_at_once() -> None:
        await asyncio.gather(*(app(scope, nothing, ignore) for scope in scopes))

    asyncio.run(all_at_once())
    return recorder


def http(path: str = "/events/1/report") -> dict[str, Any]:
    return {"type": "http", "path": path}


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
