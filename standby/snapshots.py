"""Snapshots at each step of the night (docs/reliability.md, "Snapshots").

When an event starts and when it is finalized, a `pg_dump` of the whole database goes into the
standby folder's `snapshots/`, as `<UTC time>-event-<id>-<started|finalized>.dump`: written under
a temporary name, checked with `pg_restore --list`, then renamed, so a file with a final name is
always a whole, readable dump. The live copy follows the night to its last write; a snapshot keeps
the state at one step of it, to be opened read-only into a scratch database if ever needed.

A snapshot that cannot be taken (the folder is gone, full or read-only, or the dump does not read
back) is logged in plain words and leaves nothing behind; the event it follows was committed
before and is never failed by it.
"""

from __future__ import annotations

import contextlib
import errno
import logging
import os
import subprocess
from dataclasses import dataclass
from datetime import UTC, datetime
from pathlib import Path
from typing import Literal

from django.conf import settings
from django.db import connections

from syndicate.embedded import postgres_bin

logger = logging.getLogger(__name__)

Step = Literal["started", "finalized"]
# The audit actions that call for a snapshot (docs/audit.md), and the step each names.
STEPS: dict[str, Step] = {"event_started": "started", "event_finalized": "finalized"}
FOLDER = "snapshots"
# A dump of a night's database takes seconds; one that takes longer than this is stuck.
DUMP_TIMEOUT = 600
# What a readable dump lists: the events' table and the audit's, with their rows.
EXPECTED = ("TABLE DATA public events_event ", "TABLE DATA public audit_auditentry ")


@dataclass(frozen=True, slots=True)
class Snapshot:
    """What one attempt left: the file, or why there is none."""

    path: Path | None
    problem: str = ""


def take(*, event_id: int, step: Step, now: datetime | None = None) -> Snapshot:
    """Dump the database into the standby folder's snapshots, checked; never raises for the
    folder or the dump (the answer says what went wrong, and the log too)."""
    standby = Path(settings.STANDBY_DIR)
    moment = (now or datetime.now(UTC)).astimezone(UTC)
    name = f"{moment:%Y%m%dT%H%M%SZ}-event-{event_id}-{step}.dump"
    folder = standby / FOLDER
    partial = folder / f".{name}.partial"
    try:
        if not standby.is_dir():
            return _failed(event_id, step, f"the standby folder {standby} is not there")
        folder.mkdir(exist_ok=True)
        problem = _dump(partial)
        if problem:
            return _failed(event_id, step, problem, partial)
        problem = check(partial)
        if problem:
            return _failed(event_id, step, problem, partial)
        _flush(partial)
        path = folder / name
        partial.rename(path)
        _flush(folder)
    except OSError as error:
        return _failed(event_id, step, _plain(error, folder), partial)
    logger.info("Snapshot of event %s (%s) written to %s.", event_id, step, path)
    return Snapshot(path)


def check(path: Path) -> str:
    """ "" when `pg_restore --list` reads the dump whole and it holds the events and the audit,
    else what is wrong with it."""
    listed = subprocess.run(
        [str(postgres_bin() / "pg_restore"), "--list", str(path)],
        capture_output=True,
        text=True,
        timeout=DUMP_TIMEOUT,
        check=False,
    )
    if listed.returncode != 0:
        return f"pg_restore cannot read the dump ({_first_line(listed.stderr)})"
    missing = [entry.split()[-1] for entry in EXPECTED if entry not in listed.stdout]
    if missing:
        return f"the dump lists no rows of {', '.join(missing)}"
    return ""


def _dump(path: Path) -> str:
    """Run pg_dump (custom format) into `path`; "" when it succeeded, else why not."""
    database = connections["default"].settings_dict
    conninfo = {
        "dbname": database["NAME"],
        "host": database.get("HOST") or "",
        "port": str(database.get("PORT") or ""),
        "user": database.get("USER") or "",
    }
    env = {**os.environ, "PGCONNECT_TIMEOUT": "10"}
    if database.get("PASSWORD"):
        env["PGPASSWORD"] = str(database["PASSWORD"])
    sslmode = (database.get("OPTIONS") or {}).get("sslmode")
    if sslmode:
        env["PGSSLMODE"] = str(sslmode)
    dsn = " ".join(f"{key}={_quoted(value)}" for key, value in conninfo.items() if value)
    done = subprocess.run(
        [
            str(postgres_bin() / "pg_dump"),
            "--format=custom",
            "--no-password",
            f"--file={path}",
            f"--dbname={dsn}",
        ],
        capture_output=True,
        text=True,
        env=env,
        timeout=DUMP_TIMEOUT,
        check=False,
    )
    if done.returncode == 0:
        return ""
    if "No space left on device" in done.stderr:
        return f"the disk of {path.parent} is full"
    if "Read-only file system" in done.stderr:
        return f"{path.parent} is read-only"
    return f"pg_dump failed ({_first_line(done.stderr)})"


def _quoted(value: str) -> str:
    escaped = value.replace("\\", "\\\\").replace("'", "\\'")
    return f"'{escaped}'"


def _first_line(text: str) -> str:
    lines = [line.strip() for line in text.splitlines() if line.strip()]
    return lines[0] if lines else "no message"


def _flush(path: Path) -> None:
    """Make the file (or a folder's entries) durable before it is relied on."""
    fd = os.open(path, os.O_RDONLY)
    try:
        os.fsync(fd)
    finally:
        os.close(fd)


def _plain(error: OSError, folder: Path) -> str:
    if error.errno == errno.ENOSPC:
        return f"the disk of {folder} is full"
    if error.errno == errno.EROFS:
        return f"{folder} is read-only"
    if error.errno in (errno.EACCES, errno.EPERM):
        return f"{folder} cannot be written to (no permission)"
    if error.errno == errno.ENOENT:
        return f"{folder} was removed"
    return f"{folder}: {error.strerror or error}"


def _failed(event_id: int, step: Step, problem: str, partial: Path | None = None) -> Snapshot:
    if partial is not None:
        # The folder may have gone away or turned read-only: then there is nothing to clean.
        with contextlib.suppress(OSError):
            partial.unlink(missing_ok=True)
    logger.warning(
        "No snapshot of event %s (%s): %s. The event goes on; the live copy is unaffected.",
        event_id,
        step,
        problem,
    )
    return Snapshot(None, problem)
