"""The production standby copy: the compose file's `standby` service, and docs/deploy.md's restore
steps run for real.

No Docker engine is needed. A throwaway primary is made the way the `db` container makes its own
(initdb with the image's authentication lines, then the init script of
deploy/postgres-init/20-replication.sh) and started with the `-c` settings of the compose file's
`db` command; deploy/standby/stream.sh, the `standby` service's command, copies it; rows are
written; the primary is killed (`kill -9`) and its data folder deleted; deploy/standby/restore.sh,
as docs/deploy.md runs it, rebuilds the database, which is started and checked. The programs are
the embedded wheel's (PostgreSQL 18; the stack's image is 16, and the steps are the same).
"""

from __future__ import annotations

import os
import pwd
import re
import shutil
import signal
import socket
import subprocess
import tempfile
import time
from collections.abc import Iterator
from dataclasses import dataclass
from pathlib import Path
from typing import Any

import pytest
import yaml

from syndicate.embedded import server_programs
from tests.waiting import PATIENCE

ROOT = Path(__file__).resolve().parents[2]
COMPOSE = ROOT / "docker-compose.yml"
DEPLOY_DOC = ROOT / "docs" / "deploy.md"
STREAM = ROOT / "deploy" / "standby" / "stream.sh"
RESTORE = ROOT / "deploy" / "standby" / "restore.sh"
REPLICATION_INIT = ROOT / "deploy" / "postgres-init" / "20-replication.sh"
PASSWORD = "owner0password"
REPLICATION_PASSWORD = "replication0password"


def services() -> dict[str, dict[str, Any]]:
    loaded = yaml.safe_load(COMPOSE.read_text())
    return loaded["services"]


def db_settings() -> list[str]:
    """The `-c name=value` settings the compose file starts the database with."""
    command = [str(part) for part in services()["db"]["command"]]
    assert command[0] == "postgres"
    pairs = [command[i + 1] for i, part in enumerate(command) if part == "-c"]
    assert pairs and all("=" in pair for pair in pairs)
    return pairs


def test_the_standby_service_streams_the_database_into_its_own_volume() -> None:
    found = services()
    standby, db = found["standby"], found["db"]
    assert str(standby["image"]) == str(db["image"])  # the same PostgreSQL major version
    command = " ".join(standby["command"])
    assert "gosu postgres sh /deploy/standby/stream.sh" in command
    assert "standby:/standby" in standby["volumes"]
    assert "./deploy/standby:/deploy/standby:ro" in standby["volumes"]
    assert standby["environment"]["PGUSER"] == "syndicate_replication"
    assert "POSTGRES_REPLICATION_PASSWORD" in standby["environment"]["PGPASSWORD"]
    assert standby["depends_on"]["db"]["condition"] == "service_healthy"
    assert standby["restart"] == "unless-stopped"
    assert "pg_receivewal" in " ".join(standby["healthcheck"]["test"])
    # The database keeps the log for the slot, within a bound, and can read the copy to restore.
    assert "max_slot_wal_keep_size=8GB" in db_settings()
    assert "standby:/standby:ro" in db["volumes"]
    assert "POSTGRES_REPLICATION_PASSWORD" in db["environment"]
    assert "standby" in yaml.safe_load(COMPOSE.read_text())["volumes"]
    # Never published, like the database.
    assert "ports" not in standby
    script = STREAM.read_text()
    assert "pg_receivewal --directory=" in script and "--slot=" in script
    assert "--synchronous" in script  # each record flushed as it arrives
    assert "pg_basebackup" in script and "--create-slot" in script


def test_the_restore_steps_in_the_doc_are_the_ones_tested_here() -> None:
    doc = DEPLOY_DOC.read_text()
    assert (
        "docker compose run --rm --no-deps --user postgres --entrypoint sh db "
        "/deploy/standby/restore.sh /standby /var/lib/postgresql/data" in doc
    )
    assert "docker compose exec db sh /docker-entrypoint-initdb.d/20-replication.sh" in doc


