"""`make run` (syndicate/launcher.py) end to end, on its embedded servers in a temporary folder.

The launcher runs as a real process group, as in a terminal: it is stopped with SIGINT (Ctrl-C)
and, once, killed with SIGKILL together with its servers (a power cut). The servers of the folder
are stopped in a `finally` whatever happens.
"""

from __future__ import annotations

import http.cookiejar
import json
import os
import re
import shutil
import signal
import socket
import subprocess
import sys
import tempfile
import threading
import time
import urllib.error
import urllib.parse
import urllib.request
import uuid
from collections.abc import Iterator
from pathlib import Path

import pytest
import redis

from syndicate import embedded
from syndicate.launcher import lan_addresses

ROOT = Path(__file__).resolve().parents[2]


def free_port() -> int:
    with socket.socket() as sock:
        sock.bind(("127.0.0.1", 0))
        return int(sock.getsockname()[1])


class Browser:
    """Cookies, CSRF and redirects, as a browser keeps them."""

    def __init__(self, base: str) -> None:
        self.base = base
        self.jar = http.cookiejar.CookieJar()
        self.opener = urllib.request.build_opener(urllib.request.HTTPCookieProcessor(self.jar))

    def open(
        self, path: str, data: bytes | None = None, headers: dict[str, str] | None = None
    ) -> tuple[int, str]:
        request = urllib.request.Request(self.base + path, data=data, headers=headers or {})
        try:
            response = self.opener.open(request, timeout=60)
        except urllib.error.HTTPError as error:
            return error.code, error.read().decode()
        return response.status, response.read().decode()

    def cookie(self, name: str) -> str:
        return next((c.value or "" for c in self.jar if c.name == name), "")

    def sign_in(self, email: str, password: str) -> None:
        status, page = self.open("/accounts/login/")
        token = re.search(r'name="csrfmiddlewaretoken" value="([^"]+)"', page)
        assert status == 200 and token is not None
        form = {"csrfmiddlewaretoken": token[1], "login": email, "password": password}
        status, _ = self.open(
            "/accounts/login/",
            urllib.parse.urlencode(form).encode(),
            {"Referer": self.base + "/accounts/login/"},
        )
        assert status == 200 and self.cookie("sessionid")

    def post(self, path: str) -> tuple[int, dict]:
        status, text = self.open(
            path,
            b"{}",
            {
                "Content-Type": "application/json",
                "X-CSRFToken": self.cookie("csrftoken"),
                "Idempotency-Key": uuid.uuid4().hex,
            },
        )
        return status, json.loads(text)


class Run:
    """One `make run` in its own process group, its output in a file."""

    def __init__(self, folder: Path, port: int, **extra: str) -> None:
        self.folder, self.port = folder, port
        self.log = folder / f"launcher-{time.monotonic_ns()}.log"
        env = {
            k: v
            for k, v in os.environ.items()
            if k not in {"DATABASE_URL", "REDIS_URL", "TEST_DATABASE_NAME", "SYNDICATE_PRODUCTION"}
        }
        env.update(SYNDICATE_VAR_DIR=str(folder / "var"), PORT=str(port), PYTHONUNBUFFERED="1")
        env.update(extra)
        with self.log.open("wb") as out:
            self.process = subprocess.Popen(
                [sys.executable, "-m", "syndicate.launcher"],
                cwd=ROOT,
                env=env,
                stdout=out,
                stderr=subprocess.STDOUT,
                start_new_session=True,
            )

    @property
    def output(self) -> str:
        return self.log.read_text(errors="replace")

    def wait_serving(self) -> None:
        deadline = time.monotonic() + 300
        while "Ctrl-C stops everything" not in self.output:
            assert self.process.poll() is None, f"make run exited:\n{self.output}"
            assert time.monotonic() < deadline, f"make run did not serve:\n{self.output}"
            time.sleep(0.2)

    def address(self, label: str) -> str:
        found = re.search(rf"{label}:\s+(http://\S+)", self.output)
        assert found is not None, self.output
        return found[1]

    def ctrl_c(self) -> int:
        os.killpg(self.process.pid, signal.SIGINT)
        return self.process.wait(timeout=120)

    def kill(self) -> None:
        os.killpg(self.process.pid, signal.SIGKILL)
        self.process.wait()


@pytest.fixture
def folder() -> Iterator[Path]:
    path = Path(tempfile.mkdtemp(prefix="syndicate-launcher-test-"))
    path.chmod(0o755)  # under root, PostgreSQL's own user must enter it
    try:
        yield path
    finally:
        embedded.stop(path / "var")
        shutil.rmtree(path, ignore_errors=True)


