"""The standby copies as House's pages show them (docs/decisions.md, "The night survives its
laptop", "What House sees of the copy").

One panel, rendered for the first page load and for every live frame alike: each copy reported
by its keeper (`standby.state`) in plain words, a prominent warning for a lost one, the last
snapshot (`standby.snapshots`) or why it could not be taken, and on the dashboard a quiet line
when this laptop keeps no copy at all. Live, it is stream "standby": a
House socket renders it when the keeper says what House sees changed, and again when a copy's
reports are due to have gone silent (`wake_at`), since a dead keeper sends nothing.
"""

from __future__ import annotations

import functools
import time
from dataclasses import dataclass, replace
from datetime import datetime
from typing import Any

from django.conf import settings
from django.template.loader import render_to_string
from django.utils import translation
from django.utils.translation import gettext as _
from django.utils.translation import gettext_lazy

from accounts.models import User
from events.models import Event
from organizations.home import home_organization_id
from organizations.models import Organization
from seasons.models import Series
from staff.models import Membership, scope_type
from standby import snapshots
from standby.snapshots import LastSnapshot
from standby.state import SILENT_AFTER, Copy, copies

STREAM = "standby"
# The names keepers report under, as House reads them.
NAMES = {"folder": gettext_lazy("Standby folder"), "laptop": gettext_lazy("Second laptop")}


@dataclass(frozen=True, slots=True)
class CopyLine:
    """One copy in House's words."""

    name: str
    where: str
    state: str
    words: str  # "In step", "Behind by 4 s", "Lost: the folder is gone", "Starting"
    detail: str  # whether commits wait for it


@dataclass(frozen=True, slots=True)
class SnapshotLine:
    """The last snapshot (standby.snapshots) in House's words."""

    words: str  # "Snapshot at the start of Thursday League" / "No snapshot at the end of ..."
    taken_at: datetime
    time_zone: str
    file: str
    problem: str

    @property
    def failed(self) -> bool:
        return bool(self.problem)


@dataclass(frozen=True, slots=True)
class StandbyPanel:
    """What the panel shows: the copies and the last snapshot, or (dashboard only) that there is
    no copy at all."""

    lines: tuple[CopyLine, ...]
    snapshot: SnapshotLine | None
    # No copy configured and none reported: this laptop holds the only copy of the night.
    only_copy: bool
    lost: bool
    # When the first copy still reported as live would read as silent (then lost).
    wake_at: datetime | None

    @property
    def shown(self) -> bool:
        """Whether it shows a copy or a snapshot (not only the dashboard's "only copy" line)."""
        return bool(self.lines) or self.snapshot is not None

    def html(self) -> str:
        # Every House socket renders the panel when a copy changes; all of a language show the
        # same (a panel with no words of its own, the "only copy" line, differs by language).
        return _render(replace(self, wake_at=None), translation.get_language())

    def frame(self) -> dict[str, Any]:
        """The socket frame: always a whole snapshot, versioned by when it was rendered."""
        return {
            "type": "snapshot",
            "stream": STREAM,
            "version": time.time_ns() // 1_000_000,
            "html": self.html(),
        }


@functools.lru_cache(maxsize=32)
def _render(panel: StandbyPanel, language: str) -> str:
    return render_to_string("house/_standby.html", {"standby": panel})


def _line(copy: Copy) -> CopyLine:
    if copy.state == "lost":
        words = _("Lost: %(reason)s") % {"reason": copy.reason} if copy.reason else _("Lost")
    elif copy.state == "behind":
        behind = round(copy.seconds_behind or 0)
        words = _("Behind by %(seconds)s s") % {"seconds": behind}
    elif copy.state == "starting":
        words = _("Starting: taking the base backup")
    else:
        words = _("In step")
    if copy.state == "lost":
        detail = _("Commits no longer wait for it; the event goes on.")
    elif copy.synchronous:
        detail = _("Every commit waits until it is written here too.")
    else:
        detail = _("Commits do not wait for it.")
    name = str(NAMES.get(copy.name, copy.name))
    return CopyLine(name, copy.where, copy.state, words, detail)


# The snapshot's words, by the step it was taken at (another step is named as it is).
SNAPSHOT_WORDS = {
    ("started", False): gettext_lazy("Snapshot at the start of %(event)s"),
    ("started", True): gettext_lazy("No snapshot at the start of %(event)s"),
    ("finalized", False): gettext_lazy("Snapshot at the finalization of %(event)s"),
    ("finalized", True): gettext_lazy("No snapshot at the finalization of %(event)s"),
}


def _snapshot(taken: LastSnapshot | None) -> SnapshotLine | None:
    if taken is None:
        return None
    failed = bool(taken.problem)
    said = SNAPSHOT_WORDS.get((taken.step, failed))
    if said is not None:
        words = str(said) % {"event": taken.event_name}
    elif failed:
        words = _("No snapshot at %(step)s of %(event)s") % {
            "step": taken.step,
            "event": taken.event_name,
        }
    else:
        words = _("Snapshot at %(step)s of %(event)s") % {
            "step": taken.step,
            "event": taken.event_name,
        }
    return SnapshotLine(words, taken.taken_at, taken.time_zone, taken.file, taken.problem)


def sees_standby(user: Any) -> bool:
    """Whether `user` sees the standby copies. They are the deployment's, not an organizer's: its
    site staff see them, and the House of the deployment's own organization (the laptop's: its
    staff, and the staff of its series and events), unless it is suspended; another
    organization's staff see none (docs/decisions.md, "Organizations")."""
    if not isinstance(user, User) or not user.is_authenticated or not user.is_active:
        return False
    if user.is_staff or user.is_superuser:
        return True
    home = home_organization_id()
    if not Organization.objects.filter(pk=home, suspended_at__isnull=True).exists():
        return False
    held = Membership.objects.filter(user=user)
    return (
        held.filter(scope_type=scope_type(Organization), scope_id=home)
        | held.filter(
            scope_type=scope_type(Series),
            scope_id__in=Series.objects.filter(organization_id=home).values("pk"),
        )
        | held.filter(
            scope_type=scope_type(Event),
            scope_id__in=Event.objects.filter(organization_id=home).values("pk"),
        )
    ).exists()


def standby_panel(*, dashboard: bool) -> StandbyPanel:
    """The panel as seen now: the dashboard's (with the no-copy line) or Tonight's."""
    seen = copies()
    snapshot = _snapshot(snapshots.last())
    configured = bool(settings.STANDBY_DIR)
    live = [copy.reported_at + SILENT_AFTER for copy in seen if copy.state != "lost"]
    return StandbyPanel(
        lines=tuple(_line(copy) for copy in seen),
        snapshot=snapshot,
        only_copy=dashboard and not seen and snapshot is None and not configured,
        lost=any(copy.state == "lost" for copy in seen),
        wake_at=min(live) if live else None,
    )
