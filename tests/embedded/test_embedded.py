"""The embedded PostgreSQL and Valkey (syndicate/embedded.py): real servers in temporary folders.

Every test starts its servers in a folder of its own and stops them by that folder in a
`finally`; nothing here touches var/ or the servers the rest of the suite uses.
"""

from __future__ import annotations

import os
import shutil
import signal
import subprocess
import sys
import tempfile
from collections.abc import Iterator
from pathlib import Path

import psycopg
import pytest
import redis

from syndicate import embedded
from tests.waiting import wait_until

ROOT = Path(__file__).resolve().parents[2]


@pytest.fixture
def folder() -> Iterator[Path]:
    # Not pytest's tmp_path: its folders are private (0700), and under root PostgreSQL runs as
    # another user, who must be able to enter the folder.
    path = Path(tempfile.mkdtemp(prefix="syndicate-embedded-test-"))
    path.chmod(0o755)
    try:
        yield path
    finally:
        embedded.stop(path)
        shutil.rmtree(path, ignore_errors=True)


def write_row(url: str, value: int) -> None:
    with psycopg.connect(url, autocommit=True) as connection:
        connection.execute("CREATE TABLE IF NOT EXISTS kept (value int)")
        connection.execute("INSERT INTO kept VALUES (%s)", [value])


def rows(url: str) -> list[int]:
    with psycopg.connect(url) as connection:
        return [row[0] for row in connection.execute("SELECT value FROM kept ORDER BY value")]


def wait_gone(pid: int) -> None:
    wait_until(lambda: not embedded._alive(pid), f"pid {pid} to end")


def wait_kept(folder: Path, value: bytes) -> None:
    """Until Valkey has written `value` to its append-only file (appendfsync everysec writes it
    within a second or two, later on a busy machine); a SIGKILL then keeps it."""
    wait_until(
        lambda: any(value in aof.read_bytes() for aof in (folder / "valkey").rglob("*.aof")),
        f"{value!r} in Valkey's append-only file",
    )


def test_starts_both_servers_in_an_empty_folder_and_finds_them_running(folder: Path) -> None:
    first = embedded.ensure(folder, throwaway=True)
    assert first.started == ["postgres", "valkey"]
    assert first.database_url.startswith("postgres://postgres:")
    assert first.database_url.endswith(f"/{embedded.DATABASE}")
    with psycopg.connect(first.database_url) as connection:
        version = connection.execute("SHOW server_version_num").fetchone()
        assert version is not None and int(version[0]) >= 180000
    assert redis.Redis.from_url(first.redis_url).ping()

    again = embedded.ensure(folder, throwaway=True)
    assert again.started == []
    assert (again.database_url, again.redis_url) == (first.database_url, first.redis_url)
    assert embedded.status(folder) == {
        "postgres": int(first.database_url.rsplit(":", 1)[1].split("/")[0]),
        "valkey": int(first.redis_url.rsplit(":", 1)[1].split("/")[0]),
    }


def test_the_servers_ask_for_the_folders_password(folder: Path) -> None:
    services = embedded.ensure(folder, throwaway=True)
    port = services.database_url.rsplit(":", 1)[1].split("/")[0]
    with pytest.raises(psycopg.OperationalError, match="password"):
        psycopg.connect(f"postgres://postgres:wrong@127.0.0.1:{port}/postgres").close()
    valkey_port = services.redis_url.rsplit(":", 1)[1].split("/")[0]
    with pytest.raises(redis.AuthenticationError):
        redis.Redis.from_url(f"redis://:wrong@127.0.0.1:{valkey_port}/0").ping()


def test_data_survives_a_stop_and_a_start(folder: Path) -> None:
    services = embedded.ensure(folder)
    write_row(services.database_url, 1)
    redis.Redis.from_url(services.redis_url).rpush("queue", "task")
    assert embedded.stop(folder) == ["postgres", "valkey"]
    assert embedded.status(folder) == {"postgres": None, "valkey": None}

    again = embedded.ensure(folder)
    assert again.started == ["postgres", "valkey"]
    assert rows(again.database_url) == [1]
    assert redis.Redis.from_url(again.redis_url).lrange("queue", 0, -1) == [b"task"]


def test_a_server_killed_with_sigkill_restarts_with_every_committed_write(folder: Path) -> None:
    services = embedded.ensure(folder)
    write_row(services.database_url, 7)
    redis.Redis.from_url(services.redis_url).rpush("queue", "task")
    wait_kept(folder, b"task")
    postmaster = int((folder / "postgres/postmaster.pid").read_text().split()[0])
    valkey = int((folder / "valkey/valkey.pid").read_text())
    os.kill(postmaster, signal.SIGKILL)
    os.kill(valkey, signal.SIGKILL)
    assert (folder / "postgres/postmaster.pid").exists()  # the stale lock file stays behind

    again = embedded.ensure(folder)
    assert again.started == ["postgres", "valkey"]
    assert rows(again.database_url) == [7]
    assert redis.Redis.from_url(again.redis_url).lrange("queue", 0, -1) == [b"task"]
    assert "database system was interrupted" in (folder / "postgres/server.log").read_text()


def test_a_stale_postmaster_pid_naming_another_live_process_is_cleared(folder: Path) -> None:
    """After a reboot the pid in postmaster.pid may belong to an unrelated program, which
    PostgreSQL alone takes for a running server and refuses to start."""
    services = embedded.ensure(folder)
    write_row(services.database_url, 3)
    pidfile = folder / "postgres/postmaster.pid"
    lines = pidfile.read_text().splitlines()
    postmaster = int(lines[0])
    os.kill(postmaster, signal.SIGKILL)
    wait_gone(postmaster)
    stranger = subprocess.Popen([sys.executable, "-c", "import time; time.sleep(60)"])
    try:
        pidfile.write_text("\n".join([str(stranger.pid), *lines[1:]]) + "\n")
        again = embedded.ensure(folder)
        assert "postgres" in again.started
        assert rows(again.database_url) == [3]
        assert stranger.poll() is None  # the unrelated process was left alone
    finally:
        stranger.kill()
        stranger.wait()


