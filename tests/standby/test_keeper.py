"""The standby keeper (standby/keeper.py) against a real embedded PostgreSQL in a folder of its own:
commits wait for the copy, a lost copy stops nobody, House is told in plain words."""

from __future__ import annotations

import json
import shutil
import tempfile
import threading
from collections.abc import Iterator
from pathlib import Path

import psycopg
import pytest

from standby.folder import CopyFolder, Marker
from standby.keeper import FOLDER, Connection, FolderCopy, Keeper, Server
from syndicate import embedded
from tests.standby.support import mounted
from tests.waiting import wait_until


def _folder() -> Path:
    # Not tmp_path: under root PostgreSQL runs as another user, who must enter the folder.
    path = Path(tempfile.mkdtemp(prefix="syndicate-standby-test-"))
    path.chmod(0o755)
    return path


@pytest.fixture(scope="module")
def server() -> Iterator[str]:
    """One server for the module's nights: each has a folder and a slot of its own."""
    path = _folder()
    try:
        yield embedded.ensure(path, redis=False).database_url
    finally:
        embedded.stop(path)
        shutil.rmtree(path, ignore_errors=True)


@pytest.fixture
def root() -> Iterator[Path]:
    path = _folder()
    try:
        yield path
    finally:
        embedded.stop(path / "var")
        shutil.rmtree(path, ignore_errors=True)


@pytest.fixture
def night(server: str, root: Path) -> Night:
    return Night(server, root)


class Reports:
    """What the keeper told House, newest last, per copy."""

    def __init__(self) -> None:
        self.seen: dict[str, tuple[str, bool, str]] = {}
        self.history: list[tuple[str, bool, str]] = []

    def __call__(
        self, name: str, where: str, state: str, sync: bool, behind: float | None, reason: str
    ) -> None:
        self.seen[name] = (state, sync, reason)
        self.history.append((state, sync, reason))

    def state(self, name: str = "folder") -> str:
        return self.seen.get(name, ("", False, ""))[0]


class Night:
    """A server, its standby folder and a keeper stepped on a thread of its own, as `make run`
    runs it beside the server."""

    def __init__(self, url: str, root: Path) -> None:
        self.url = url
        self.connection = Connection.from_url(self.url)
        self.folder = CopyFolder(root / "stick")
        self.folder.root.mkdir()
        self.reports = Reports()
        self.copy = FolderCopy(self.folder, self.connection, root)
        self.keeper = Keeper(Server(self.connection), self.copy, False, self.reports)
        self.stopping = threading.Event()
        self.thread = threading.Thread(target=self._run, daemon=True)

    def _run(self) -> None:
        while not self.stopping.is_set():
            self.keeper.step()
            self.stopping.wait(0.1)

    def __enter__(self) -> Night:
        self.thread.start()
        return self

    def __exit__(self, *exc: object) -> None:
        self.stopping.set()
        self.thread.join(timeout=60)
        self.keeper.stop()

    def write(self, value: int) -> None:
        with psycopg.connect(self.url, autocommit=True) as connection:
            connection.execute("SET synchronous_commit = on")
            connection.execute("CREATE TABLE IF NOT EXISTS kept (value int)")
            connection.execute("INSERT INTO kept VALUES (%s)", [value])

    def waiting_for(self) -> str:
        with psycopg.connect(self.url, autocommit=True) as connection:
            row = connection.execute("SHOW synchronous_standby_names").fetchone()
        return str(row[0]) if row else ""


def test_commits_wait_for_the_copy_once_it_is_in_step(night: Night) -> None:
    with night:
        wait_until(lambda: night.reports.state() == "in_step", "the copy to be in step")
        assert night.waiting_for() == f'ANY 1 ("{FOLDER}")'
        assert night.reports.seen["folder"] == ("in_step", True, "")
        marker = night.folder.marker()
        assert marker is not None and marker.base_complete
        assert (night.folder.base / "backup_manifest").exists()
        night.write(1)  # returns only once the folder has flushed it
        with psycopg.connect(night.url) as connection:
            sent = connection.execute(
                "SELECT flush_lsn >= pg_current_wal_flush_lsn() FROM pg_stat_replication"
                " WHERE application_name = %s",
                [FOLDER],
            ).fetchone()
        assert sent == (True,)


def test_a_pulled_folder_lets_writes_flow_and_house_is_told(night: Night) -> None:
    with night:
        wait_until(lambda: night.reports.state() == "in_step", "the copy to be in step")
        shutil.rmtree(night.folder.root)
        written = threading.Event()

        def write() -> None:
            night.write(2)
            written.set()

        threading.Thread(target=write, daemon=True).start()
        wait_until(written.is_set, "the write to go through without the copy")
        wait_until(lambda: night.reports.state() == "lost", "House to be told the copy is lost")
        _, synchronous, reason = night.reports.seen["folder"]
        assert not synchronous
        assert "is gone" in reason
        assert night.waiting_for() == ""


def test_a_folder_that_comes_back_is_copied_again_and_rejoins(night: Night) -> None:
    with night:
        wait_until(lambda: night.reports.state() == "in_step", "the copy to be in step")
        shutil.rmtree(night.folder.root)
        wait_until(lambda: night.reports.state() == "lost", "the copy to be lost")
        night.folder.root.mkdir()
        wait_until(lambda: night.reports.state() == "in_step", "the copy to be in step again")
        assert night.waiting_for() == f'ANY 1 ("{FOLDER}")'


