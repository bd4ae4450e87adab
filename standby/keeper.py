"""The keeper of the night's standby copies, run by `make run` beside the server
(docs/decisions.md, "The night survives its laptop").

With STANDBY_DIR it keeps the copy in that folder: a replication slot on the server, then
`pg_receivewal` streaming the write-ahead log into the folder and, once, a `pg_basebackup`. With
STANDBY_ALLOW it also watches the second laptop that pulls with `make standby`.

Commits wait for a copy (synchronous replication, `ANY 1` of the copies in step): a write House
or a player was told is saved is then in two places. A copy that stops answering must not stop
the night, so the keeper takes it out of the waiting set within about a second and a half of a
commit waiting for it (or at once when its receiver exits or its folder goes), tells House it is
lost, and tries again every few seconds; a copy that comes back streams what it missed from the
slot and rejoins the waiting set once in step.

The keeper talks to the server as its superuser (DATABASE_URL of the embedded server) and to
House through `standby.state`.
"""

from __future__ import annotations

import ctypes
import os
import shutil
import signal
import subprocess
import time
from collections.abc import Callable, Iterator
from contextlib import contextmanager, suppress
from dataclasses import dataclass, field, replace
from datetime import UTC, datetime
from pathlib import Path
from typing import Any, Protocol
from urllib.parse import unquote, urlsplit

import psycopg

from standby.folder import CopyFolder, CopyProblem, Marker, now_text, plain_os_error

# The application names the server knows the copies by, and their slots.
FOLDER = "syndicate_folder"
LAPTOP = "syndicate_laptop"
# The suffix of a copy's name on the server while its base backup is taken.
STARTING = "_starting"
# A commit waiting longer than this for a copy takes every lagging copy out of the waiting set.
WAIT_LIMIT = 1.5
# How often a lost copy is tried again.
RETRY_EVERY = 3.0
TICK = 0.25
# The log a slot may hold for a copy that went away before the server lets it go: the laptop's
# own disk matters more than a copy that left.
SLOT_KEEP = "8GB"


@dataclass(frozen=True)
class Connection:
    """Where the server is and who the keeper connects as: for the programs, as libpq wants it."""

    host: str
    port: int
    user: str
    password: str
    dbname: str

    @classmethod
    def from_url(cls, url: str) -> Connection:
        parts = urlsplit(url)
        return cls(
            host=parts.hostname or "127.0.0.1",
            port=parts.port or 5432,
            user=unquote(parts.username or "postgres"),
            password=unquote(parts.password or ""),
            dbname=parts.path.lstrip("/") or "postgres",
        )

    def conninfo(self, application_name: str = "syndicate_keeper", **extra: str) -> str:
        fields = {
            "host": self.host,
            "port": str(self.port),
            "user": self.user,
            "dbname": self.dbname,
            "application_name": application_name,
            **extra,
        }
        return " ".join(f"{key}='{value}'" for key, value in fields.items())

    def environment(self) -> dict[str, str]:
        """The password travels in the environment, not on a command line others can read."""
        return {**os.environ, "PGPASSWORD": self.password, "LC_ALL": "C", "LANG": "C"}


def program(name: str) -> str:
    from syndicate.embedded import postgres_bin

    return str(postgres_bin() / name)


@dataclass
class Seen:
    """One copy as the server sees it: streaming, and how far its flushed log is behind."""

    name: str
    address: str
    streaming: bool
    caught_up: bool


