"""Checking submitted results against a Scoreholio Match Log (CSV export).

Pure functions: no database, no writes.

The log has the columns `#, Team 1, Team 2, Score, Score 2, Date/Time, Play Duration`; `Score` is
Team 1's and `Score 2` is Team 2's. A team cell names one player or a doubles pair
("A / B", "A & B").
Names match a player's event label or display name, ignoring case and spacing. Each player's logged
games are taken in log order (by `#`, else by Date/Time) and mapped to their game numbers 1..G; an
opponent or score the player entered picks the row that fits it. House opens a review on a mismatch.
"""

from __future__ import annotations

import csv
import datetime
import io
import re
from collections.abc import Iterable, Sequence
from dataclasses import dataclass, field

from django.utils.translation import gettext as _

COLUMNS = ("#", "Team 1", "Team 2", "Score", "Score 2", "Date/Time", "Play Duration")
MAX_ROWS = 20_000
DATE_FORMATS = (
    "%m/%d/%Y %I:%M:%S %p",
    "%m/%d/%Y %I:%M %p",
    "%m/%d/%Y %H:%M:%S",
    "%m/%d/%Y %H:%M",
    "%Y-%m-%d %H:%M:%S",
    "%Y-%m-%d %H:%M",
    "%Y-%m-%dT%H:%M:%S",
    "%Y-%m-%dT%H:%M",
    "%m/%d/%y %I:%M %p",
    "%m/%d/%y %H:%M",
)
_SPACES = re.compile(r"\s+")
_MEMBER_SPLIT = re.compile(r"\s*[/&]\s*")
_SCORE = re.compile(r"^\s*(\d{1,3})\s*(?:-|\u2013|:|to|/)\s*(\d{1,3})\s*$", re.IGNORECASE)


class MatchLogError(ValueError):
    """The file is not a usable Scoreholio Match Log; `message` says why in plain words."""

    def __init__(self, message: str) -> None:
        self.message = message
        super().__init__(message)


@dataclass(frozen=True, slots=True)
class MatchRow:
    """One logged game. `number` is the log's `#`; `line` is the row's line in the file."""

    number: int | None
    team1: str
    team2: str
    score1: int | None
    score2: int | None
    played_at: datetime.datetime | None
    duration: str
    line: int

    @property
    def ref(self) -> int:
        """How House finds the row: its `#`, else its line in the file."""
        return self.number if self.number is not None else self.line

    @property
    def decided(self) -> bool:
        return self.score1 is not None and self.score2 is not None

    def outcome_for(self, side: int) -> str | None:
        """'win', 'loss' or 'tie' for the team on `side` (1 or 2); None while unscored."""
        if self.score1 is None or self.score2 is None:
            return None
        mine, theirs = (self.score1, self.score2) if side == 1 else (self.score2, self.score1)
        if mine == theirs:
            return "tie"
        return "win" if mine > theirs else "loss"


@dataclass(frozen=True, slots=True)
class SubmittedResult:
    """A game result as the player (or House) submitted it."""

    game: int
    outcome: str  # "win" or "loss"
    opponent: str = ""
    score: str = ""


@dataclass(frozen=True, slots=True)
class PlayerResults:
    """One player in the event: the names the log may use for them, and their results."""

    registration_id: int
    label: str
    display_name: str = ""
    results: tuple[SubmittedResult, ...] = ()


@dataclass(frozen=True, slots=True)
class Mismatch:
    """A submitted result the log does not confirm. `scoreholio` is None when no row was found."""

    registration_id: int
    player: str
    game: int
    submitted: str
    scoreholio: str | None
    row: int | None

    @property
    def says(self) -> str:
        """What the log says, in words."""
        if self.scoreholio is None:
            return "no game logged"
        return {"win": "a win", "loss": "a loss", "tie": "a tie"}[self.scoreholio]

    @property
    def reason(self) -> str:
        """A review reason House can send as it is."""
        if self.row is None:
            return (
                f"Scoreholio has no logged game for game {self.game} "
                f"(submitted as a {self.submitted})"
            )
        return f"Scoreholio row {self.row} shows {self.says} for game {self.game}"


@dataclass(frozen=True, slots=True)
class UnmatchedName:
    """A name in the log that matches no player, or more than one."""

    name: str
    rows: tuple[int, ...]
    candidates: tuple[str, ...] = ()

    @property
    def note(self) -> str:
        if self.candidates:
            return "matches more than one player: " + ", ".join(self.candidates)
        return "matches no player in this event"


@dataclass(frozen=True, slots=True)
class Comparison:
    rows: int
    compared: int  # submitted results mapped to a logged game
    agreed: int
    mismatches: tuple[Mismatch, ...]
    unmatched: tuple[UnmatchedName, ...]


def normalize_name(name: str) -> str:
    """Case- and space-insensitive form of a name."""
    return _SPACES.sub(" ", name).strip().casefold()


