"""Real processes for the fault tests: a private Redis, daphne servers and Celery workers.

Every process is started by the test that needs it and stopped by `Processes.stop_all` in a
fixture's `finally`, by its own pid. Nothing here touches the shared PostgreSQL or Redis servers
beyond the test database that pytest-django created.
"""

from __future__ import annotations

import contextlib
import json
import os
import shutil
import signal
import socket
import subprocess
import sys
import time
import uuid
from collections.abc import Callable
from dataclasses import dataclass, field
from pathlib import Path
from typing import Any

import redis
from celery import Celery
from django.conf import settings

from syndicate import embedded
from tests.push.standin import STANDIN_HOSTS
from tests.waiting import PATIENCE, wait_until

ROOT = Path(__file__).resolve().parents[2]


def free_port() -> int:
    with socket.socket() as sock:
        sock.bind(("127.0.0.1", 0))
        return int(sock.getsockname()[1])


def database_url() -> str:
    """The test database (the one pytest-django created), as a DATABASE_URL for a subprocess."""
    db = settings.DATABASES["default"]
    user = db.get("USER") or "postgres"
    password = f":{db['PASSWORD']}" if db.get("PASSWORD") else ""
    host = f"{db.get('HOST') or '127.0.0.1'}:{db.get('PORT') or 5432}"
    return f"postgres://{user}{password}@{host}/{db['NAME']}"


def port_open(port: int) -> bool:
    with socket.socket() as sock:
        sock.settimeout(0.5)
        return sock.connect_ex(("127.0.0.1", port)) == 0


def tail(path: Path, lines: int = 40) -> str:
    if not path.exists():
        return f"({path} is empty)"
    return "\n".join(path.read_text(errors="replace").splitlines()[-lines:])


@dataclass
class Managed:
    """One started process, its log, and how to tell it is ready."""

    name: str
    argv: list[str]
    env: dict[str, str]
    log: Path
    ready: Callable[[Managed], bool]
    port: int = 0
    process: subprocess.Popen[bytes] | None = None
    started_at: float = 0.0

    @property
    def url(self) -> str:
        return f"http://127.0.0.1:{self.port}"

    @property
    def pid(self) -> int:
        assert self.process is not None
        return self.process.pid

    def alive(self) -> bool:
        return self.process is not None and self.process.poll() is None

    def start(self) -> Managed:
        with self.log.open("ab") as out:
            self.process = subprocess.Popen(
                self.argv, cwd=ROOT, env=self.env, stdout=out, stderr=subprocess.STDOUT
            )
        self.started_at = time.monotonic()
        return self

    def wait_ready(self, timeout: float = PATIENCE) -> float:
        """Seconds from the start until the process is ready."""

        def check() -> bool:
            if not self.alive():
                raise AssertionError(f"{self.name} exited early:\n{tail(self.log)}")
            return self.ready(self)

        wait_until(check, f"{self.name} to be ready ({self.log})", timeout=timeout)
        return time.monotonic() - self.started_at

    def kill(self) -> None:
        """SIGKILL: no shutdown handler runs, like a crash or the OOM killer. A prefork worker's
        pool processes, which would outlive it, are killed too."""
        if self.alive():
            assert self.process is not None
            children = self.children()
            self.process.send_signal(signal.SIGKILL)
            self.process.wait(timeout=10)
            for child in children:
                with contextlib.suppress(ProcessLookupError):
                    os.kill(child, signal.SIGKILL)

    def stop(self) -> None:
        if self.process is None:
            return
        if self.process.poll() is None:
            self.process.terminate()
            try:
                self.process.wait(timeout=5)
            except subprocess.TimeoutExpired:
                self.kill()

    def children(self) -> list[int]:
        """The pids of this process's children (a prefork worker's pool processes)."""
        found: list[int] = []
        for task in Path(f"/proc/{self.pid}/task").glob("*/children"):
            with contextlib.suppress(OSError):
                found += [int(pid) for pid in task.read_text().split()]
        return found

    def log_text(self) -> str:
        return self.log.read_text(errors="replace") if self.log.exists() else ""

    def tasks(self, name: str, event: str) -> int:
        """How many times a worker logged `event` ("received", "succeeded") for task `name`."""
        return sum(
            1 for line in self.log_text().splitlines() if f"Task {name}[" in line and event in line
        )


