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
import json
import logging
import os
import subprocess
from dataclasses import asdict, dataclass
from datetime import UTC, datetime
from pathlib import Path
from typing import Literal

from django.conf import settings
from django.core.cache import cache
from django.db import connections

from events.models import Event
from live.protocol import send_to_group
from standby import state
from syndicate.embedded import EmbeddedError, postgres_bin

logger = logging.getLogger(__name__)

Step = Literal["started", "finalized"]
# The audit actions that call for a snapshot (docs/audit.md), and the step each names.
STEPS: dict[str, Step] = {"event_started": "started", "event_finalized": "finalized"}
FOLDER = "snapshots"
# A dump of a night's database takes seconds; one that takes longer than this is stuck.
DUMP_TIMEOUT = 600
# What a readable dump lists: the events' table and the audit's, with their rows.
EXPECTED = ("TABLE DATA public events_event ", "TABLE DATA public audit_auditentry ")


# The last snapshot taken or attempted, for House's panel (house.copies): kept in the cache with
# the copies' state (standby.state), as long.
LAST_KEY = "standby:snapshot"


@dataclass(frozen=True, slots=True)
class Snapshot:
    """What one attempt left: the file, or why there is none."""

    path: Path | None
    problem: str = ""


@dataclass(frozen=True, slots=True)
class LastSnapshot:
    """The last snapshot as House reads it: which event and step, when, and the file or why not."""

    event_name: str
    time_zone: str
    step: Step
    taken_at: datetime
    file: str  # the file's name in snapshots/, "" when there is none
    problem: str
    folder: str  # the standby folder it went to (or would have)


def last() -> LastSnapshot | None:
    """The last snapshot into this run's standby folder: one that went to another folder (the
    last `make run`'s STANDBY_DIR, or none now) is not this night's to show."""
    stored = cache.get(LAST_KEY)
    if not stored:
        return None
    fields = json.loads(stored)
    if fields.get("folder") != _standby_folder():
        return None
    fields["taken_at"] = datetime.fromisoformat(fields["taken_at"])
    return LastSnapshot(**fields)


def _standby_folder() -> str:
    configured = settings.STANDBY_DIR
    return str(Path(configured).expanduser().resolve()) if configured else ""


def take(*, event_id: int, step: Step, now: datetime | None = None) -> Snapshot:
    """Dump the database into the standby folder's snapshots, checked; never raises for the
    folder or the dump (the answer says what went wrong, and the log too). House's pages are
    told either way."""
    moment = (now or datetime.now(UTC)).astimezone(UTC)
    taken = _take(event_id, step, moment)
    _tell(event_id, step, moment, taken)
    return taken


def _take(event_id: int, step: Step, moment: datetime) -> Snapshot:
    standby = Path(settings.STANDBY_DIR)
    name = f"{moment:%Y%m%dT%H%M%SZ}-event-{event_id}-{step}.dump"
    folder = standby / FOLDER
    partial = folder / f".{name}.partial"
    try:
        if not standby.is_dir():
            return _failed(event_id, step, f"the standby folder {standby} is not there")
        folder.mkdir(mode=0o700, exist_ok=True)
        problem = _dump(partial)
        if problem:
            return _failed(event_id, step, problem, partial)
        # The whole database, password hashes and face-down cards included: its owner's alone.
        partial.chmod(0o600)
        problem = check(partial)
        if problem:
            return _failed(event_id, step, problem, partial)
        _flush(partial)
        path = folder / name
        partial.rename(path)
        _flush(folder)
    except OSError as error:
        return _failed(event_id, step, _plain(error, folder), partial)
    except EmbeddedError:
        # The production image has no PostgreSQL programs; its copy is the `standby` service.
        return _failed(event_id, step, "PostgreSQL's programs (pg_dump) are not installed", partial)
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


def _tell(event_id: int, step: Step, moment: datetime, taken: Snapshot) -> None:
    """Keep the attempt for House's panel and tell House's open pages (`standby.state`'s group)."""
    event = Event.objects.filter(pk=event_id).values_list("name", "time_zone").first()
    name, time_zone = event if event is not None else (f"Event {event_id}", "UTC")
    seen = LastSnapshot(
        event_name=name,
        time_zone=time_zone,
        step=step,
        taken_at=moment,
        file=taken.path.name if taken.path is not None else "",
        problem=taken.problem,
        folder=_standby_folder(),
    )
    fields = asdict(seen)
    fields["taken_at"] = moment.isoformat()
    cache.set(LAST_KEY, json.dumps(fields), state.EXPIRES)
    try:
        send_to_group(state.GROUP, {"type": state.MESSAGE_TYPE})
    except Exception:
        # The snapshot is kept either way; House's pages show it at their next load.
        logger.exception("Could not tell House's pages about the snapshot of event %s.", event_id)


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