@dataclass
class FolderCopy:
    """The copy in STANDBY_DIR: the slot, the receiver, and a base backup when it has none."""

    folder: CopyFolder
    connection: Connection
    logs: Path
    application: str = FOLDER  # the copy's name on the server, and its slot's
    source: str = "make run on this laptop"
    # The receiver and the base backup end with the process that started them, even killed -9
    # (`make standby`: a leftover receiver would hold the slot against the next `make standby`).
    # `make run`'s own keeper leaves them running: its receiver goes on streaming, so commits go
    # on, until `make run` starts the keeper again and it takes the slot back.
    dies_with_keeper: bool = False
    receiver: subprocess.Popen[bytes] | None = None
    base: subprocess.Popen[bytes] | None = None
    problem: str = ""
    retry_at: float = 0.0
    folder_id: tuple[int, int] | None = None  # (device, inode) of the folder while it streams
    # Until its first start the folder may not exist yet: it is created then, never later (a
    # folder that went away is a stick pulled, not one to make again on this laptop's disk).
    started_once: bool = False

    @property
    def receiver_log(self) -> Path:
        return self.logs / "standby-receiver.log"

    @property
    def base_log(self) -> Path:
        return self.logs / "standby-base.log"

    def step(self, server: Source) -> None:
        """Start what is missing, notice what failed."""
        if self.receiver is not None:
            gone = self._streaming_problem()
            if gone:
                self.lose(gone)
            elif self.base is not None and self.base.poll() is not None:
                self._base_finished()
            return
        if time.monotonic() < self.retry_at:
            return
        problem = "" if self.started_once else self.folder.create()
        problem = problem or self.folder.writable_problem()
        if problem:
            self.lose(problem)
            return
        try:
            self._start(server)
        except CopyProblem as error:
            self.lose(str(error))

    def _start(self, server: Source) -> None:
        marker = self.folder.marker()
        ours = server.identity()
        if marker is not None and marker.system_identifier != ours.system_identifier:
            raise CopyProblem(
                f"The standby folder {self.folder.root} holds a copy of another database: "
                "choose an empty folder, or empty this one."
            )
        if marker is None and any(
            p.name not in {"lost+found"} and not p.name.startswith(".")
            for p in self.folder.root.iterdir()
        ):
            raise CopyProblem(
                f"The standby folder {self.folder.root} is not empty and holds no standby copy: "
                "choose an empty folder."
            )
        server.release_slot(self.application)
        fresh = marker is None or not marker.base_complete or not server.has_slot(self.application)
        if fresh:
            server.recreate_slot(self.application)
            self.folder.start_fresh(
                Marker(
                    system_identifier=ours.system_identifier,
                    major_version=ours.major_version,
                    source=self.source,
                    slot=self.application,
                    started_at=now_text(),
                )
            )
        self.folder.wal.mkdir(exist_ok=True)
        self.folder_id = _identity(self.folder.root)
        self.started_once = True
        self._receive(starting=fresh)
        if fresh:
            shutil.rmtree(self.folder.root / "base.partial", ignore_errors=True)
            self.base = _spawn(
                [
                    program("pg_basebackup"),
                    "-D",
                    str(self.folder.root / "base.partial"),
                    "-d",
                    self.connection.conninfo("syndicate_base_backup"),
                    # The base carries the log it needs to be consistent; the receiver's log,
                    # started before it, carries everything after.
                    "-X",
                    "stream",
                    "--checkpoint=fast",
                    "--no-password",
                ],
                self.base_log,
                self.connection.environment(),
                self.dies_with_keeper,
            )
        self.problem = ""

    def _receive(self, *, starting: bool) -> None:
        """Stream the log into the folder through the slot. Until the base is whole the server
        knows the copy as `<name>_starting`, so no commit waits for a copy that cannot be
        restored yet."""
        name = f"{self.application}{STARTING}" if starting else self.application
        self.receiver = _spawn(
            [
                program("pg_receivewal"),
                "-D",
                str(self.folder.wal),
                "-d",
                self.connection.conninfo(name),
                "--slot",
                self.application,
                "--synchronous",
                "--status-interval=1",  # House learns within a second that it is in step
                "--no-loop",
                "--no-password",
            ],
            self.receiver_log,
            self.connection.environment(),
            self.dies_with_keeper,
        )

    def _base_finished(self) -> None:
        assert self.base is not None
        code, self.base = self.base.returncode, None
        if code != 0:
            self.lose(
                f"The base backup into {self.folder.root} failed: {_last_line(self.base_log)}"
            )
            return
        try:
            (self.folder.root / "base.partial").replace(self.folder.base)
            marker = self.folder.marker()
            assert marker is not None
            self.folder.write_marker(replace(marker, base_complete=True))
        except OSError as error:
            self.lose(plain_os_error(self.folder.root, error))
            return
        # The same slot under the copy's own name: the log goes on from where it stopped.
        assert self.receiver is not None
        self.receiver.terminate()
        self.receiver.wait()
        self._receive(starting=False)

    @property
    def complete(self) -> bool:
        """The copy can be restored: its base is whole and its log reaches past it."""
        if self.receiver is None or self.base is not None:
            return False
        try:
            marker = self.folder.marker()
        except CopyProblem:
            return False
        return marker is not None and marker.base_complete

    def _streaming_problem(self) -> str:
        assert self.receiver is not None
        if _identity(self.folder.root) != self.folder_id:
            return (
                f"The standby folder {self.folder.root} is gone (removed, or its disk unplugged)."
            )
        if self.receiver.poll() is not None:
            problem = self.folder.writable_problem()
            if problem:
                return problem
            if self.receiver.returncode < 0:
                return "Streaming to the standby folder stopped: its receiver was ended."
            return f"Streaming to the standby folder stopped: {_last_line(self.receiver_log)}"
        return ""

    def lose(self, problem: str) -> None:
        """Stop writing to the folder and try again later."""
        for process in (self.receiver, self.base):
            if process is not None and process.poll() is None:
                process.kill()
                process.wait()
        self.receiver, self.base = None, None
        self.problem = problem
        self.retry_at = time.monotonic() + RETRY_EVERY

    def stop(self) -> None:
        for process in (self.receiver, self.base):
            if process is not None and process.poll() is None:
                process.send_signal(signal.SIGTERM)
        for process in (self.receiver, self.base):
            if process is not None:
                try:
                    process.wait(timeout=10)
                except subprocess.TimeoutExpired:
                    process.kill()