# --- the restore, for real ---------------------------------------------------------------------


@dataclass(frozen=True)
class Account:
    """Who runs PostgreSQL: ourselves, or an unprivileged account when we are root."""

    uid: int | None
    gid: int | None

    def run(
        self, args: list[str], env: dict[str, str], *, check: bool = True, timeout: float = 60
    ) -> subprocess.CompletedProcess[str]:
        done = subprocess.run(
            args, env=env, capture_output=True, text=True, timeout=timeout, check=False,
            **self.kwargs(),
        )  # fmt: skip
        if check:
            assert done.returncode == 0, f"{args[0]}: {done.stdout}{done.stderr}"
        return done

    def kwargs(self) -> dict[str, Any]:
        if self.uid is None:
            return {}
        return {"user": self.uid, "group": self.gid, "extra_groups": []}


def account() -> Account:
    if os.geteuid() != 0:
        return Account(None, None)
    try:
        entry = pwd.getpwnam("postgres")
    except KeyError:
        entry = pwd.getpwnam("nobody")
    return Account(entry.pw_uid, entry.pw_gid)


def free_port() -> int:
    with socket.socket() as sock:
        sock.bind(("127.0.0.1", 0))
        return int(sock.getsockname()[1])


@dataclass
class Night:
    """A throwaway primary and its standby copy, in one folder."""

    folder: Path
    who: Account
    port: int

    @property
    def env(self) -> dict[str, str]:
        return {
            **os.environ,
            # The programs the account below can run, wherever the checkout lies.
            "PATH": f"{server_programs(self.folder)}:{os.environ['PATH']}",
            "LC_ALL": "C",
            "LANG": "C",
        }

    def script(self, path: Path) -> str:
        """The image's copy of one of the deploy scripts: in the night's folder, where its account
        reads it wherever the checkout lies (a checkout in root's home is closed to it)."""
        copy = self.folder / "scripts" / path.name
        copy.parent.mkdir(mode=0o755, exist_ok=True)
        shutil.copyfile(path, copy)
        copy.chmod(0o644)
        return str(copy)

    def owner_env(self) -> dict[str, str]:
        """As the image's init scripts run: the owner, over the local socket."""
        return {**self.env, "PGHOST": str(self.folder), "PGPORT": str(self.port)}

    def start(self, data: Path) -> None:
        options = [f"-c {pair}" for pair in db_settings()]
        options += [
            f"-p {self.port}",
            "-c listen_addresses=127.0.0.1",
            f"-c unix_socket_directories={self.folder}",
        ]
        log = self.folder / f"{data.name}.log"
        done = self.who.run(
            [
                "pg_ctl", "-D", str(data), "-l", str(log),
                "-w", "-t", "60", "-o", " ".join(options), "start",
            ],
            self.env,
            check=False,
            timeout=90,
        )  # fmt: skip
        assert done.returncode == 0, f"{done.stderr}\n{log.read_text()[-3000:]}"

    def sql(self, query: str, *, database: str = "syndicate") -> str:
        done = self.who.run(
            ["psql", "-XAt", "-v", "ON_ERROR_STOP=1", "-U", "syndicate", "-d", database,
             "-c", query],
            self.owner_env(),
        )  # fmt: skip
        return done.stdout.strip()

    def kill(self, data: Path) -> None:
        pid = int((data / "postmaster.pid").read_text().split()[0])
        os.kill(pid, signal.SIGKILL)
        until(lambda: not _alive(pid), "the killed postmaster to be gone")
        # A new container starts with a fresh socket folder; the killed server's lock stays here.
        for lock in self.folder.glob(f".s.PGSQL.{self.port}*"):
            lock.unlink()


def _alive(pid: int) -> bool:
    try:
        os.kill(pid, 0)
    except ProcessLookupError:
        return False
    # A zombie is gone for our purposes.
    stat = Path(f"/proc/{pid}/stat")
    return not (stat.exists() and stat.read_text().split(") ")[-1].startswith("Z"))


