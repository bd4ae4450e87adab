"""A standby copy's folder: a base backup and the write-ahead log streamed after it.

    syndicate-standby.json   what the copy is: the database's system identifier, PostgreSQL's
                             major version, where it was taken from, whether the base is whole
    base/                    `pg_basebackup` of the whole server (plain format, backup_manifest)
    wal/                     `pg_receivewal`: every segment since the base, the current one
                             as `<segment>.partial`
    snapshots/               `pg_dump` of the database at each event's start and finalization

A base backup is taken once per copy; from then on the log makes the copy whole up to the last
write the server flushed to it. This module imports no Django: `make restore` runs before there
is a database to configure Django with.
"""

from __future__ import annotations

import errno
import json
import os
import shutil
from dataclasses import asdict, dataclass, fields
from datetime import UTC, datetime
from pathlib import Path

MARKER = "syndicate-standby.json"
# A segment is 16 MiB and pg_receivewal fills a new one before writing to it: below this much free
# space the next segment cannot start.
SEGMENT = 16 * 1024 * 1024
# A marker is a few hundred bytes: a larger file is not one, and is not read whole.
MARKER_LIMIT = 64 * 1024


@dataclass(frozen=True)
class Marker:
    """What a copy folder holds, written when the copy starts and again when its base is whole."""

    system_identifier: str
    major_version: int
    source: str  # "this laptop's var/" or the address a second laptop pulls from
    slot: str
    started_at: str
    base_complete: bool = False


class CopyProblem(Exception):
    """A copy folder that cannot be written or restored; the message says why in plain words."""


@dataclass(frozen=True)
class CopyFolder:
    root: Path

    @property
    def marker_path(self) -> Path:
        return self.root / MARKER

    @property
    def base(self) -> Path:
        return self.root / "base"

    @property
    def wal(self) -> Path:
        return self.root / "wal"

    @property
    def snapshots(self) -> Path:
        return self.root / "snapshots"

    def marker(self) -> Marker | None:
        """The folder's marker, or None when it has none; a marker that is not one (any file a
        folder handed to `make restore` may hold) is refused in plain words."""
        try:
            if self.marker_path.stat().st_size > MARKER_LIMIT:
                raise CopyProblem(f"{self.marker_path} is too large to be a standby copy's marker.")
            text = self.marker_path.read_text()
        except FileNotFoundError:
            return None
        except (OSError, UnicodeDecodeError) as error:
            raise CopyProblem(f"{self.marker_path} cannot be read ({error}).") from None
        try:
            return parse_marker(text)
        except (ValueError, RecursionError) as error:
            # RecursionError: JSON nested deeper than the parser goes.
            reason = "it is nested too deeply" if isinstance(error, RecursionError) else error
            raise CopyProblem(
                f"{self.marker_path} is not a standby copy's marker ({reason})."
            ) from None

    def write_marker(self, marker: Marker) -> None:
        """Written to a temporary file and renamed, so a pulled stick never holds half of it."""
        temporary = self.marker_path.with_suffix(".tmp")
        with temporary.open("w") as handle:
            json.dump(asdict(marker), handle, indent=2)
            handle.flush()
            os.fsync(handle.fileno())
        temporary.replace(self.marker_path)
        _sync_folder(self.root)

    def create(self) -> str:
        """Make the folder on a keeper's first start (docs/decisions.md, "A standby folder that
        does not exist yet"): only when the folder above it is there, so a disk that is not
        plugged in is not replaced by a folder on this laptop's own disk. "" when it is there,
        else what to do, in plain words."""
        if self.root.exists():
            return ""
        if not self.root.parent.is_dir():
            return (
                f"The standby folder {self.root} does not exist, nor does {self.root.parent}: "
                f"plug in its disk, or create the folder (mkdir -p {self.root})."
            )
        try:
            # The copy holds password hashes and the night's secrets: its owner's alone.
            self.root.mkdir(mode=0o700)
        except FileExistsError:
            return ""
        except OSError as error:
            return plain_os_error(self.root, error)
        return ""

    def writable_problem(self) -> str:
        """Why a keeper cannot write this copy now, in plain words, or "" when it can."""
        if not self.root.exists():
            return f"The standby folder {self.root} is gone (removed, or its disk unplugged)."
        if not self.root.is_dir():
            return f"{self.root} is not a folder."
        probe = self.root / ".syndicate-write-check"
        try:
            with probe.open("w") as handle:
                handle.write("ok")
                handle.flush()
                os.fsync(handle.fileno())
            probe.unlink()
        except OSError as error:
            return plain_os_error(self.root, error)
        if shutil.disk_usage(self.root).free < 2 * SEGMENT:
            return f"The standby folder's disk is full ({self.root})."
        return ""

    def start_fresh(self, marker: Marker) -> None:
        """Empty the base and the log for a new copy of the server `marker` names."""
        for part in (self.base, self.wal):
            shutil.rmtree(part, ignore_errors=True)
        self.wal.mkdir(parents=True)
        self.write_marker(marker)

    def last_write_file(self) -> Path | None:
        """The newest segment of the log, complete or partial."""
        segments = sorted(
            (p for p in self.wal.glob("*") if is_segment(p.name)), key=lambda p: p.name
        )
        return segments[-1] if segments else None


def parse_marker(text: str) -> Marker:
    """A marker's fields, each of its type; ValueError says which one is not."""
    values = json.loads(text)
    if not isinstance(values, dict):
        raise ValueError("it is not an object of fields")
    expected = {field.name for field in fields(Marker)}
    unknown = sorted(set(values) - expected)
    if unknown:
        raise ValueError(f"unknown field {unknown[0]!r}")
    missing = sorted(expected - set(values) - {"base_complete"})
    if missing:
        raise ValueError(f"no {missing[0]!r}")
    for name in ("system_identifier", "source", "slot", "started_at"):
        if not isinstance(values[name], str):
            raise ValueError(f"{name!r} is not text")
    if not isinstance(values.get("base_complete", False), bool):
        raise ValueError("'base_complete' is not true or false")
    values["major_version"] = _major_version(values["major_version"])
    return Marker(**values)


def _major_version(value: object) -> int:
    """PostgreSQL's major version: a whole number, also when written as text ("18")."""
    if isinstance(value, str) and value.isascii() and value.isdigit() and len(value) <= 4:
        value = int(value)
    if isinstance(value, bool) or not isinstance(value, int) or not 1 <= value <= 9999:
        raise ValueError(f"'major_version' is not a PostgreSQL major version: {value!r}")
    return value


def is_segment(name: str) -> bool:
    """A write-ahead log segment's file name, complete or `.partial`."""
    stem = name.removesuffix(".partial")
    return len(stem) == 24 and all(c in "0123456789ABCDEF" for c in stem)


def plain_os_error(root: Path, error: OSError) -> str:
    """Why a folder cannot be written, in plain words."""
    if error.errno == errno.ENOSPC:
        return f"The standby folder's disk is full ({root})."
    if error.errno in (errno.EROFS, errno.EACCES, errno.EPERM):
        return f"The standby folder {root} is read-only."
    if error.errno == errno.ENOENT:
        return f"The standby folder {root} is gone (removed, or its disk unplugged)."
    return f"The standby folder {root} cannot be written: {error.strerror}."


def _sync_folder(path: Path) -> None:
    descriptor = os.open(path, os.O_RDONLY)
    try:
        os.fsync(descriptor)
    finally:
        os.close(descriptor)


def now_text() -> str:
    return datetime.now(UTC).isoformat(timespec="seconds")
