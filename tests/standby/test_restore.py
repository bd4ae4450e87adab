"""`make restore` (standby/restore.py) end to end, as a laptop runs it: a night played on one
folder's servers with its keeper streaming to a standby folder, every process of the server
killed and its data deleted, then the copy restored into another folder and checked; and every
folder `make restore` must refuse, each refused with a plain message and nothing changed."""

from __future__ import annotations

import json
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

from standby.folder import CopyFolder, CopyProblem
from standby.restore import _gather_log
from syndicate import embedded
from tests.waiting import wait_until

ROOT = Path(__file__).resolve().parents[2]


def _folder(prefix: str) -> Path:
    path = Path(tempfile.mkdtemp(prefix=prefix))
    path.chmod(0o755)  # under root PostgreSQL runs as another user, who must enter it
    return path


def _env(var: Path) -> dict[str, str]:
    env = {k: v for k, v in os.environ.items() if k not in {"DATABASE_URL", "REDIS_URL"}}
    return {**env, "SYNDICATE_VAR_DIR": str(var), "CELERY_TASK_ALWAYS_EAGER": "1"}


def _manage(var: Path, *args: str) -> str:
    done = subprocess.run(
        [sys.executable, str(ROOT / "manage.py"), *args],
        env=_env(var),
        cwd=ROOT,
        capture_output=True,
        text=True,
        timeout=600,
    )
    assert done.returncode == 0, done.stderr
    return done.stdout


def restore(var: Path, copy: Path, *extra: str) -> subprocess.CompletedProcess[str]:
    return subprocess.run(
        [sys.executable, "-m", "standby.restore", str(copy), *extra],
        env=_env(var),
        cwd=ROOT,
        capture_output=True,
        text=True,
        timeout=600,
    )


class Played:
    def __init__(self, stick: Path, event_id: int, last_write: str, events: int) -> None:
        self.stick, self.event_id, self.last_write, self.events = (
            stick,
            event_id,
            last_write,
            events,
        )


@pytest.fixture(scope="module")
def played() -> Iterator[Played]:
    """A night on folder A with a standby folder, then every server process of A killed and its
    database deleted: what is left is the copy."""
    a, stick = _folder("syndicate-restore-a-"), _folder("syndicate-restore-stick-")
    keeper = None
    try:
        _manage(a, "migrate", "--noinput")
        keeper = subprocess.Popen(
            [sys.executable, str(ROOT / "manage.py"), "keep_standby", "--dir", str(stick)],
            env=_env(a),
            cwd=ROOT,
            stdout=subprocess.DEVNULL,
            stderr=subprocess.DEVNULL,
        )
        url = embedded.ensure(a, redis=False).database_url

        def waiting_for_copy() -> bool:
            with psycopg.connect(url) as connection:
                row = connection.execute("SHOW synchronous_standby_names").fetchone()
            return row is not None and row[0] != ""

        wait_until(waiting_for_copy, "commits to wait for the standby folder", timeout=120)
        out = _manage(a, "simulate_event", "--format", "league", "--players", "6", "--seed", "5")
        event_id = json.loads(out.strip().splitlines()[-1])["event_id"]
        with psycopg.connect(url) as connection:
            row = connection.execute(
                "SELECT max(at), count(DISTINCT event_id) FROM audit_auditentry"
            ).fetchone()
        assert row is not None
        last_write, events = str(row[0]), int(row[1])
        # kill -9: the keeper (its receiver is left orphaned), then the server's processes.
        keeper.send_signal(signal.SIGKILL)
        keeper.wait()
        found = (a / "postgres" / "postmaster.pid").read_text().splitlines()
        os.kill(int(found[0]), signal.SIGKILL)
        wait_until(lambda: not embedded._alive(int(found[0])), "the server to die")
        embedded.stop(a)  # Valkey
        shutil.rmtree(a / "postgres")
        yield Played(stick, event_id, last_write, events)
    finally:
        if keeper is not None and keeper.poll() is None:
            keeper.kill()
        subprocess.run(["pkill", "-9", "-f", f"pg_receivewal -D {stick}"], check=False)
        embedded.stop(a)
        shutil.rmtree(a, ignore_errors=True)
        shutil.rmtree(stick, ignore_errors=True)


@pytest.fixture
def b() -> Iterator[Path]:
    path = _folder("syndicate-restore-b-")
    try:
        yield path
    finally:
        embedded.stop(path)
        shutil.rmtree(path, ignore_errors=True)