def until(condition: Any, what: str) -> None:
    deadline = time.monotonic() + PATIENCE
    while not condition():
        assert time.monotonic() < deadline, f"waited {PATIENCE} s for {what}"
        time.sleep(0.05)


@pytest.fixture
def night() -> Iterator[Night]:
    who = account()
    folder = Path(tempfile.mkdtemp(prefix="standby-test-", dir="/tmp"))
    folder.chmod(0o755)
    if who.uid is not None:
        os.chown(folder, who.uid, who.gid or 0)
    made = Night(folder, who, free_port())
    try:
        yield made
    finally:
        for data in folder.iterdir():
            pid_file = data / "postmaster.pid"
            if data.is_dir() and pid_file.exists():
                with _suppress():
                    os.kill(int(pid_file.read_text().split()[0]), signal.SIGKILL)
        shutil.rmtree(folder, ignore_errors=True)


class _suppress:
    def __enter__(self) -> None:
        return None

    def __exit__(self, *exc: object) -> bool:
        return True


def make_primary(night: Night) -> Path:
    """initdb as the postgres image does: the owner `syndicate` with a password, trust on the
    local socket, and the image's `host all all all scram-sha-256`; then its init script."""
    data = night.folder / "primary"
    pwfile = night.folder / "pw"
    pwfile.write_text(PASSWORD + "\n")
    if night.who.uid is not None:
        os.chown(pwfile, night.who.uid, night.who.gid or 0)
    night.who.run(
        ["initdb", "-D", str(data), "-U", "syndicate", f"--pwfile={pwfile}",
         "--auth-local=trust", "--auth-host=scram-sha-256", "--no-instructions",
         "--encoding=UTF8", "--no-sync"],
        night.env,
        timeout=120,
    )  # fmt: skip
    with (data / "pg_hba.conf").open("a") as hba:
        hba.write("host all all all scram-sha-256\n")
    night.start(data)
    night.sql("CREATE DATABASE syndicate", database="postgres")
    init_env = {
        **night.owner_env(),
        "PGDATA": str(data),
        "POSTGRES_USER": "syndicate",
        "POSTGRES_DB": "syndicate",
        "POSTGRES_REPLICATION_PASSWORD": REPLICATION_PASSWORD,
    }
    night.who.run(["sh", night.script(REPLICATION_INIT)], init_env)
    return data


def stream(night: Night, standby: Path) -> subprocess.Popen[str]:
    """The `standby` service's command, with its environment."""
    env = {
        **night.env,
        "PGHOST": "127.0.0.1",
        "PGPORT": str(night.port),
        "PGUSER": "syndicate_replication",
        "PGPASSWORD": REPLICATION_PASSWORD,
        "STANDBY_DIR": str(standby),
    }
    log = (night.folder / "stream.log").open("w")
    return subprocess.Popen(
        ["sh", night.script(STREAM)], env=env, stdout=log, stderr=subprocess.STDOUT, text=True,
        start_new_session=True, **night.who.kwargs(),
    )  # fmt: skip


def restore(
    night: Night, standby: Path, data: Path, *target: str
) -> subprocess.CompletedProcess[str]:
    return night.who.run(
        ["sh", night.script(RESTORE), str(standby), str(data), *target], night.env, check=False
    )