def team_members(cell: str) -> tuple[str, ...]:
    """The player names in a team cell: 'A / B' and 'A & B' are doubles teams."""
    parts = [part.strip() for part in _MEMBER_SPLIT.split(cell.strip())]
    return tuple(part for part in parts if part)


def parse_score(text: str) -> tuple[int, int] | None:
    """'21-15', '21 : 15', '21 to 15' -> (21, 15); anything else -> None."""
    found = _SCORE.match(text or "")
    return (int(found.group(1)), int(found.group(2))) if found else None


def parse_match_log(text: str) -> tuple[MatchRow, ...]:
    """Parse a Match Log export, in log order (by `#`, else Date/Time, else file order).

    Tolerates a byte-order mark, extra whitespace and any case in the headers; rows without both
    scores (games not played yet) are left out. Raises MatchLogError for a file that is not a log.
    """
    text = text.lstrip("\ufeff")
    if not text.strip():
        raise MatchLogError(_("The file is empty: export the Match Log from Scoreholio as CSV."))
    first_line = text.lstrip().split("\n", 1)[0]
    delimiter = next((d for d in ",;\t" if d in first_line), ",")
    reader = csv.reader(io.StringIO(text, newline=""), delimiter=delimiter)
    try:
        header = next(reader)
    except (StopIteration, csv.Error):
        raise MatchLogError(_("The file has no header row.")) from None
    where = _columns(header)
    rows: list[MatchRow] = []
    try:
        for line, cells in enumerate(reader, start=2):
            if not any(cell.strip() for cell in cells):
                continue
            if len(rows) >= MAX_ROWS:
                raise MatchLogError(
                    _("The log has more than %(max_rows)s games.") % {"max_rows": MAX_ROWS}
                )
            row = _row(cells, where, line)
            if row is not None:
                rows.append(row)
    except csv.Error as problem:
        raise MatchLogError(
            _("The file is not valid CSV: %(problem)s.") % {"problem": problem}
        ) from None
    return tuple(_in_log_order(rows))


def compare(rows: Sequence[MatchRow], players: Sequence[PlayerResults]) -> Comparison:
    """Every submitted result against the logged games, and the log's names nobody matches."""
    names = _NameIndex(players)
    unmatched: dict[str, list[int]] = {}
    ambiguous: dict[str, tuple[list[int], tuple[str, ...]]] = {}
    sides: dict[int, list[tuple[MatchRow, int, str]]] = {p.registration_id: [] for p in players}
    for row in rows:
        for side, cell, other in ((1, row.team1, row.team2), (2, row.team2, row.team1)):
            found, missing, unclear = names.team(cell)
            for name in missing:
                unmatched.setdefault(name, []).append(row.ref)
            for name, labels in unclear.items():
                ambiguous.setdefault(name, ([], labels))[0].append(row.ref)
            for registration_id in found:
                sides[registration_id].append((row, side, other))

    mismatches: list[Mismatch] = []
    compared = agreed = 0
    for player in players:
        assigned = _assign(player.results, sides[player.registration_id])
        for result in sorted(player.results, key=lambda r: r.game):
            match = assigned.get(result.game)
            if match is None:
                mismatches.append(
                    Mismatch(
                        player.registration_id,
                        player.label,
                        result.game,
                        result.outcome,
                        None,
                        None,
                    )
                )
                continue
            row, side, _ = match
            compared += 1
            logged = row.outcome_for(side)
            if logged == result.outcome:
                agreed += 1
            else:
                mismatches.append(
                    Mismatch(
                        player.registration_id,
                        player.label,
                        result.game,
                        result.outcome,
                        logged,
                        row.ref,
                    )
                )
    lost = [UnmatchedName(name, tuple(refs)) for name, refs in unmatched.items()]
    lost += [UnmatchedName(name, tuple(refs), labels) for name, (refs, labels) in ambiguous.items()]
    return Comparison(
        rows=len(rows),
        compared=compared,
        agreed=agreed,
        mismatches=tuple(mismatches),
        unmatched=tuple(sorted(lost, key=lambda u: (u.rows[0] if u.rows else 0, u.name))),
    )


# --- parsing ------------------------------------------------------------------------------------


def _columns(header: Sequence[str]) -> dict[str, int]:
    found: dict[str, int] = {}
    for index, title in enumerate(header):
        key = normalize_name(title.lstrip("\ufeff"))
        found.setdefault(key, index)
    missing = [column for column in COLUMNS if normalize_name(column) not in found]
    if missing:
        raise MatchLogError(
            _(
                "This is not a Scoreholio Match Log: it needs the columns %(columns)s (missing: "
                "%(missing)s)."
            )
            % {"columns": ", ".join(COLUMNS), "missing": ", ".join(missing)}
        )
    return {column: found[normalize_name(column)] for column in COLUMNS}