def test_the_copy_restores_every_committed_write_and_every_audit_verifies(
    played: Played, b: Path
) -> None:
    done = restore(b, played.stick)
    assert done.returncode == 0, done.stderr
    assert f"Last write: {played.last_write}" in done.stdout
    assert f"Events ({played.events}), every audit chain and signed head checked" in done.stdout
    assert f"  {played.event_id}  finalized" in done.stdout
    # The night goes on from B: the secrets came along, and the export verifies with B's key.
    assert (b / "audit_signing_key.pem").exists() and (b / "vapid.json").exists()
    exported = b / "audit.json"
    exported.write_text(_manage(b, "export_audit", str(played.event_id), "--format", "json"))
    key = b / "public.pem"
    key.write_text(_public_key_pem(b))
    assert "OK: the audit verifies." in _manage(
        b, "verify_audit", str(exported), "--public-key", str(key)
    )
    url = embedded.ensure(b, redis=False).database_url
    with psycopg.connect(url, autocommit=True) as connection:
        connection.execute("SET synchronous_commit = on")
        connection.execute("CREATE TABLE written_after_restore (value int)")  # waits for nothing
        assert connection.execute("SELECT pg_is_in_recovery()").fetchone() == (False,)


def _public_key_pem(var: Path) -> str:
    return _manage(
        var,
        "shell",
        "-v",
        "0",
        "-c",
        "from audit.signing import signing_key; from audit.anchor import public_key_pem; "
        "print(public_key_pem(signing_key().public_key()), end='')",
    )


def test_a_database_in_var_is_kept_unless_forced_and_then_kept_aside(
    played: Played, b: Path
) -> None:
    assert restore(b, played.stick).returncode == 0
    embedded.stop(b)
    before = sorted(p.name for p in b.iterdir())
    refused = restore(b, played.stick)
    assert refused.returncode == 1
    assert "already holds a database" in refused.stderr and "FORCE=1" in refused.stderr
    assert sorted(p.name for p in b.iterdir()) == before
    forced = restore(b, played.stick, "--force")
    assert forced.returncode == 0, forced.stderr
    aside = [p for p in b.iterdir() if p.name.startswith("postgres.before-restore-")]
    assert len(aside) == 1 and (aside[0] / "PG_VERSION").exists()


def test_a_var_in_use_is_refused(played: Played, b: Path) -> None:
    assert restore(b, played.stick).returncode == 0  # its server is left running
    refused = restore(b, played.stick, "--force")
    assert refused.returncode == 1
    assert "is running" in refused.stderr and "make stop" in refused.stderr
    embedded.stop(b)
    embedded.hold(b, os.getpid())
    try:
        held = restore(b, played.stick, "--force")
    finally:
        embedded.release(b, os.getpid())
    assert held.returncode == 1
    assert f"`make run` (pid {os.getpid()}) uses" in held.stderr


@pytest.mark.parametrize(
    ("make", "says"),
    [
        ("empty", "is empty: there is no standby copy in it"),
        ("foreign", "holds no standby copy"),
        ("half", "is half written: its base backup never finished"),
        ("other_version", "is of PostgreSQL 16; this checkout runs PostgreSQL 18"),
    ],
)
def test_a_folder_that_is_not_a_whole_copy_is_refused(
    played: Played, b: Path, make: str, says: str
) -> None:
    bad = _folder("syndicate-restore-bad-")
    try:
        if make == "foreign":
            (bad / "notes.txt").write_text("not a copy")
        elif make in {"half", "other_version"}:
            shutil.copytree(played.stick, bad, dirs_exist_ok=True)
            marker = json.loads((bad / "syndicate-standby.json").read_text())
            if make == "half":
                marker["base_complete"] = False
            else:
                marker["major_version"] = 16
            (bad / "syndicate-standby.json").write_text(json.dumps(marker))
        refused = restore(b, bad)
        assert refused.returncode == 1
        assert says in refused.stderr
        assert not (b / "postgres").exists()
        assert CopyFolder(played.stick).marker() is not None
    finally:
        shutil.rmtree(bad, ignore_errors=True)


def _names(folder: Path) -> set[str]:
    return {p.name for p in folder.iterdir()}


def _bad_copy(played: Played) -> Path:
    bad = _folder("syndicate-restore-bad-")
    shutil.copytree(played.stick, bad, dirs_exist_ok=True)
    return bad


def test_a_copy_that_does_not_verify_leaves_var_as_it_was(played: Played, b: Path) -> None:
    bad = _bad_copy(played)
    try:
        with (bad / "base" / "PG_VERSION").open("a") as changed:
            changed.write("tampered\n")
        before = _names(b)
        refused = restore(b, bad)
        assert refused.returncode == 1
        assert "does not verify" in refused.stderr
        assert _names(b) == before  # no restoring/, no restore-wal/, no database
    finally:
        shutil.rmtree(bad, ignore_errors=True)


def test_a_short_last_segment_replays_up_to_its_last_complete_record(
    played: Played, b: Path
) -> None:
    assert restore(b, played.stick).returncode == 0
    embedded.stop(b)
    bad = _bad_copy(played)
    try:
        last = CopyFolder(bad).last_write_file()
        assert last is not None
        written = len(last.read_bytes().rstrip(b"\0"))
        os.truncate(last, max(written - 100, 1))  # the stick pulled in its last record
        forced = restore(b, bad, "--force")
        assert forced.returncode == 0, forced.stderr
        assert "Last write: " in forced.stdout
        assert "every audit chain and signed head checked" in forced.stdout
        assert not {"restoring", "restore-wal"} & _names(b)
        url = embedded.ensure(b, redis=False).database_url
        with psycopg.connect(url) as connection:
            assert connection.execute("SELECT pg_is_in_recovery()").fetchone() == (False,)
    finally:
        shutil.rmtree(bad, ignore_errors=True)