@dataclass(frozen=True)
class Identity:
    system_identifier: str
    major_version: int


class Source(Protocol):
    """The server a copy is taken from, as the copy needs it."""

    def identity(self) -> Identity: ...

    def has_slot(self, name: str) -> bool: ...

    def release_slot(self, name: str) -> None: ...

    def recreate_slot(self, name: str) -> None: ...


class Server:
    """The keeper's connection to the server, in autocommit: ALTER SYSTEM needs it."""

    def __init__(self, connection: Connection) -> None:
        self.connection = connection
        self._db: psycopg.Connection[Any] | None = None

    @property
    def db(self) -> psycopg.Connection[Any]:
        if self._db is None or self._db.closed:
            self._db = psycopg.connect(
                self.connection.conninfo(), password=self.connection.password, autocommit=True
            )
        return self._db

    def close(self) -> None:
        if self._db is not None:
            self._db.close()

    def one(self, sql: str, *params: Any) -> Any:
        row = self.db.execute(sql, params).fetchone()
        return None if row is None else row[0]

    def identity(self) -> Identity:
        system = self.one("SELECT system_identifier::text FROM pg_control_system()")
        version = int(self.one("SHOW server_version_num")) // 10000
        return Identity(system, version)

    def has_slot(self, name: str) -> bool:
        return bool(
            self.one("SELECT count(*) FROM pg_replication_slots WHERE slot_name = %s", name)
        )

    def release_slot(self, name: str) -> None:
        """End a receiver still streaming through the slot (one left by a keeper that was killed),
        so that this keeper's own receiver can take it."""
        self.db.execute(
            "SELECT pg_terminate_backend(active_pid) FROM pg_replication_slots"
            " WHERE slot_name = %s AND active",
            (name,),
        )
        deadline = time.monotonic() + 10
        while time.monotonic() < deadline and self.one(
            "SELECT count(*) FROM pg_replication_slots WHERE slot_name = %s AND active", name
        ):
            time.sleep(0.05)

    def recreate_slot(self, name: str) -> None:
        """A slot that holds the log from now on, for a new copy."""
        if self.has_slot(name):
            self.db.execute("SELECT pg_drop_replication_slot(%s)", (name,))
        self.db.execute("SELECT pg_create_physical_replication_slot(%s, true)", (name,))

    def copies(self) -> list[Seen]:
        rows = self.db.execute(
            """SELECT application_name, coalesce(host(client_addr), ''), state,
                      flush_lsn >= pg_current_wal_flush_lsn()
                 FROM pg_stat_replication
                WHERE application_name IN (%s, %s, %s)""",
            (FOLDER, LAPTOP, LAPTOP + STARTING),
        ).fetchall()
        return [
            Seen(name, address, state == "streaming", bool(up)) for name, address, state, up in rows
        ]

    def commits_waiting(self) -> bool:
        """A commit has waited for a copy longer than WAIT_LIMIT."""
        return bool(
            self.one(
                """SELECT count(*) FROM pg_stat_activity
                    WHERE wait_event = 'SyncRep'
                      AND clock_timestamp() - state_change > make_interval(secs => %s)""",
                WAIT_LIMIT,
            )
        )

    def waiting_for(self) -> str:
        return str(self.one("SHOW synchronous_standby_names"))

    def wait_for(self, names: list[str]) -> None:
        """Commits wait for any one of `names` (none: they wait for no copy)."""
        value = "ANY 1 (" + ", ".join(f'"{name}"' for name in names) + ")" if names else ""
        if value == self.waiting_for():
            return
        self.db.execute(f"ALTER SYSTEM SET synchronous_standby_names = '{value}'")
        self.db.execute("SELECT pg_reload_conf()")
        # The reload is asynchronous: wait until this session sees it, so the caller's next look
        # at the waiting commits is not fooled by the old value.
        deadline = time.monotonic() + 5
        while self.waiting_for() != value and time.monotonic() < deadline:
            time.sleep(0.02)

    def prepare(self) -> None:
        self.db.execute(f"ALTER SYSTEM SET max_slot_wal_keep_size = '{SLOT_KEEP}'")
        self.db.execute("SELECT pg_reload_conf()")


