"""`make standby PRIMARY=<address>:<port>`: a second laptop keeps a standby copy
of the night by pulling from the laptop that runs it (docs/reliability.md, "A second laptop").

The copy is the same kind as `make run`'s STANDBY_DIR folder: a base backup and the log streamed
after it, through the replication slot `syndicate_laptop` on the first laptop. The first laptop's
keeper has commits wait for this copy while it is in step, and tells House how it goes. One
second laptop at a time: another one is refused while the slot is in use.

This module imports no Django: the second laptop needs no database of its own until House
switches to it (`make restore FROM=<its folder>`).
"""

from __future__ import annotations

import argparse
import getpass
import os
import signal
import sys
import time
from pathlib import Path

import psycopg
from psycopg import pq
from psycopg.pq import abc as pq_abc

from standby.folder import CopyFolder, CopyProblem
from standby.keeper import LAPTOP, Connection, FolderCopy, Identity

# The account `make run` creates for second laptops (syndicate/embedded.py, allow_standby).
ROLE = "syndicate_standby"
TICK = 0.5


class Primary:
    """The first laptop's server, as a replication account sees it: no SQL, only the replication
    protocol's commands."""

    def __init__(self, connection: Connection) -> None:
        self.connection = connection

    def _run(self, command: str) -> pq_abc.PGresult:
        info = self.connection.conninfo("syndicate_laptop_setup", replication="true")
        connection = pq.PGconn.connect(
            f"{info} password='{self.connection.password}' connect_timeout='10'".encode()
        )
        try:
            if connection.status != pq.ConnStatus.OK:
                raise CopyProblem(_plain(connection.error_message.decode(errors="replace")))
            result = connection.exec_(command.encode())
            if result.status not in (pq.ExecStatus.TUPLES_OK, pq.ExecStatus.COMMAND_OK):
                raise CopyProblem(_plain(result.error_message.decode(errors="replace")))
            return result
        finally:
            connection.finish()

    def identity(self) -> Identity:
        result = self._run("IDENTIFY_SYSTEM")
        system = (result.get_value(0, 0) or b"").decode()
        info = self.connection.conninfo("syndicate_laptop_setup", replication="true")
        connection = pq.PGconn.connect(f"{info} password='{self.connection.password}'".encode())
        try:
            version = connection.server_version // 10000
        finally:
            connection.finish()
        return Identity(system, version)

    def has_slot(self, name: str) -> bool:
        return self._run(f"READ_REPLICATION_SLOT {name}").get_value(0, 0) is not None

    def release_slot(self, name: str) -> None:
        """A slot in use is another laptop's: this one does not take it over."""

    def recreate_slot(self, name: str) -> None:
        if self.has_slot(name):
            self._run(f"DROP_REPLICATION_SLOT {name}")
        self._run(f"CREATE_REPLICATION_SLOT {name} PHYSICAL RESERVE_WAL")


def _plain(message: str) -> str:
    text = " ".join(message.split())
    if "is active for PID" in text:
        return (
            "Another laptop already keeps a standby copy of this night (its replication slot is "
            "in use): only one second laptop pulls at a time."
        )
    if "password authentication failed" in text:
        return "The first laptop refused the password: copy it from what `make run` printed."
    if "no pg_hba.conf entry" in text:
        return (
            "The first laptop does not allow this address: start it with STANDBY_ALLOW naming "
            "this laptop's address (or its network)."
        )
    if "Connection refused" in text or "timeout expired" in text:
        return "The first laptop does not answer at that address and port."
    return text


def follow(primary: str, password: str, folder: CopyFolder, logs: Path) -> int:
    host, _, port = primary.rpartition(":")
    if not host or not port.isdigit():
        print("PRIMARY is <address>:<port>, as `make run` printed it.", file=sys.stderr)
        return 2
    connection = Connection(host.strip("[]"), int(port), ROLE, password, "postgres")
    source = Primary(connection)
    copy = FolderCopy(
        folder, connection, logs, application=LAPTOP, source=primary, dies_with_keeper=True
    )
    try:
        source.identity()
    except CopyProblem as error:
        print(f"make standby: {error}", file=sys.stderr)
        return 1
    folder.root.mkdir(mode=0o700, parents=True, exist_ok=True)  # it holds the secrets too
    shown = ""
    try:
        while True:
            copy.step(source)
            if "is active for PID" in copy.problem or "only one second laptop" in copy.problem:
                print(f"make standby: {_plain(copy.problem)}", file=sys.stderr)
                return 1
            line = (
                f"LOST: {copy.problem} Trying again."
                if copy.problem
                else "in step with the first laptop"
                if copy.complete
                else "starting: taking the base backup"
            )
            if line != shown:
                shown = line
                print(f"Standby copy of {primary} in {folder.root}: {line}", flush=True)
            time.sleep(TICK)
    except KeyboardInterrupt:
        print("\nStopped. `make restore FROM=" + str(folder.root) + "` goes on with the night.")
        return 0
    finally:
        copy.stop()


def _password(path: Path | None) -> str:
    """The password `make run` printed, never from the command line, which every account on the
    laptop can read in the process list for the whole night: STANDBY_PASSWORD in the
    environment, else the file given, else typed when asked."""
    password = os.environ.get("STANDBY_PASSWORD", "")
    if not password and path is not None:
        try:
            password = path.expanduser().read_text().strip()
        except (OSError, UnicodeDecodeError) as error:
            raise CopyProblem(f"the password file {path} cannot be read ({error}).") from None
        if not password:
            raise CopyProblem(f"the password file {path} is empty.")
    if not password and sys.stdin.isatty():
        password = getpass.getpass("The password `make run` printed on the first laptop: ").strip()
    if not password:
        raise CopyProblem(
            "the password `make run` printed on the first laptop is needed: type it when asked, "
            "or give PASSWORD_FILE=<a file holding it>."
        )
    return password


def main(argv: list[str] | None = None) -> int:
    parser = argparse.ArgumentParser(
        prog="make standby PRIMARY=<address>:<port> [PASSWORD_FILE=<file>]",
        description="Keep a standby copy of the night that another laptop runs.",
    )
    parser.add_argument("primary", help="<address>:<port>, as `make run` printed it")
    parser.add_argument("--dir", type=Path, default=None, help="default: var/standby-copy")
    parser.add_argument(
        "--password-file", type=Path, default=None, help="a file holding the password"
    )
    args = parser.parse_args(argv)
    signal.signal(signal.SIGTERM, signal.default_int_handler)  # stopped like Ctrl-C
    try:
        password = _password(args.password_file)
    except CopyProblem as error:
        print(f"make standby: {error}", file=sys.stderr)
        return 2
    from syndicate.embedded import default_root

    logs = default_root()
    logs.mkdir(parents=True, exist_ok=True)
    root = (args.dir or logs / "standby-copy").expanduser().resolve()
    return follow(args.primary, password, CopyFolder(root), logs)


if __name__ == "__main__":
    try:
        sys.exit(main())
    except psycopg.Error as error:
        print(f"make standby: {error}", file=sys.stderr)
        sys.exit(1)
