"""Shared by bench/flood.py and bench/sign_in.py: a scratch database, and daphne as `make run`
starts it (syndicate/launcher.py: one process, a pool of 12 database connections, sign-up without
an emailed code), from any checkout of the project.

Nothing here imports the project: each checkout's code runs in its own server process.
"""

from __future__ import annotations

import argparse
import contextlib
import os
import signal
import subprocess
import sys
import time
import urllib.request
from collections.abc import Iterator
from pathlib import Path
from urllib.parse import urlsplit, urlunsplit

import psycopg
from psycopg import sql

ROOT = Path(__file__).resolve().parent.parent
BIN = Path(sys.executable).parent


def before_after_parser(description: str, *, port: int, database: str) -> argparse.ArgumentParser:
    """The command line both benchmarks share: the checkout before, rounds, a port, a database."""
    parser = argparse.ArgumentParser(description=description)
    parser.add_argument("--before", type=Path, required=True, help="checkout of the code before")
    parser.add_argument("--rounds", type=int, default=2)
    parser.add_argument("--port", type=int, default=port)
    parser.add_argument("--database", default=database)
    return parser


def servers_from_environment() -> tuple[str, str]:
    """DATABASE_URL (any database on the server) and REDIS_URL, or a plain exit."""
    server_url = os.environ.get("DATABASE_URL", "")
    redis_url = os.environ.get("REDIS_URL", "")
    if not server_url or not redis_url:
        sys.exit("Set DATABASE_URL (any database on the server) and REDIS_URL.")
    return server_url, redis_url


def with_database(url: str, name: str) -> str:
    parts = urlsplit(url)
    return urlunsplit(parts._replace(path=f"/{name}"))


@contextlib.contextmanager
def scratch_database(server_url: str, name: str) -> Iterator[str]:
    """A database of its own on DATABASE_URL's server (refused if it exists), dropped at the end."""
    with psycopg.connect(server_url, autocommit=True) as server:
        if server.execute("SELECT 1 FROM pg_database WHERE datname = %s", [name]).fetchone():
            sys.exit(f"Database {name!r} already exists: drop it or choose another name.")
        server.execute(sql.SQL("CREATE DATABASE {}").format(sql.Identifier(name)))
    try:
        yield with_database(server_url, name)
    finally:
        with psycopg.connect(server_url, autocommit=True) as server:
            server.execute(
                sql.SQL("DROP DATABASE IF EXISTS {} WITH (FORCE)").format(sql.Identifier(name))
            )


def make_run_environment(database_url: str, redis_url: str, prefix: str) -> dict[str, str]:
    """The environment `make run` gives daphne, on these servers, with key prefixes of its own."""
    env = {
        key: value
        for key, value in os.environ.items()
        if not key.startswith(("DJANGO_", "API_THROTTLE", "HTTP_CONCURRENCY", "TEST_DATABASE"))
    }
    env |= {
        "DJANGO_SETTINGS_MODULE": "syndicate.settings",
        "DATABASE_URL": database_url,
        "REDIS_URL": redis_url,
        "DATABASE_POOL_SIZE": "12",
        "SIGNUP_EMAIL_CODE": "0",
        "LIVE_UPDATES": "process",
        "CHANNELS_PREFIX": prefix,
        "CACHE_PREFIX": prefix,
        "LOG_LEVEL": "ERROR",
    }
    return env


def manage(checkout: Path, env: dict[str, str], *args: str) -> None:
    subprocess.run(
        [sys.executable, "manage.py", *args], cwd=checkout, env=env, check=True, timeout=600
    )


def answers(url: str) -> bool:
    try:
        with urllib.request.urlopen(url, timeout=2) as response:
            return bool(response.status == 200)
    except OSError:
        return False


@contextlib.contextmanager
def daphne(checkout: Path, port: int, env: dict[str, str], log: Path) -> Iterator[tuple[str, int]]:
    """daphne on 127.0.0.1:port serving `checkout`'s code (its address and process id); stopped
    (SIGTERM) at the end."""
    base = f"http://127.0.0.1:{port}"
    if answers(f"{base}/healthz"):
        sys.exit(f"Port {port} is taken: choose another (--port).")
    with log.open("ab") as output:
        process = subprocess.Popen(
            [str(BIN / "daphne"), "-b", "127.0.0.1", "-p", str(port), "syndicate.asgi:application"],
            cwd=checkout,
            env=env,
            stdout=output,
            stderr=subprocess.STDOUT,
        )
    try:
        deadline = time.monotonic() + 120
        while not answers(f"{base}/healthz"):
            if process.poll() is not None or time.monotonic() > deadline:
                sys.exit(f"daphne for {checkout} did not serve; see {log}")
            time.sleep(0.2)
        yield base, process.pid
    finally:
        process.send_signal(signal.SIGTERM)
        try:
            process.wait(timeout=20)
        except subprocess.TimeoutExpired:
            process.kill()
            process.wait()


def delete_keys(redis_url: str, prefix: str) -> None:
    import redis

    server = redis.Redis.from_url(redis_url)
    for key in server.scan_iter(match=f"*{prefix}*"):
        server.delete(key)


def percentile(values: list[float], fraction: float) -> float:
    ordered = sorted(values)
    if not ordered:
        return float("nan")
    return ordered[min(len(ordered) - 1, max(0, round(fraction * len(ordered)) - 1))]


def cpu_seconds(pid: int) -> float:
    """User and system CPU time a process has used so far."""
    fields = Path(f"/proc/{pid}/stat").read_text().rsplit(")", 1)[1].split()
    return (int(fields[11]) + int(fields[12])) / os.sysconf("SC_CLK_TCK")