def test_a_failed_restore_puts_the_previous_database_back_and_says_why(
    played: Played, b: Path
) -> None:
    assert restore(b, played.stick).returncode == 0
    url = embedded.ensure(b, redis=False).database_url
    with psycopg.connect(url, autocommit=True) as connection:
        connection.execute("CREATE TABLE the_database_before (value int)")
    embedded.stop(b)
    secrets = {name: (b / name).read_bytes() for name in ("secret_key", "vapid.json")}
    before = _names(b)
    bad = _bad_copy(played)
    try:
        # A setting PostgreSQL refuses at start, in the one file pg_verifybackup leaves unchecked.
        with (bad / "base" / "postgresql.auto.conf").open("a") as settings:
            settings.write("shared_buffers = 'plenty'\n")
        refused = restore(b, bad, "--force")
        assert refused.returncode == 1
        message = refused.stderr.strip()
        assert len(message.splitlines()) == 1, message  # one line, not PostgreSQL's log
        assert "PostgreSQL could not replay the copy" in message
        assert "postgresql.auto.conf" in message and "contains errors" in message
        assert f"The database that was in {b}/ is back in place." in message
        assert _names(b) == before  # nothing kept aside, nothing left of the restore
        assert {name: (b / name).read_bytes() for name in secrets} == secrets
        url = embedded.ensure(b, redis=False).database_url
        with psycopg.connect(url) as connection:
            assert connection.execute("SELECT count(*) FROM the_database_before").fetchone() == (0,)
    finally:
        shutil.rmtree(bad, ignore_errors=True)


def test_the_log_gathered_for_recovery_is_private(tmp_path: Path) -> None:
    copy = CopyFolder(tmp_path / "copy")
    copy.wal.mkdir(parents=True)
    (copy.wal / "000000010000000000000001").write_bytes(b"\1" * 1024)
    (copy.wal / "000000010000000000000002.partial").write_bytes(b"\1" * 100)
    wal = tmp_path / "restoring-wal"
    _gather_log(copy, wal, 1024)
    assert wal.stat().st_mode & 0o777 == 0o700
    assert {p.name: p.stat().st_mode & 0o777 for p in wal.iterdir()} == {
        "000000010000000000000001": 0o600,
        "000000010000000000000002": 0o600,
    }
    assert (wal / "000000010000000000000002").stat().st_size == 1024  # filled up with zeros


def test_a_segment_cut_short_before_the_last_is_refused(tmp_path: Path) -> None:
    copy = CopyFolder(tmp_path / "copy")
    copy.wal.mkdir(parents=True)
    (copy.wal / "000000010000000000000001").write_bytes(b"\1" * 100)
    (copy.wal / "000000010000000000000002.partial").write_bytes(b"\1" * 1024)
    with pytest.raises(CopyProblem, match="its log segment 000000010000000000000001 is 100 bytes"):
        _gather_log(copy, tmp_path / "restoring-wal", 1024)


@pytest.mark.skipif(os.geteuid() != 0, reason="only root runs PostgreSQL as another account")
def test_a_copy_restores_into_a_var_the_servers_account_cannot_enter(played: Played) -> None:
    """Root's checkout in a private folder: the restore works where the account reaches, and a
    database there is kept aside and put back as in var/ itself."""
    private = Path(tempfile.mkdtemp(prefix="syndicate-restore-private-"))  # 0700
    home = _folder("syndicate-server-home-")
    var = private / "var"
    env = {**_env(var), "SYNDICATE_SERVER_HOME": str(home)}

    def restore_here(*args: str) -> subprocess.CompletedProcess[str]:
        return subprocess.run(
            [sys.executable, "-m", "standby.restore", *args],
            env=env, cwd=ROOT, capture_output=True, text=True, timeout=600, check=False,
        )  # fmt: skip

    try:
        done = restore_here(str(played.stick))
        assert done.returncode == 0, done.stderr
        assert f"Events ({played.events}), every audit chain and signed head checked" in done.stdout
        link = var / "postgres"
        assert link.is_symlink() and link.resolve().is_relative_to(home / "data")
        subprocess.run(
            [sys.executable, "-m", "syndicate.embedded", "stop", "--var-dir", str(var)],
            env=env, check=True, capture_output=True,
        )  # fmt: skip
        forced = restore_here(str(played.stick), "--force")
        assert forced.returncode == 0, forced.stderr
        aside = [p for p in link.resolve().parent.iterdir() if "before-restore" in p.name]
        assert len(aside) == 1 and (aside[0] / "PG_VERSION").exists()
        assert not (link.resolve().parent / "restoring").exists()
    finally:
        embedded.stop(var)
        embedded.remove(var)
        shutil.rmtree(private, ignore_errors=True)
        shutil.rmtree(home, ignore_errors=True)
