"""A season's points rules and its table, in pure Python (docs/rules.md section 14).

No Django: `manage.py verify_season` and anyone holding the exports recompute a season with it.
A player's points for one finalized event are `attendance + high_points[high_place - 1] +
low_points[low_place - 1]` when they finish eligible, 0 when they withdrew; the season total is
the sum of their `best_of` highest event totals; the table ranks by total, then High first places,
then eligible finishes, tied players sharing a rank.
"""

from __future__ import annotations

from collections.abc import Iterable, Mapping, Sequence
from dataclasses import dataclass

RULE_KEYS = ("high_points", "low_points", "attendance", "best_of", "min_events", "qualifiers")
MOST_PLACES = 100  # a points list longer than this is a typing slip, not a rule
MOST_POINTS = 1_000_000


def _(message: str) -> str:
    """A sentence marked for the catalogs (makemessages reads `_`): it is translated where the
    problem is shown (seasons/services.py), so that this module needs no Django."""
    return message


class RulesProblem(ValueError):
    """Rules that cannot be played, said in a plain sentence: its English `template`, with named
    placeholders filled from `params` (the services say it in the reader's language)."""

    def __init__(self, template: str, params: Mapping[str, object] | None = None) -> None:
        self.template = template
        self.params = dict(params or {})
        super().__init__(template % self.params if self.params else template)


@dataclass(frozen=True, slots=True)
class Rules:
    """How a season turns places into points, and who qualifies for its championship."""

    high_points: tuple[int, ...] = (10, 7, 5, 3, 2, 1)
    low_points: tuple[int, ...] = (5, 3, 1)
    attendance: int = 1
    best_of: int | None = None  # None: every event counts
    min_events: int = 3
    qualifiers: int = 8

    @classmethod
    def from_dict(cls, raw: object) -> Rules:
        """Rules from JSON; a missing key takes its default; anything else is a RulesProblem."""
        if not isinstance(raw, Mapping):
            raise RulesProblem(
                _("The rules are not an object with %(keys)s."), {"keys": ", ".join(RULE_KEYS)}
            )
        unknown = sorted(str(key) for key in raw if key not in RULE_KEYS)
        if unknown:
            raise RulesProblem(_("Unknown rules: %(choices)s."), {"choices": ", ".join(unknown)})
        default = cls()
        best_of = raw.get("best_of", default.best_of)
        return cls(
            high_points=_points_list(raw.get("high_points", default.high_points), "high_points"),
            low_points=_points_list(raw.get("low_points", default.low_points), "low_points"),
            attendance=_whole(raw.get("attendance", default.attendance), "attendance"),
            best_of=None if best_of is None else _best_of(best_of),
            min_events=_whole(raw.get("min_events", default.min_events), "min_events"),
            qualifiers=_whole(raw.get("qualifiers", default.qualifiers), "qualifiers"),
        )

    def as_dict(self) -> dict[str, object]:
        return {
            "high_points": list(self.high_points),
            "low_points": list(self.low_points),
            "attendance": self.attendance,
            "best_of": self.best_of,
            "min_events": self.min_events,
            "qualifiers": self.qualifiers,
        }


def _is_whole(value: object) -> bool:
    return isinstance(value, int) and not isinstance(value, bool) and 0 <= value <= MOST_POINTS


def _whole(value: object, name: str) -> int:
    if not _is_whole(value):
        raise RulesProblem(
            _("%(name)s must be a whole number from 0 to %(most_points)s."),
            {"name": name, "most_points": f"{MOST_POINTS:,}"},
        )
    assert isinstance(value, int)
    return value


def _best_of(value: object) -> int:
    if not _is_whole(value) or value == 0:
        raise RulesProblem(_("best_of must be a whole number of events, 1 or more (empty: all)."))
    assert isinstance(value, int)
    return value