def _row(cells: Sequence[str], where: dict[str, int], line: int) -> MatchRow | None:
    def cell(column: str) -> str:
        index = where[column]
        return _SPACES.sub(" ", cells[index]).strip() if index < len(cells) else ""

    team1, team2 = cell("Team 1"), cell("Team 2")
    score1, score2 = _int(cell("Score")), _int(cell("Score 2"))
    if not team1 or not team2 or score1 is None or score2 is None:
        return None  # a bye, or a game not played yet
    return MatchRow(
        number=_int(cell("#")),
        team1=team1,
        team2=team2,
        score1=score1,
        score2=score2,
        played_at=_moment(cell("Date/Time")),
        duration=cell("Play Duration"),
        line=line,
    )


def _int(text: str) -> int | None:
    text = text.strip().lstrip("#")
    return int(text) if text.isdigit() else None


def _moment(text: str) -> datetime.datetime | None:
    if not text:
        return None
    for pattern in DATE_FORMATS:
        try:
            return datetime.datetime.strptime(text, pattern)
        except ValueError:
            continue
    try:
        return datetime.datetime.fromisoformat(text).replace(tzinfo=None)
    except ValueError:
        return None


def _in_log_order(rows: list[MatchRow]) -> list[MatchRow]:
    if rows and all(row.number is not None for row in rows):
        return sorted(rows, key=lambda row: (row.number or 0, row.line))
    if rows and all(row.played_at is not None for row in rows):
        return sorted(rows, key=lambda row: (row.played_at or datetime.datetime.min, row.line))
    return rows


# --- matching -----------------------------------------------------------------------------------


@dataclass
class _NameIndex:
    """Labels are unique in an event; display names may be shared ("Ann" and "Ann #2")."""

    players: Sequence[PlayerResults]
    labels: dict[str, int] = field(init=False)
    display: dict[str, list[int]] = field(init=False)
    label_of: dict[int, str] = field(init=False)

    def __post_init__(self) -> None:
        self.labels = {normalize_name(p.label): p.registration_id for p in self.players}
        self.display = {}
        for p in self.players:
            if p.display_name.strip():
                self.display.setdefault(normalize_name(p.display_name), []).append(
                    p.registration_id
                )
        self.label_of = {p.registration_id: p.label for p in self.players}

    def resolve(self, name: str) -> list[int]:
        key = normalize_name(name)
        if key in self.labels:
            return [self.labels[key]]
        return list(self.display.get(key, []))

    def team(self, cell: str) -> tuple[list[int], list[str], dict[str, tuple[str, ...]]]:
        """The players named in a team cell, the names matching nobody, the ambiguous names."""
        whole = self.resolve(cell)
        if len(whole) == 1:
            return whole, [], {}
        members = team_members(cell)
        if len(members) <= 1:
            members = (cell,)
        found: list[int] = []
        missing: list[str] = []
        unclear: dict[str, tuple[str, ...]] = {}
        for name in members:
            ids = self.resolve(name)
            if len(ids) == 1:
                found.append(ids[0])
            elif ids:
                unclear[name] = tuple(sorted(self.label_of[i] for i in ids))
            else:
                missing.append(name)
        return found, missing, unclear


def _opponent_fits(opponent: str, cell: str) -> bool:
    wanted = normalize_name(opponent)
    if not wanted:
        return True
    names = [cell, *team_members(cell)]
    if any(normalize_name(name) == wanted for name in names):
        return True
    words = set(normalize_name(cell).replace("/", " ").replace("&", " ").split())
    return set(wanted.split()) <= words


def _score_fits(score: str, row: MatchRow) -> bool:
    entered = parse_score(score)
    if entered is None:
        return True
    return sorted(entered) == sorted((row.score1 or 0, row.score2 or 0))


def _assign(
    results: Iterable[SubmittedResult], logged: list[tuple[MatchRow, int, str]]
) -> dict[int, tuple[MatchRow, int, str]]:
    """Map game numbers to the player's logged rows: hinted results first, then log order."""
    ordered = sorted(results, key=lambda r: r.game)
    used: set[int] = set()
    assigned: dict[int, tuple[MatchRow, int, str]] = {}
    for result in ordered:
        if not result.opponent.strip() and parse_score(result.score) is None:
            continue
        fitting = [
            index
            for index, (row, _, other) in enumerate(logged)
            if index not in used
            and _opponent_fits(result.opponent, other)
            and _score_fits(result.score, row)
        ]
        if fitting:
            index = result.game - 1 if result.game - 1 in fitting else fitting[0]
            used.add(index)
            assigned[result.game] = logged[index]
    for result in ordered:
        if result.game in assigned:
            continue
        free = [index for index in range(len(logged)) if index not in used]
        if not free:
            break
        index = result.game - 1 if result.game - 1 in free else free[0]
        used.add(index)
        assigned[result.game] = logged[index]
    return assigned
