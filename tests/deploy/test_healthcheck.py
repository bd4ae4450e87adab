"""deploy/healthcheck.py, the web containers' health probe, against a stand-in server."""

from __future__ import annotations

import importlib.util
import subprocess
import sys
import threading
from collections.abc import Iterator
from http.server import BaseHTTPRequestHandler, ThreadingHTTPServer
from pathlib import Path
from types import ModuleType

import pytest

SCRIPT = Path(__file__).resolve().parents[2] / "deploy" / "healthcheck.py"


def load_script() -> ModuleType:
    spec = importlib.util.spec_from_file_location("deploy_healthcheck", SCRIPT)
    assert spec is not None and spec.loader is not None
    module = importlib.util.module_from_spec(spec)
    spec.loader.exec_module(module)
    return module


@pytest.mark.parametrize(
    ("allowed", "host"),
    [
        ("poker.example.com", "poker.example.com"),
        (" poker.example.com , www.example.com", "poker.example.com"),
        (".example.com,other.org", "example.com"),
        ("*", "localhost"),
        ("", "localhost"),
    ],
)
def test_probe_host_is_one_django_allows(allowed: str, host: str) -> None:
    assert load_script().probe_host(allowed) == host


class StandIn(BaseHTTPRequestHandler):
    status = 200
    seen: list[dict[str, str]] = []  # noqa: RUF012 - one test at a time

    def do_GET(self) -> None:
        StandIn.seen.append({"path": self.path, **{k.lower(): v for k, v in self.headers.items()}})
        body = b'{"status": "ok"}'
        self.send_response(StandIn.status)
        self.send_header("Content-Length", str(len(body)))
        self.end_headers()
        self.wfile.write(body)

    def log_message(self, format: str, *args: object) -> None:
        pass


@pytest.fixture
def server() -> Iterator[int]:
    StandIn.seen, StandIn.status = [], 200
    httpd = ThreadingHTTPServer(("127.0.0.1", 0), StandIn)
    thread = threading.Thread(target=httpd.serve_forever, daemon=True)
    thread.start()
    try:
        yield httpd.server_address[1]
    finally:
        httpd.shutdown()
        httpd.server_close()


def probe(port: int, allowed: str = "poker.example.com") -> subprocess.CompletedProcess[str]:
    env = {"HEALTHCHECK_PORT": str(port), "DJANGO_ALLOWED_HOSTS": allowed, "PATH": "/usr/bin"}
    return subprocess.run(
        [sys.executable, str(SCRIPT)], env=env, capture_output=True, text=True, timeout=30
    )


def test_healthy_sends_what_nginx_sends(server: int) -> None:
    result = probe(server, ".example.com")
    assert result.returncode == 0, result.stdout
    (request,) = StandIn.seen
    assert request["path"] == "/healthz"
    assert request["host"] == "example.com"
    assert request["x-forwarded-proto"] == "https"


def test_an_error_status_is_unhealthy(server: int) -> None:
    StandIn.status = 500
    result = probe(server)
    assert result.returncode == 1
    assert result.stdout.startswith("500 ")


def test_nothing_listening_is_unhealthy() -> None:
    with __import__("socket").socket() as spare:
        spare.bind(("127.0.0.1", 0))
        port = spare.getsockname()[1]
    result = probe(port)
    assert result.returncode == 1
    assert "no answer" in result.stdout
