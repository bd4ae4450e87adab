"""The standby copies' state, as House sees it (docs/decisions.md, "The night survives its laptop").

Each copy of the night (the standby folder of `make run`, the second laptop of `make standby`) is
watched by its keeper (`standby.keeper`), which writes what it finds here every few seconds and
whenever it changes. House's dashboard and Tonight read `copies()`; a copy whose keeper stopped
reporting reads as lost. Kept in the cache (Redis): it describes this machine's processes, not
the night's data, so it is not in the database and not in the audit.
"""

from __future__ import annotations

import json
from dataclasses import asdict, dataclass
from datetime import UTC, datetime, timedelta
from typing import Literal

from django.core.cache import cache

State = Literal["starting", "in_step", "behind", "lost"]
KEY = "standby:copies"
# A keeper reports at least this often; a copy silent for longer reads as lost.
REPORT_EVERY = timedelta(seconds=2)
SILENT_AFTER = timedelta(seconds=10)
# Kept this long after the last report: a copy whose keeper is gone stays shown as lost.
EXPIRES = 24 * 3600


@dataclass(frozen=True)
class Copy:
    """One standby copy: where it is, whether commits wait for it, and how far behind it is."""

    name: str  # "folder" (STANDBY_DIR of make run) or "laptop" (make standby)
    where: str  # the folder, or the address of the machine that pulls
    state: State
    synchronous: bool  # commits wait until this copy has flushed them
    seconds_behind: float | None  # None while in step or unknown
    reason: str  # plain words when lost or behind, else ""
    reported_at: datetime

    @property
    def silent(self) -> bool:
        return datetime.now(UTC) - self.reported_at > SILENT_AFTER

    def as_seen(self) -> Copy:
        """The copy as House should read it now: lost once its keeper has stopped reporting."""
        if self.state != "lost" and self.silent:
            return Copy(
                self.name,
                self.where,
                "lost",
                False,
                None,
                "Its keeper stopped reporting.",
                self.reported_at,
            )
        return self


def _load(raw: str) -> Copy:
    fields = json.loads(raw)
    fields["reported_at"] = datetime.fromisoformat(fields["reported_at"])
    return Copy(**fields)


def copies() -> list[Copy]:
    """Every copy reported, as seen now, by name."""
    stored = cache.get(KEY) or {}
    return [_load(stored[name]).as_seen() for name in sorted(stored)]


def report(copy: Copy) -> bool:
    """Store one copy's state; True when House should be told (it changed in what House sees)."""
    stored = cache.get(KEY) or {}
    previous = _load(stored[copy.name]).as_seen() if copy.name in stored else None
    fields = asdict(copy)
    fields["reported_at"] = copy.reported_at.isoformat()
    stored[copy.name] = json.dumps(fields)
    cache.set(KEY, stored, EXPIRES)
    return previous is None or _shown(previous) != _shown(copy)


def clear() -> None:
    """`make run` starts: the copies its keeper will report, none of the last run's."""
    cache.delete(KEY)


def forget(name: str) -> None:
    """A copy that was stopped on purpose (make run without STANDBY_DIR) is no longer shown."""
    stored = cache.get(KEY) or {}
    if stored.pop(name, None) is not None:
        cache.set(KEY, stored, EXPIRES)


def _shown(copy: Copy) -> tuple[object, ...]:
    behind = None if copy.seconds_behind is None else round(copy.seconds_behind)
    return (copy.where, copy.state, copy.synchronous, behind, copy.reason)


# Every House page (dashboard and Tonight) listens on this group for the copies' state.
GROUP = "standby"
MESSAGE_TYPE = "standby.changed"


def publish(copy: Copy) -> None:
    """Store a copy's state and, when what House sees changed, tell House's open pages."""
    if report(copy):
        from live.protocol import send_to_group

        send_to_group(GROUP, {"type": MESSAGE_TYPE})


def describe(copy: Copy) -> str:
    """One line in plain words, as `make run` prints it and House's pages say it."""
    what = "Standby folder" if copy.name == "folder" else "Second laptop"
    where = f" ({copy.where})" if copy.where else ""
    if copy.state == "in_step":
        return f"{what}{where}: in step; every saved write is in two places."
    if copy.state == "starting":
        return f"{what}{where}: starting, taking the base backup."
    if copy.state == "behind":
        behind = "" if copy.seconds_behind is None else f" by {round(copy.seconds_behind)} s"
        return f"{what}{where}: behind{behind}. {copy.reason}".rstrip()
    # A lost copy's distance only grows, and the line is printed once, when it is lost: a number
    # of seconds there ("LOST by 1 s") reads as nearly in step.
    return f"{what}{where}: LOST. {copy.reason} The night goes on with this laptop's copy only."