def test_a_database_killed_and_deleted_comes_back_from_the_standby_copy(night: Night) -> None:
    primary = make_primary(night)
    standby = night.folder / "standby"
    standby.mkdir()
    if night.who.uid is not None:
        os.chown(standby, night.who.uid, night.who.gid or 0)
    streamer = stream(night, standby)
    try:
        until(
            lambda: night.sql("SELECT count(*) FROM pg_stat_replication WHERE state = 'streaming' "
                              "AND application_name = 'pg_receivewal'") == "1",
            "pg_receivewal to stream",
        )  # fmt: skip
        night.sql("CREATE TABLE results (id serial PRIMARY KEY, note text NOT NULL)")
        for batch in range(5):
            night.sql(
                f"INSERT INTO results (note) SELECT 'batch {batch}' FROM generate_series(1, 200)"
            )
        between = night.sql("SELECT clock_timestamp()")
        for batch in range(5, 10):
            night.sql(
                f"INSERT INTO results (note) SELECT 'batch {batch}' FROM generate_series(1, 200)"
            )
        last = night.sql("SELECT pg_current_wal_lsn()")
        # Asynchronous: the copy has flushed every record a moment after its commit.
        until(
            lambda: night.sql(f"SELECT count(*) FROM pg_stat_replication "
                              f"WHERE flush_lsn >= '{last}'::pg_lsn") == "1",
            "the copy to flush the last commit",
        )  # fmt: skip
        night.kill(primary)
    finally:
        os.killpg(streamer.pid, signal.SIGTERM)
        streamer.wait(timeout=PATIENCE)
    shutil.rmtree(primary)  # the lost disk

    assert (standby / "base" / "backup_manifest").exists()
    assert any(p.name.endswith(".partial") for p in (standby / "wal").iterdir())

    # Everything up to the last commit.
    restored = night.folder / "restored"
    done = restore(night, standby, restored)
    assert done.returncode == 0, done.stderr
    night.start(restored)
    # Read-only connections come once the data is consistent; writes once the replay is done.
    until(lambda: night.sql("SELECT pg_is_in_recovery()") == "f", "the replay to end")
    assert (
        night.sql("SELECT count(*), max(id), count(DISTINCT note) FROM results") == "2000|2000|10"
    )
    night.sql("INSERT INTO results (note) VALUES ('after the restore')")  # open for writes

    # The standby, started again, keeps the copy it restored from aside and starts a new one.
    streamer = stream(night, standby)
    try:
        until(lambda: (standby / "base" / "backup_manifest").exists(), "a new base backup")
        until(
            lambda: (
                night.sql("SELECT count(*) FROM pg_stat_replication WHERE state = 'streaming'")
                == "1"
            ),
            "the new copy to stream",
        )
    finally:
        os.killpg(streamer.pid, signal.SIGTERM)
        streamer.wait(timeout=PATIENCE)
    (previous,) = standby.glob("previous-*")
    assert sorted(p.name for p in previous.iterdir()) == ["base", "wal"]
    night.kill(restored)

    # Or up to a moment: the first five batches only (point-in-time recovery).
    earlier = night.folder / "earlier"
    assert restore(night, previous, earlier, between).returncode == 0
    night.start(earlier)
    until(lambda: night.sql("SELECT pg_is_in_recovery()") == "f", "the replay to end")
    assert night.sql("SELECT count(*), count(DISTINCT note) FROM results") == "1000|5"


def test_the_restore_refuses_a_folder_that_is_no_copy_and_a_database_folder_in_use(
    night: Night,
) -> None:
    empty = night.folder / "empty"
    empty.mkdir()
    done = restore(night, empty, night.folder / "new")
    assert done.returncode == 2 and "holds no base backup: not a standby copy" in done.stderr
    copy = night.folder / "copy"
    (copy / "base").mkdir(parents=True)
    (copy / "base" / "backup_manifest").write_text("{}")
    (copy / "wal").mkdir()
    used = night.folder / "used"
    used.mkdir()
    (used / "PG_VERSION").write_text("16\n")
    done = restore(night, copy, used)
    assert done.returncode == 2 and "is not empty" in done.stderr
    assert sorted(p.name for p in used.iterdir()) == ["PG_VERSION"]  # left as it was
    # A half-written base backup (its manifest does not match its files) is refused too.
    done = restore(night, copy, night.folder / "new")
    assert done.returncode == 2 and "does not verify" in done.stderr
    assert not (night.folder / "new").exists()
    assert re.search(r"restore: ", done.stderr)