def test_a_killed_receiver_takes_the_copy_out_of_the_wait_and_is_started_again(
    night: Night,
) -> None:
    with night:
        wait_until(lambda: night.reports.state() == "in_step", "the copy to be in step")
        receiver = night.copy.receiver
        assert receiver is not None
        receiver.kill()
        night.write(3)  # the keeper takes the copy out of the wait, or it already came back
        wait_until(
            lambda: night.copy.receiver is not None and night.copy.receiver.pid != receiver.pid,
            "a new receiver",
        )
        wait_until(lambda: night.reports.state() == "in_step", "the copy to be in step again")


def test_a_folder_of_another_database_is_never_written(night: Night) -> None:
    stick = night.folder.root
    marker = Marker("1234", 18, "another night", FOLDER, "2026-01-01T00:00:00+00:00", True)
    night.folder.write_marker(marker)
    with night:
        wait_until(lambda: night.reports.state() == "lost", "the copy to be refused")
    assert "another database" in night.reports.seen["folder"][2]
    assert json.loads((stick / "syndicate-standby.json").read_text())["system_identifier"] == "1234"
    assert sorted(p.name for p in stick.iterdir()) == ["syndicate-standby.json"]


def test_a_folder_holding_other_files_is_never_written(night: Night) -> None:
    (night.folder.root / "holiday-photos.jpg").write_bytes(b"\xff\xd8")
    with night:
        wait_until(lambda: night.reports.state() == "lost", "the copy to be refused")
    assert "not empty" in night.reports.seen["folder"][2]
    assert sorted(p.name for p in night.folder.root.iterdir()) == ["holiday-photos.jpg"]


def test_a_standby_folder_that_does_not_exist_yet_is_created_and_kept(night: Night) -> None:
    night.folder.root.rmdir()
    with night:
        wait_until(lambda: night.reports.state() == "in_step", "the copy to be in step")
    assert night.folder.root.stat().st_mode & 0o777 == 0o700
    assert all(state != "lost" for state, _, _ in night.reports.history)


def test_a_standby_folder_whose_disk_is_not_there_says_what_to_do_and_nothing_waits(
    night: Night,
) -> None:
    night.folder.root.rmdir()
    unplugged = CopyFolder(night.folder.root.parent / "usb-not-mounted" / "night")
    night.copy.folder = night.folder = unplugged
    with night:
        wait_until(lambda: night.reports.state() == "lost", "the copy to be lost")
        night.write(4)
        assert night.waiting_for() == ""
    reason = night.reports.seen["folder"][2]
    assert "does not exist, nor does" in reason and "plug in its disk" in reason
    assert f"mkdir -p {night.folder.root}" in reason
    assert not night.folder.root.parent.exists()  # never made on this laptop's disk


def test_a_server_started_again_waits_for_no_copy_a_killed_keeper_left(root: Path) -> None:
    var = root / "var"
    url = embedded.ensure(var, redis=False).database_url
    with psycopg.connect(url, autocommit=True) as connection:
        connection.execute("ALTER SYSTEM SET synchronous_standby_names = 'ANY 1 (\"gone\")'")
    embedded.stop(var)
    url = embedded.ensure(var, redis=False).database_url
    with psycopg.connect(url, autocommit=True) as connection:
        assert connection.execute("SHOW synchronous_standby_names").fetchone() == ("",)
        connection.execute("SET synchronous_commit = on")
        connection.execute("CREATE TABLE written (value int)")  # would wait forever


def test_a_folder_that_fills_up_is_reported_and_writes_flow(night: Night) -> None:
    for _ in mounted(night.folder.root, "size=112m"):  # the base, and a few segments of the log
        with night:
            wait_until(lambda: night.reports.state() == "in_step", "the copy to be in step")
            for value in range(40):
                if night.reports.state() == "lost":
                    break
                night.write(value)  # never waits long: the keeper lets go of a full copy
                with psycopg.connect(night.url, autocommit=True) as connection:
                    connection.execute("SELECT pg_switch_wal()")  # a new 16 MB segment
            wait_until(lambda: night.reports.state() == "lost", "the full copy to be lost")
            night.write(100)
            assert night.waiting_for() == ""
            assert "disk is full" in night.reports.seen["folder"][2]


def test_a_read_only_folder_is_reported_and_nothing_waits(night: Night) -> None:
    for _ in mounted(night.folder.root, "ro,size=1m"):
        with night:
            wait_until(lambda: night.reports.state() == "lost", "the copy to be lost")
            night.write(5)
            assert night.waiting_for() == ""
        assert "is read-only" in night.reports.seen["folder"][2]


def test_a_half_written_copy_of_this_database_is_taken_again(night: Night) -> None:
    ours = night.keeper.server.identity()
    marker = Marker(ours.system_identifier, ours.major_version, "make run", FOLDER, "", False)
    night.folder.write_marker(marker)  # a base backup that never finished: the stick was pulled
    (night.folder.root / "base.partial").mkdir()
    (night.folder.root / "base.partial" / "PG_VERSION").write_text("18\n")
    with night:
        wait_until(lambda: night.reports.state() == "in_step", "the copy to be in step")
    again = night.folder.marker()
    assert again is not None and again.base_complete
    assert (night.folder.base / "backup_manifest").exists()
    assert not (night.folder.root / "base.partial").exists()
