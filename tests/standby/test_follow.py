"""`make standby` (standby/follow.py): a second laptop pulls a copy through its own slot with the
account `make run` made for it; one second laptop at a time, and only with the right password."""

from __future__ import annotations

import fcntl
import os
import pty
import shutil
import subprocess
import sys
import tempfile
import termios
import threading
from collections.abc import Iterator
from pathlib import Path

import psycopg
import pytest
from psycopg import pq

from standby.follow import ROLE
from standby.keeper import LAPTOP, Connection, Keeper, Server
from syndicate import embedded
from tests.waiting import wait_until

ROOT = Path(__file__).resolve().parents[2]


def _folder(prefix: str) -> Path:
    path = Path(tempfile.mkdtemp(prefix=prefix))
    path.chmod(0o755)  # under root PostgreSQL runs as another user, who must enter it
    return path


@pytest.fixture
def first() -> Iterator[tuple[Path, str, str]]:
    """The first laptop's server, allowing second laptops from this machine: (folder, its
    database URL, the address a second laptop is given)."""
    var = _folder("syndicate-first-")
    try:
        url = embedded.ensure(var, redis=False, listen="127.0.0.1").database_url
        embedded.allow_standby(var, ["127.0.0.1/32"])
        port = embedded.status(var)["postgres"]
        yield var, url, f"127.0.0.1:{port}"
    finally:
        embedded.stop(var)
        shutil.rmtree(var, ignore_errors=True)


def follow(
    address: str, password: str, copy: Path, *, password_file: Path | None = None
) -> subprocess.Popen[str]:
    logs = _folder("syndicate-second-")
    env = {**os.environ, "SYNDICATE_VAR_DIR": str(logs)}
    env.pop("STANDBY_PASSWORD", None)
    argv = [sys.executable, "-m", "standby.follow", address, "--dir", str(copy)]
    if password_file is not None:
        argv += ["--password-file", str(password_file)]
    else:
        env["STANDBY_PASSWORD"] = password
    return subprocess.Popen(
        argv, env=env, cwd=ROOT, stdout=subprocess.PIPE, stderr=subprocess.PIPE, text=True
    )


class Typed:
    """`make standby` in a terminal of its own (a pseudo-terminal it controls), as House runs it:
    what it prints, and the password typed when it asks."""

    def __init__(self, address: str, copy: Path) -> None:
        self.master, slave = pty.openpty()
        env = {**os.environ, "SYNDICATE_VAR_DIR": str(_folder("syndicate-second-"))}
        env.pop("STANDBY_PASSWORD", None)
        self.process = subprocess.Popen(
            [sys.executable, "-m", "standby.follow", address, "--dir", str(copy)],
            env=env,
            cwd=ROOT,
            stdin=slave,
            stdout=slave,
            stderr=slave,
            start_new_session=True,
            preexec_fn=lambda: fcntl.ioctl(0, termios.TIOCSCTTY, 0),
        )
        os.close(slave)
        self.output = ""
        threading.Thread(target=self._read, daemon=True).start()

    def _read(self) -> None:
        while True:
            try:
                chunk = os.read(self.master, 4096)
            except OSError:  # the terminal closed with the process
                return
            if not chunk:
                return
            self.output += chunk.decode(errors="replace")

    def type(self, text: str) -> None:
        os.write(self.master, f"{text}\n".encode())

    def command_line(self) -> str:
        return Path(f"/proc/{self.process.pid}/cmdline").read_bytes().decode().replace("\0", " ")