@dataclass
class Keeper:
    """One pass every TICK: start and watch the copies, choose which ones commits wait for."""

    server: Server
    folder: FolderCopy | None
    watch_laptop: bool
    report: Callable[[str, str, str, bool, float | None, str], None]
    in_step_since: dict[str, float] = field(default_factory=dict)
    last_in_step: dict[str, float] = field(default_factory=dict)
    laptop_address: str = ""
    synchronous: set[str] = field(default_factory=set)
    last_report: float = 0.0

    def step(self) -> None:
        if self.folder is not None:
            self.folder.step(self.server)
        seen = {copy.name: copy for copy in self.server.copies()}
        now = time.monotonic()
        for name, copy in seen.items():
            if copy.streaming and copy.caught_up and self._usable(name):
                self.last_in_step[name] = now
        # Out of the waiting set: a copy that is no longer streaming, or one commits wait for.
        keep = {
            name
            for name in self.synchronous
            if name in seen and seen[name].streaming and self._usable(name)
        }
        if keep and self.server.commits_waiting():
            keep = set()
        # Into it: a copy streaming and caught up.
        for name, copy in seen.items():
            if copy.streaming and copy.caught_up and self._usable(name):
                keep.add(name)
        if keep != self.synchronous or (not keep and self.server.waiting_for()):
            self.server.wait_for(sorted(keep))
            self.synchronous = keep
        self._report(seen, now)

    def _usable(self, name: str) -> bool:
        """A copy commits may wait for: one whose base is whole (a copy still taking it streams
        under its `_starting` name), the laptop's only when second laptops are allowed."""
        if name == FOLDER:
            return self.folder is not None and self.folder.complete
        return name == LAPTOP and self.watch_laptop

    def _report(self, seen: dict[str, Seen], now: float) -> None:
        if self.folder is not None:
            where = str(self.folder.folder.root)
            if self.folder.problem:
                self.report(
                    "folder", where, "lost", False, self._behind(FOLDER, now), self.folder.problem
                )
            elif not self.folder.complete:
                self.report("folder", where, "starting", False, None, "Taking the base backup.")
            elif FOLDER not in seen:
                # Its receiver runs but has not reached the server yet (it was just started
                # again): the folder's own problems are the ones that make it lost.
                behind = self._behind(FOLDER, now)
                self.report("folder", where, "behind", False, behind, "Reconnecting.")
            else:
                self._report_seen("folder", where, seen.get(FOLDER), FOLDER, now)
        if self.watch_laptop:
            copy, starting = seen.get(LAPTOP), seen.get(LAPTOP + STARTING)
            if copy is not None or starting is not None:
                self.laptop_address = (copy or starting).address  # type: ignore[union-attr]
            if starting is not None and copy is None:
                where = self.laptop_address
                self.report("laptop", where, "starting", False, None, "Taking the base backup.")
            elif copy is not None or self.laptop_address:
                self._report_seen("laptop", self.laptop_address, copy, LAPTOP, now)

    def _report_seen(self, name: str, where: str, copy: Seen | None, app: str, now: float) -> None:
        synchronous = app in self.synchronous
        if copy is None or not copy.streaming:
            reason = (
                "The second laptop stopped pulling."
                if app == LAPTOP
                else "Streaming to the standby folder stopped."
            )
            self.report(name, where, "lost", False, self._behind(app, now), reason)
        elif copy.caught_up and synchronous:
            self.report(name, where, "in_step", True, None, "")
        else:
            self.report(name, where, "behind", synchronous, self._behind(app, now), "Catching up.")

    def _behind(self, app: str, now: float) -> float | None:
        last = self.last_in_step.get(app)
        return None if last is None else now - last

    def stop(self) -> None:
        if self.folder is not None:
            self.folder.stop()
        with suppress(psycopg.Error):
            self.server.wait_for([])
        self.server.close()