@dataclass
class Processes:
    """Everything one test started; `stop_all` ends each of them by its own pid."""

    folder: Path
    started: list[Managed] = field(default_factory=list)

    def add(self, managed: Managed) -> Managed:
        self.started.append(managed)
        return managed.start()

    def stop_all(self) -> None:
        # The app's processes first, then Redis: a worker that loses its broker while stopping
        # would wait to reconnect.
        ordered = sorted(reversed(self.started), key=lambda m: m.name.startswith("redis"))
        for managed in ordered:
            try:
                managed.stop()
            except Exception:  # keep stopping the others
                managed.kill()

    # --- the kinds of process --------------------------------------------------------------

    def redis(self, port: int | None = None) -> RedisServer:
        server = RedisServer(self, port or free_port())
        server.start()
        return server

    def daphne(self, name: str, env: dict[str, str]) -> Managed:
        port = free_port()
        argv = [sys.executable, "-m", "daphne", "-b", "127.0.0.1", "-p", str(port)]
        argv.append("syndicate.asgi:application")
        return self.add(
            Managed(
                name=name,
                argv=argv,
                env=env,
                log=self.folder / f"{name}.log",
                ready=lambda m: port_open(port),
                port=port,
            )
        )

    def worker(self, name: str, env: dict[str, str], *, pool: str = "solo") -> Managed:
        argv = [sys.executable, "-m", "celery", "-A", "syndicate", "worker", f"--pool={pool}"]
        argv += ["--concurrency=1", "--loglevel=INFO", "-n", f"{name}-{uuid.uuid4().hex[:8]}@%h"]
        argv += ["--without-gossip", "--without-mingle", "--without-heartbeat"]
        return self.add(
            Managed(
                name=name,
                argv=argv,
                env=env,
                log=self.folder / f"{name}.log",
                ready=lambda m: " ready." in m.log_text(),
            )
        )

    def beat(self, name: str, env: dict[str, str]) -> Managed:
        schedule = self.folder / f"{name}-schedule"
        argv = [sys.executable, "-m", "celery", "-A", "syndicate", "beat", "--loglevel=INFO"]
        argv.append(f"--schedule={schedule}")
        return self.add(
            Managed(
                name=name,
                argv=argv,
                env=env,
                log=self.folder / f"{name}.log",
                ready=lambda m: "beat: Starting..." in m.log_text(),
            )
        )


@dataclass
class RedisServer:
    """A private, empty Redis that keeps nothing on disk; `restart` loses everything in it."""

    processes: Processes
    port: int
    managed: Managed | None = None
    generation: int = 0

    @property
    def url(self) -> str:
        return f"redis://127.0.0.1:{self.port}/0"

    def start(self) -> None:
        # Redis when installed, else the Valkey binary of the embedded servers (same protocol).
        binary = shutil.which("redis-server") or str(embedded.valkey_server())
        self.generation += 1
        folder = self.processes.folder / f"redis-{self.generation}"
        folder.mkdir(parents=True, exist_ok=True)
        argv = [binary, "--port", str(self.port), "--bind", "127.0.0.1"]
        argv += ["--save", "", "--appendonly", "no", "--daemonize", "no", "--dir", str(folder)]
        self.managed = self.processes.add(
            Managed(
                name=f"redis-{self.generation}",
                argv=argv,
                env=dict(os.environ),
                log=self.processes.folder / f"redis-{self.generation}.log",
                ready=lambda m: self.ping(),
            )
        )
        self.managed.wait_ready()

    def ping(self) -> bool:
        client = redis.Redis.from_url(self.url, socket_connect_timeout=0.5)
        try:
            return bool(client.ping())
        except redis.RedisError:
            return False
        finally:
            client.close()

    def client(self) -> redis.Redis:
        return redis.Redis.from_url(self.url)

    def restart_empty(self) -> float:
        """SIGKILL the server and start a new, empty one on the same port; seconds it was down."""
        assert self.managed is not None
        down_at = time.monotonic()
        self.managed.kill()
        self.start()
        return time.monotonic() - down_at


def app_env(redis_url: str, **extra: str) -> dict[str, str]:
    """The environment of a daphne or worker process on the test database and a private Redis."""
    env = {
        **os.environ,
        "DATABASE_URL": database_url(),
        "REDIS_URL": redis_url,
        "DATABASE_CONN_MAX_AGE": "0",
        "PYTHONUNBUFFERED": "1",
        "DJANGO_SETTINGS_MODULE": "syndicate.settings",
        "PUSH_SERVICE_HOSTS": STANDIN_HOSTS,  # the push stand-in (tests/push/standin.py)
        "API_THROTTLE_RATES": "address=off,account_read=off,account_write=off,house_write=off",
    }
    env.update(extra)
    return env


def publish(broker_url: str, task: str, *args: Any, countdown: float | None = None) -> None:
    """Queue a task on a private broker, as a process of the app (or beat) would."""
    publisher = Celery("faults-publisher", broker=broker_url, set_as_current=False)
    try:
        publisher.send_task(task, args=list(args), countdown=countdown)
    finally:
        publisher.close()


def report(name: str, **figures: Any) -> None:
    """Print what a fault test measured; with FAULTS_REPORT set, also append it there as JSON."""
    line = json.dumps({"check": name, **figures}, sort_keys=True, default=str)
    print(f"FAULTS {line}")
    target = os.environ.get("FAULTS_REPORT")
    if target:
        with open(target, "a") as out:
            out.write(line + "\n")