def test_a_second_laptop_keeps_a_copy_that_commits_wait_for(first: tuple[Path, str, str]) -> None:
    var, url, address = first
    password = (var / "embedded" / "standby-password").read_text().strip()
    copy = _folder("syndicate-second-copy-") / "night"  # made by make standby, private
    seen: dict[str, str] = {}
    keeper = Keeper(
        Server(Connection.from_url(url)),
        None,
        True,
        lambda name, where, state, sync, behind, reason: seen.__setitem__(name, state),
    )
    second = Typed(address, copy)
    try:
        wait_until(lambda: "password `make run` printed" in second.output, "the password prompt")
        second.type(password)

        def in_step() -> bool:
            keeper.step()
            return seen.get("laptop") == "in_step"

        wait_until(in_step, "the second laptop to be in step", timeout=120)
        with psycopg.connect(url, autocommit=True) as connection:
            waited = connection.execute("SHOW synchronous_standby_names").fetchone()
        assert waited == (f'ANY 1 ("{LAPTOP}")',)
        assert (copy / "base" / "backup_manifest").exists()
        assert copy.stat().st_mode & 0o777 == 0o700
        assert password not in second.output  # not echoed
        assert password not in second.command_line()

        another = follow(address, password, _folder("syndicate-third-copy-"))
        _, error = another.communicate(timeout=120)
        assert another.returncode == 1
        assert "only one second laptop pulls at a time" in error

        written = _folder("syndicate-password-") / "password"
        written.write_text("not-the-password\n")
        wrong = follow(address, "", _folder("syndicate-fourth-copy-"), password_file=written)
        _, error = wrong.communicate(timeout=120)
        assert wrong.returncode == 1
        assert "refused the password" in error
    finally:
        second.process.terminate()
        second.process.wait(timeout=60)
        keeper.stop()
        shutil.rmtree(copy.parent, ignore_errors=True)
    assert second.process.returncode == 0


@pytest.mark.parametrize("address", ["the bar's wifi", "192.168.1.0/33", "host all all trust"])
def test_an_allowed_address_that_is_not_one_is_refused_before_anything_changes(
    address: str,
) -> None:
    var = _folder("syndicate-first-")
    try:
        with pytest.raises(embedded.EmbeddedError, match="is not an address or a network"):
            embedded.allow_standby(var, ["192.168.1.31", address])
        assert list(var.iterdir()) == []  # no password, no access rule written
    finally:
        shutil.rmtree(var, ignore_errors=True)


def test_the_replication_account_replicates_and_logs_in_to_no_database(
    first: tuple[Path, str, str],
) -> None:
    var, _, address = first
    password = (var / "embedded" / "standby-password").read_text().strip()
    host, port = address.split(":")
    account = f"host={host} port={port} user={ROLE} password={password}"
    replication = pq.PGconn.connect(f"{account} dbname=postgres replication=true".encode())
    try:
        assert replication.status == pq.ConnStatus.OK, replication.error_message
    finally:
        replication.finish()
    for database in ("postgres", embedded.DATABASE, "template1"):
        with pytest.raises(psycopg.OperationalError, match="rejects connection"):
            psycopg.connect(f"{account} dbname={database}", connect_timeout=10).close()


def test_a_second_laptop_allowed_by_an_earlier_run_is_refused_once_none_is_allowed(
    first: tuple[Path, str, str],
) -> None:
    var, _, address = first
    password = (var / "embedded" / "standby-password").read_text().strip()
    host, port = address.split(":")
    account = f"host={host} port={port} user={ROLE} password={password} dbname=postgres"
    embedded.close_standby(var)  # `make run` again, without STANDBY_ALLOW

    def replicates() -> bool:
        connection = pq.PGconn.connect(f"{account} replication=true".encode())
        try:
            return connection.status == pq.ConnStatus.OK
        finally:
            connection.finish()

    wait_until(lambda: not replicates(), "the replication account to be refused")
    with pytest.raises(psycopg.OperationalError, match="rejects connection"):
        psycopg.connect(account, connect_timeout=10).close()


def test_a_password_on_make_standbys_command_line_is_refused() -> None:
    refused = subprocess.run(
        ["make", "-s", "-o", ".venv/bin/.installed", "standby", "PRIMARY=127.0.0.1:5432",
         "PASSWORD=shown-to-everyone"],
        cwd=ROOT, capture_output=True, text=True, timeout=60, check=False,
    )  # fmt: skip
    assert refused.returncode == 2
    assert "would show in the process list" in refused.stderr
    assert "PASSWORD_FILE=" in refused.stderr


def test_without_a_password_or_a_terminal_it_says_how_to_give_one() -> None:
    logs = _folder("syndicate-second-")
    env = {**os.environ, "SYNDICATE_VAR_DIR": str(logs)}
    env.pop("STANDBY_PASSWORD", None)
    done = subprocess.run(
        [sys.executable, "-m", "standby.follow", "127.0.0.1:5432"],
        env=env, cwd=ROOT, stdin=subprocess.DEVNULL, capture_output=True, text=True,
        timeout=60, check=False,
    )  # fmt: skip
    assert done.returncode == 2
    assert "type it when asked, or give PASSWORD_FILE=" in done.stderr
    shutil.rmtree(logs, ignore_errors=True)