def _spawn(
    argv: list[str], log: Path, env: dict[str, str], dies_with_parent: bool
) -> subprocess.Popen[bytes]:
    with log.open("ab") as handle:
        handle.write(f"--- {now_text()} {Path(argv[0]).name}\n".encode())
        handle.flush()
        return subprocess.Popen(
            argv,
            stdout=handle,
            stderr=subprocess.STDOUT,
            stdin=subprocess.DEVNULL,
            env=env,
            preexec_fn=_die_with_parent if dies_with_parent else None,
        )


PR_SET_PDEATHSIG = 1


def _die_with_parent() -> None:
    """In the child before exec: SIGTERM when the process that started it dies, even by SIGKILL."""
    ctypes.CDLL(None, use_errno=True).prctl(PR_SET_PDEATHSIG, signal.SIGTERM)


def _last_line(log: Path) -> str:
    try:
        lines = [line for line in log.read_text(errors="replace").splitlines() if line.strip()]
    except OSError:
        return "no log"
    return lines[-1].split(": ", 1)[-1] if lines else "no log"


def _identity(path: Path) -> tuple[int, int] | None:
    try:
        status = path.stat()
    except OSError:
        return None
    return status.st_dev, status.st_ino


@contextmanager
def running(keeper: Keeper) -> Iterator[Keeper]:
    try:
        yield keeper
    finally:
        keeper.stop()


def reporter() -> Callable[[str, str, str, bool, float | None, str], None]:
    """House is told through `standby.state` (needs Django's settings)."""
    from standby import state

    def report(
        name: str, where: str, status: str, synchronous: bool, behind: float | None, reason: str
    ) -> None:
        state.publish(
            state.Copy(name, where, status, synchronous, behind, reason, datetime.now(UTC))  # type: ignore[arg-type]
        )

    return report