def test_make_run_serves_stops_on_ctrl_c_and_keeps_the_data(folder: Path) -> None:
    port = free_port()
    base = f"http://127.0.0.1:{port}"
    run = Run(folder, port)
    try:
        run.wait_serving()
        player_page = run.address("Player page")
        event_id = int(player_page.rstrip("/").rsplit("/", 1)[1])
        assert player_page == f"{base}/events/{event_id}/"
        assert run.address("House dashboard") == f"{base}/house/events/{event_id}/"
        assert run.address("Board") == f"{base}/board/{event_id}/"
        assert f"data in {folder / 'var' / 'postgres'}/" in run.output
        assert "House:   house@example.com / cornhole-demo-7" in run.output
        ports = embedded.status(folder / "var")
        assert ports["postgres"] and ports["valkey"]
        # The live-updates publisher runs beside daphne and marks itself alive in Valkey.
        assert f"publisher log: {folder / 'var' / 'publisher.log'}" in run.output
        secret = (folder / "var" / "embedded" / "secret").read_text().strip()
        valkey = redis.Redis(port=ports["valkey"], password=secret)
        deadline = time.monotonic() + 30
        while not valkey.exists("asgi:live:publisher:1"):
            assert time.monotonic() < deadline, (folder / "var" / "publisher.log").read_text()
            time.sleep(0.2)
        valkey.close()

        house = Browser(base)
        assert house.open(f"/board/{event_id}/")[0] == 200
        house.sign_in("house@example.com", "cornhole-demo-7")
        assert house.open(f"/house/events/{event_id}/")[0] == 200
        status, dashboard = house.open(f"/api/events/{event_id}/house/")
        assert status == 200
        registration = json.loads(dashboard)["players"][0]["registration_id"]

        # Two House tabs undo the same check-in at the same instant: one is applied, the other
        # refused with a clear code; never a server error.
        answers: list[tuple[int, dict]] = []
        barrier = threading.Barrier(2)

        def undo() -> None:
            barrier.wait()
            answers.append(house.post(f"/api/registrations/{registration}/check-in/undo/"))

        threads = [threading.Thread(target=undo) for _ in range(2)]
        for thread in threads:
            thread.start()
        for thread in threads:
            thread.join()
        assert sorted(status for status, _ in answers) == [200, 409]
        refused = next(body for status, body in answers if status == 409)
        assert refused["error"]["code"] == "not_checked_in"

        assert run.ctrl_c() == 0
        assert "Stopped postgres and valkey" in run.output
        assert embedded.status(folder / "var") == {"postgres": None, "valkey": None}

        # A restart finds the data: the same demo event, the check-in still undone. It listens
        # for phones too: the links name the first LAN address (SITE_URL), every one is listed,
        # and pages load at them.
        run = Run(folder, port, HOST="0.0.0.0")
        run.wait_serving()
        lan = lan_addresses()
        public = f"http://{lan[0]}:{port}" if lan else base
        assert run.address("Player page") == f"{public}/events/{event_id}/"
        assert run.address("Board") == f"{public}/board/{event_id}/"
        for address in lan:
            assert f"\n  http://{address}:{port}/\n" in run.output
            assert Browser(f"http://{address}:{port}").open(f"/board/{event_id}/")[0] == 200
        if not lan:
            assert "No network address found" in run.output
        house = Browser(public)
        house.sign_in("house@example.com", "cornhole-demo-7")
        players = json.loads(house.open(f"/api/events/{event_id}/house/")[1])["players"]
        assert {p["registration_id"]: p["status"] for p in players}[registration] == "registered"

        # A power cut: make run and both servers killed with SIGKILL, nothing stopped cleanly.
        servers = [
            int((folder / "var/postgres/postmaster.pid").read_text().split()[0]),
            int((folder / "var/valkey/valkey.pid").read_text()),
        ]
        run.kill()
        for pid in servers:
            os.kill(pid, signal.SIGKILL)
        run = Run(folder, port)
        run.wait_serving()
        house = Browser(base)
        house.sign_in("house@example.com", "cornhole-demo-7")
        players = json.loads(house.open(f"/api/events/{event_id}/house/")[1])["players"]
        assert {p["registration_id"]: p["status"] for p in players}[registration] == "registered"
        assert run.ctrl_c() == 0
    finally:
        if run.process.poll() is None:
            run.kill()


def test_a_second_make_run_on_a_taken_port_says_so(folder: Path) -> None:
    with socket.socket() as taken:
        taken.bind(("127.0.0.1", 0))
        taken.listen()
        run = Run(folder, taken.getsockname()[1])
        assert run.process.wait(timeout=60) == 1
    assert "is taken (another `make run`?)" in run.output
    assert not (folder / "var" / "postgres").exists()  # it stopped before starting anything


def test_make_run_keeps_a_standby_copy_and_says_how_it_goes(folder: Path) -> None:
    stick = folder / "stick"
    stick.mkdir()
    run = Run(folder, free_port(), STANDBY_DIR=str(stick), STANDBY_ALLOW="127.0.0.1/32")
    try:
        run.wait_serving()
        password = (folder / "var" / "embedded" / "standby-password").read_text().strip()
        deadline = time.monotonic() + 300
        while f"when it asks: {password}" not in run.output:  # the second laptop's, printed next
            assert time.monotonic() < deadline, run.output
            time.sleep(0.2)
        assert re.search(r"make standby PRIMARY=\S+:\d+\n", run.output)
        assert "PASSWORD=" not in run.output  # a password on a command line is in the process list
        while f"Standby folder ({stick}): in step" not in run.output:
            assert time.monotonic() < deadline, run.output
            time.sleep(0.2)
        shutil.rmtree(stick)
        while f"Standby folder ({stick}): LOST" not in run.output:
            assert time.monotonic() < deadline, run.output
            time.sleep(0.2)
        assert "is gone (removed, or its disk unplugged)" in run.output
        assert run.ctrl_c() == 0
    finally:
        if run.process.poll() is None:
            run.kill()
    receivers = subprocess.run(
        ["pgrep", "-f", f"pg_receivewal -D {stick}"], capture_output=True, text=True, check=False
    )
    assert receivers.stdout == ""  # the keeper stopped its receiver with make run