def test_a_half_made_data_folder_is_made_again(folder: Path) -> None:
    """initdb interrupted (Ctrl-C during the first `make run`) leaves no data directory behind."""
    (folder / "postgres.initdb").mkdir()
    (folder / "postgres.initdb" / "leftover").write_text("x")
    services = embedded.ensure(folder, throwaway=True, redis=False)
    assert services.redis_url == ""
    assert (folder / "postgres/PG_VERSION").exists()
    assert not (folder / "postgres.initdb").exists()


def test_the_last_holder_to_release_stops_the_servers(folder: Path) -> None:
    embedded.ensure(folder, throwaway=True)
    other = subprocess.Popen([sys.executable, "-c", "import time; time.sleep(60)"])
    try:
        embedded.hold(folder, os.getpid())
        embedded.hold(folder, other.pid)
        assert embedded.release(folder, os.getpid()) == []  # the other make run still runs
        assert embedded.status(folder)["postgres"] is not None
        other.kill()
        other.wait()
        # A holder killed without releasing does not keep the servers up.
        embedded.hold(folder, os.getpid())
        assert embedded.release(folder, os.getpid()) == ["postgres", "valkey"]
        assert embedded.status(folder) == {"postgres": None, "valkey": None}
    finally:
        other.kill()
        other.wait()


def test_manage_py_without_urls_finds_the_running_servers_or_starts_them(folder: Path) -> None:
    """Settings with DATABASE_URL and REDIS_URL unset use the folder's servers."""
    env = {
        k: v
        for k, v in os.environ.items()
        if k not in {"DATABASE_URL", "REDIS_URL", "TEST_DATABASE_NAME", "SYNDICATE_PRODUCTION"}
    }
    env["SYNDICATE_VAR_DIR"] = str(folder)
    show = (
        "from django.conf import settings; from django.db import connection; "
        "connection.ensure_connection(); "
        "print(settings.DATABASES['default']['PORT'], settings.REDIS_URL)"
    )

    def manage() -> str:
        result = subprocess.run(
            [sys.executable, "manage.py", "shell", "-c", show],
            cwd=ROOT,
            env=env,
            capture_output=True,
            text=True,
            timeout=180,
            check=False,
        )
        assert result.returncode == 0, result.stderr
        return result.stdout.strip().splitlines()[-1]

    started_by_command = manage()  # nothing ran: the command starts the servers, detached
    status = embedded.status(folder)
    assert status["postgres"] is not None and status["valkey"] is not None
    assert started_by_command.startswith(f"{status['postgres']} redis://")
    assert manage() == started_by_command  # a second command finds them running


def test_a_stale_valkey_pid_naming_another_live_process_is_not_waited_for(folder: Path) -> None:
    services = embedded.ensure(folder, database=False)
    redis.Redis.from_url(services.redis_url).rpush("queue", "task")
    pidfile = folder / "valkey/valkey.pid"
    valkey = int(pidfile.read_text())
    wait_kept(folder, b"task")
    os.kill(valkey, signal.SIGKILL)
    wait_gone(valkey)
    # The stranger outlives the start's whole wait (START_TIMEOUT): waiting for it would fail
    # the start, so no clock is needed to tell.
    stranger = subprocess.Popen([sys.executable, "-c", "import time; time.sleep(600)"])
    assert embedded.START_TIMEOUT < 600
    try:
        pidfile.write_text(f"{stranger.pid}\n")
        again = embedded.ensure(folder, database=False)
        assert again.started == ["valkey"]
        assert redis.Redis.from_url(again.redis_url).lrange("queue", 0, -1) == [b"task"]
        assert stranger.poll() is None
    finally:
        stranger.kill()
        stranger.wait()


@pytest.mark.skipif(os.geteuid() != 0, reason="only root runs PostgreSQL as another account")
def test_under_root_the_server_runs_from_a_place_its_account_reaches(
    monkeypatch: pytest.MonkeyPatch,
) -> None:
    """A checkout where others cannot enter (root's home, a private temporary folder): the data
    directory lives under the server home, `var/postgres` links to it, and it survives a stop."""
    private = Path(tempfile.mkdtemp(prefix="syndicate-private-"))  # 0700, as mktemp -d makes it
    home = Path(tempfile.mkdtemp(prefix="syndicate-server-home-"))
    home.chmod(0o755)
    monkeypatch.setenv("SYNDICATE_SERVER_HOME", str(home))
    var = private / "var"
    try:
        assert private.stat().st_mode & 0o777 == 0o700
        write_row(embedded.ensure(var, redis=False).database_url, 7)
        link = var / "postgres"
        assert link.is_symlink() and link.resolve().is_relative_to(home / "data")
        data = link.resolve()
        assert data.stat().st_uid != 0 and data.stat().st_mode & 0o777 == 0o700
        assert data.parent.stat().st_uid == data.stat().st_uid  # the account's own folder
        assert embedded.stop(var) == ["postgres"]
        assert rows(embedded.ensure(var, redis=False).database_url) == [7]
        embedded.remove(var)  # a throwaway folder goes with the data kept for it
        assert not var.exists() and not data.parent.exists()
    finally:
        embedded.stop(var)
        shutil.rmtree(private, ignore_errors=True)
        shutil.rmtree(home, ignore_errors=True)
