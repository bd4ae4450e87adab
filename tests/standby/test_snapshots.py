"""Snapshots at each step of the night: a checked pg_dump into the standby folder when an event
starts and when it is finalized (standby.snapshots), against the real test database."""

from __future__ import annotations

import logging
import os
import subprocess
from collections.abc import Iterator
from pathlib import Path
from typing import Any

import pytest

from events import services
from standby import snapshots
from syndicate.embedded import postgres_bin
from tests.events.support import complete_table
from tests.factories import make_table
from tests.standby.support import mounted

pytestmark = pytest.mark.django_db(transaction=True)


def listing(path: Path) -> str:
    return subprocess.run(
        [str(postgres_bin() / "pg_restore"), "--list", str(path)],
        capture_output=True, text=True, check=True,
    ).stdout  # fmt: skip


def files(folder: Path) -> list[str]:
    """Every file in the folder's snapshots, hidden ones too."""
    found = folder / "snapshots"
    return sorted(p.name for p in found.iterdir()) if found.is_dir() else []


@pytest.fixture
def standby(tmp_path: Path, settings: Any) -> Path:
    settings.STANDBY_DIR = str(tmp_path)
    return tmp_path


def test_it_writes_a_checked_dump_when_an_event_starts_and_when_it_is_finalized(
    standby: Path,
) -> None:
    table = complete_table(players=2)
    (started,) = files(standby)
    assert started.endswith(f"-event-{table.event.pk}-started.dump")
    services.pool_confirm(event_id=table.event.pk, by=table.house)
    services.event_finalize(event_id=table.event.pk, by=table.house)
    (finalized,) = set(files(standby)) - {started}
    assert finalized.endswith(f"-event-{table.event.pk}-finalized.dump")
    assert finalized[:16] >= started[:16]  # UTC timestamps, to the second
    assert (standby / "snapshots" / finalized).stat().st_mode & 0o777 == 0o600
    listed = listing(standby / "snapshots" / finalized)
    assert "TABLE DATA public events_event " in listed
    assert "TABLE DATA public audit_auditentry " in listed
    assert "TABLE DATA public cards_dealtcard " in listed


def test_other_changes_take_no_snapshot(standby: Path) -> None:
    table = make_table(players=2)
    services.registration_close(event_id=table.event.pk, by=table.house)
    assert files(standby) == []


def test_without_a_standby_folder_nothing_is_dumped(tmp_path: Path, settings: Any) -> None:
    settings.STANDBY_DIR = ""
    make_table(players=2, start=True)
    assert list(tmp_path.iterdir()) == []


def test_a_missing_folder_is_logged_and_the_event_goes_on(
    tmp_path: Path, settings: Any, caplog: pytest.LogCaptureFixture
) -> None:
    settings.STANDBY_DIR = str(tmp_path / "usb-stick-pulled")
    with caplog.at_level(logging.WARNING, logger="standby.snapshots"):
        table = make_table(players=2, start=True)
    assert table.refresh().phase == "started"
    assert not (tmp_path / "usb-stick-pulled").exists()  # not made again on the laptop's disk
    (message,) = [r.getMessage() for r in caplog.records if r.name == "standby.snapshots"]
    assert "usb-stick-pulled is not there" in message and "The event goes on" in message


@pytest.fixture
def read_only(tmp_path: Path, settings: Any) -> Iterator[Path]:
    if os.geteuid() != 0:
        folder = tmp_path / "stick"
        (folder / "snapshots").mkdir(parents=True)
        (folder / "snapshots").chmod(0o555)
        folder.chmod(0o555)
        settings.STANDBY_DIR = str(folder)
        yield folder
        folder.chmod(0o755)
        (folder / "snapshots").chmod(0o755)
        return
    # root writes through permissions: a read-only filesystem it is.
    for folder in mounted(tmp_path / "stick", "ro,size=1m"):
        settings.STANDBY_DIR = str(folder)
        yield folder


def test_a_read_only_folder_is_logged_and_the_event_goes_on(
    read_only: Path, caplog: pytest.LogCaptureFixture
) -> None:
    with caplog.at_level(logging.WARNING, logger="standby.snapshots"):
        table = make_table(players=2, start=True)
    assert table.refresh().phase == "started"
    problems = [r.getMessage() for r in caplog.records if r.name == "standby.snapshots"]
    assert len(problems) == 1
    assert "read-only" in problems[0] or "no permission" in problems[0]
    taken = snapshots.take(event_id=table.event.pk, step="started")
    assert taken.path is None and taken.problem


@pytest.fixture
def full_disk(tmp_path: Path, settings: Any) -> Iterator[Path]:
    # A filesystem far smaller than a dump of the test database.
    for folder in mounted(tmp_path / "stick", "size=16k"):
        settings.STANDBY_DIR = str(folder)
        yield folder


def test_a_full_disk_leaves_no_half_written_dump(full_disk: Path) -> None:
    table = make_table(players=2, start=True)
    taken = snapshots.take(event_id=table.event.pk, step="started")
    assert taken.path is None
    assert "is full" in taken.problem
    assert files(full_disk) == []  # the partial file was removed


def test_a_half_written_dump_fails_the_check(standby: Path) -> None:
    make_table(players=2, start=True)
    (name,) = files(standby)
    whole = (standby / "snapshots" / name).read_bytes()
    half = standby / "half.dump"
    half.write_bytes(whole[: len(whole) // 2])
    assert snapshots.check(standby / "snapshots" / name) == ""
    assert "pg_restore cannot read the dump" in snapshots.check(half)
    (standby / "foreign.dump").write_text("not a dump at all")
    assert "pg_restore cannot read the dump" in snapshots.check(standby / "foreign.dump")


def test_a_snapshot_opens_read_only_in_a_scratch_database(standby: Path) -> None:
    """docs/reliability.md, "Opening an older state read-only", step by step."""
    from django.db import connection

    table = make_table(players=2, start=True)
    (name,) = files(standby)
    dump = standby / "snapshots" / name
    database = connection.settings_dict
    env = {
        **os.environ,
        "PGHOST": database["HOST"] or "127.0.0.1",
        "PGPORT": str(database["PORT"] or 5432),
        "PGUSER": database["USER"] or "postgres",
        "PGPASSWORD": database["PASSWORD"] or "",
    }
    scratch = f"{database['NAME']}_then"

    def run(program: str, *args: str) -> subprocess.CompletedProcess[str]:
        command = [str(postgres_bin() / program), *args]
        return subprocess.run(command, env=env, capture_output=True, text=True, check=False)

    run("dropdb", "--if-exists", scratch)
    assert run("createdb", scratch).returncode == 0
    try:
        restored = run(
            "pg_restore", "--no-owner", "--no-privileges", f"--dbname={scratch}", str(dump)
        )
        errors = [line for line in restored.stderr.splitlines() if "error:" in line]
        # Only a server older than the programs complains, about the one setting it lacks.
        assert all("transaction_timeout" in line for line in errors), restored.stderr
        sql = f"ALTER DATABASE {scratch} SET default_transaction_read_only = on"
        assert run("psql", "-d", scratch, "-c", sql).returncode == 0
        shown = run("psql", "-d", scratch, "-At", "-c", "SELECT name, phase FROM events_event")
        assert shown.stdout.strip() == f"{table.event.name}|started"
        write = run("psql", "-d", scratch, "-c", "DELETE FROM events_event")
        assert write.returncode != 0 and "read-only transaction" in write.stderr
    finally:
        run("dropdb", scratch)