def _points_list(value: object, name: str) -> tuple[int, ...]:
    if isinstance(value, str | bytes) or not isinstance(value, Sequence):
        raise RulesProblem(
            _("%(name)s must be a list of whole numbers, for place 1, 2, 3, ..."), {"name": name}
        )
    if len(value) > MOST_PLACES:
        raise RulesProblem(
            _("%(name)s lists %(count)s places; at most %(most_places)s."),
            {"name": name, "count": len(value), "most_places": MOST_PLACES},
        )
    for place, points in enumerate(value, start=1):
        if not _is_whole(points):
            raise RulesProblem(
                _(
                    "%(name)s for place %(place)s is %(points)s: points are whole numbers from 0 "
                    "to %(most_points)s."
                ),
                {
                    "name": name,
                    "place": place,
                    "points": repr(points),
                    "most_points": f"{MOST_POINTS:,}",
                },
            )
    return tuple(value)


@dataclass(frozen=True, slots=True)
class Finish:
    """How a player finished one event: eligible with places, or withdrawn (no places)."""

    eligible: bool
    high_place: int | None = None
    low_place: int | None = None


def _for_place(points: Sequence[int], place: int | None) -> int:
    return points[place - 1] if place is not None and 1 <= place <= len(points) else 0


def event_points(rules: Rules, finish: Finish) -> int:
    """A player's points for one finalized event (0 when withdrawn: no attendance either)."""
    if not finish.eligible:
        return 0
    return (
        rules.attendance
        + _for_place(rules.high_points, finish.high_place)
        + _for_place(rules.low_points, finish.low_place)
    )


@dataclass(frozen=True, slots=True)
class Scored:
    """One player's points for one event of the season."""

    event_id: int
    points: int
    eligible: bool
    high_first: bool
    # The event's date (ISO 8601, YYYY-MM-DD): of two equal event totals the earlier event counts.
    date: str


@dataclass(frozen=True, slots=True)
class Total:
    """One player's season so far: points counted, eligible finishes, High wins, counted events."""

    total: int
    events: int
    high_firsts: int
    counted: tuple[int, ...]


def season_total(rules: Rules, scores: Iterable[Scored]) -> Total:
    """The sum of the `best_of` highest event totals (equal totals: the earlier event counts, by
    date, then the event created first on the same day)."""
    played = list(scores)
    best = sorted(played, key=lambda score: (-score.points, score.date, score.event_id))
    if rules.best_of is not None:
        best = best[: rules.best_of]
    return Total(
        total=sum(score.points for score in best),
        events=sum(1 for score in played if score.eligible),
        high_firsts=sum(1 for score in played if score.high_first),
        counted=tuple(sorted(score.event_id for score in best)),
    )


@dataclass(frozen=True, slots=True)
class Standing[P]:
    player: P
    total: int
    events: int
    high_firsts: int
    counted: tuple[int, ...]
    rank: int
    qualified: bool


def table[P](rules: Rules, totals: Mapping[P, Total], order: Mapping[P, str]) -> list[Standing[P]]:
    """The season table: ranked by total, High first places, eligible finishes (equal on all
    three: the same rank, 1, 1, 3), listed by rank then by `order` (a display name).

    The championship takes the top `qualifiers` among players with `min_events` eligible
    finishes; players tied at the cut all qualify.
    """

    def strength(player: P) -> tuple[int, int, int]:
        t = totals[player]
        return (t.total, t.high_firsts, t.events)

    ordered = sorted(totals, key=lambda p: (tuple(-v for v in strength(p)), order.get(p, "")))
    standings: list[Standing[P]] = []
    ahead_in_line = 0  # players with enough events ranked strictly ahead
    line_rank_strength: tuple[int, int, int] | None = None
    rank = 0
    previous: tuple[int, int, int] | None = None
    eligible_seen = 0
    for index, player in enumerate(ordered):
        key = strength(player)
        if key != previous:
            rank = index + 1
            previous = key
        t = totals[player]
        enough = t.events >= rules.min_events
        if enough:
            if key != line_rank_strength:
                ahead_in_line = eligible_seen
                line_rank_strength = key
            eligible_seen += 1
        qualified = enough and ahead_in_line < rules.qualifiers
        standings.append(
            Standing(
                player=player,
                total=t.total,
                events=t.events,
                high_firsts=t.high_firsts,
                counted=t.counted,
                rank=rank,
                qualified=qualified,
            )
        )
    return standings


def one_event_short(rules: Rules, events: int) -> bool:
    """Whether one more eligible finish would give a player the events the championship needs."""
    return events == rules.min_events - 1
