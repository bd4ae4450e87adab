"""`make standby` (standby/follow.py): a second laptop pulls a copy through its own slot with the
account `make run` made for it; one second laptop at a time, and only with the right password."""

from __future__ import annotations

import os
import shutil
import subprocess
import sys
import tempfile
from collections.abc import Iterator
from pathlib import Path

import psycopg
import pytest

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


def follow(address: str, password: str, copy: Path) -> subprocess.Popen[str]:
    logs = _folder("syndicate-second-")
    env = {**os.environ, "STANDBY_PASSWORD": password, "SYNDICATE_VAR_DIR": str(logs)}
    return subprocess.Popen(
        [sys.executable, "-m", "standby.follow", address, "--dir", str(copy)],
        env=env,
        cwd=ROOT,
        stdout=subprocess.PIPE,
        stderr=subprocess.PIPE,
        text=True,
    )


def test_a_second_laptop_keeps_a_copy_that_commits_wait_for(first: tuple[Path, str, str]) -> None:
    var, url, address = first
    password = (var / "embedded" / "standby-password").read_text().strip()
    copy = _folder("syndicate-second-copy-")
    seen: dict[str, str] = {}
    keeper = Keeper(
        Server(Connection.from_url(url)),
        None,
        True,
        lambda name, where, state, sync, behind, reason: seen.__setitem__(name, state),
    )
    second = follow(address, password, copy)
    try:

        def in_step() -> bool:
            keeper.step()
            return seen.get("laptop") == "in_step"

        wait_until(in_step, "the second laptop to be in step", timeout=120)
        with psycopg.connect(url, autocommit=True) as connection:
            waited = connection.execute("SHOW synchronous_standby_names").fetchone()
        assert waited == (f'ANY 1 ("{LAPTOP}")',)
        assert (copy / "base" / "backup_manifest").exists()

        another = follow(address, password, _folder("syndicate-third-copy-"))
        _, error = another.communicate(timeout=120)
        assert another.returncode == 1
        assert "only one second laptop pulls at a time" in error

        wrong = follow(address, "not-the-password", _folder("syndicate-fourth-copy-"))
        _, error = wrong.communicate(timeout=120)
        assert wrong.returncode == 1
        assert "refused the password" in error
    finally:
        second.terminate()
        second.communicate(timeout=60)
        keeper.stop()
        shutil.rmtree(copy, ignore_errors=True)
    assert second.returncode == 0


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
