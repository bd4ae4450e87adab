"""Bad input to the verifiers (docs/audit.md, "What verify_audit checks"): whatever file
`verify_audit` or `verify_season` is given, it ends with a plain sentence naming the problem and
a non-zero exit, never a traceback. A hypothesis fuzz feeds both malformed text and real exports
with one part replaced by any JSON value."""

from __future__ import annotations

import copy
import json
from pathlib import Path
from typing import Any

import pytest
from django.core.management import call_command
from django.core.management.base import CommandError
from hypothesis import HealthCheck, given, settings
from hypothesis import strategies as st

from audit.verify import (
    Verdict,
    check_places,
    read_result,
    verify,
    verify_csv,
    verify_exports,
    verify_json,
)
from seasons.points import Finish, Rules, Scored, event_points, season_total, table
from seasons.verify import SeasonVerdict, verify_season
from tests.audit.test_verify import finished

HUGE = "9" * 5000  # beyond Python's limit of digits for reading an integer (4,300)
KEYS = st.sampled_from(
    [
        "seq", "hash", "prev_hash", "action", "player", "details", "card", "shoe", "position",
        "event", "entries", "head", "seed", "result", "players", "award", "amount", "label",
        "phase", "at", "event_block", "signature", "key_id", "id", "date", "rules", "best_of",
        "event_id", "standings", "player_id", "total", "counted", "indicator", "wild_rank",
    ]
)  # fmt: skip
JSON = st.recursive(
    st.none()
    | st.booleans()
    | st.integers()
    | st.integers(min_value=-(10**40), max_value=10**40)
    | st.floats()
    | st.text(max_size=12),
    lambda inner: (
        st.lists(inner, max_size=4) | st.dictionaries(KEYS | st.text(max_size=6), inner, max_size=4)
    ),
    max_leaves=12,
)


def paths(value: object, at: tuple[Any, ...] = ()) -> list[tuple[Any, ...]]:
    """Every place in a JSON document, as the keys and indexes that reach it."""
    found = [at]
    if isinstance(value, dict):
        for key, item in value.items():
            found += paths(item, (*at, key))
    elif isinstance(value, list):
        for index, item in enumerate(value):
            found += paths(item, (*at, index))
    return found


def replaced(document: Any, at: tuple[Any, ...], value: object) -> Any:
    if not at:
        return value
    changed = copy.deepcopy(document)
    holder = changed
    for step in at[:-1]:
        holder = holder[step]
    holder[at[-1]] = value
    return changed


FINISHED = finished()
# With a head in the old format, which the verifiers read without the key.
FINISHED["head"] = {
    "seq": FINISHED["entries"][-1]["seq"],
    "hash": FINISHED["entries"][-1]["hash"],
    "signature": "",
    "key_id": "",
}
FINISHED_PATHS = paths(FINISHED)


def valid_season(audit: Any) -> Any:
    """A season of one event, the audit given, whose table is computed with seasons.points."""
    rules = Rules(best_of=2, min_events=1)
    result = read_result(audit["result"])
    places = check_places(result)
    ids = {row.player: f"pl_{n:012d}" for n, row in enumerate(result.players)}
    totals = {}
    for row in result.players:
        eligible = row.status == "eligible"
        finish = Finish(
            eligible=eligible,
            high_place=places.high_place(row.player) if eligible else None,
            low_place=places.low_place(row.player) if eligible else None,
        )
        scored = Scored(1, event_points(rules, finish), eligible, finish.high_place == 1, DAY)
        totals[ids[row.player]] = season_total(rules, [scored])
    return {
        "season": {"id": 1, "name": "Autumn", "rules": rules.as_dict()},
        "events": [
            {
                "event_id": 1,
                "date": DAY,
                "head": audit["head"],
                "players": ids,
            }
        ],
        "standings": [
            {
                "player_id": standing.player,
                "display_name": standing.player,
                "events": standing.events,
                "counted": list(standing.counted),
                "total": standing.total,
                "rank": standing.rank,
                "qualified": standing.qualified,
            }
            for standing in table(rules, totals, {player: player for player in totals})
        ],
    }


DAY = "2026-09-03"
SEASON = valid_season(FINISHED)
SEASON_PATHS = paths(SEASON)


def test_the_fuzzed_season_verifies_as_it_is() -> None:
    verdict = verify_season(json.dumps(SEASON), {"audit.json": json.dumps(FINISHED)})
    assert verdict.ok, verdict.problem


def plain(verdict: Verdict | SeasonVerdict) -> None:
    """A verdict, not a traceback: ok, or a problem in a sentence."""
    assert verdict.ok or (isinstance(verdict.problem, str) and verdict.problem)


@settings(max_examples=300, deadline=None, suppress_health_check=[HealthCheck.too_slow])
@given(at=st.sampled_from(FINISHED_PATHS), value=JSON)
def test_an_audit_with_any_part_replaced_gets_a_plain_verdict(
    at: tuple[Any, ...], value: object
) -> None:
    document = replaced(FINISHED, at, value)
    plain(verify(document))
    plain(verify_json(json.dumps(document)))


@settings(max_examples=200, deadline=None)
@given(value=JSON)
def test_any_json_value_is_a_plain_verdict_for_both_verifiers(value: object) -> None:
    text = json.dumps(value)
    plain(verify_json(text))
    plain(verify_season(text, {"audit.json": text}))
    plain(verify_season(json.dumps(SEASON), {"audit.json": text}))


@settings(max_examples=200, deadline=None)
@given(text=st.text(max_size=80) | st.binary(max_size=80))
def test_any_text_is_a_plain_verdict(text: str | bytes) -> None:
    plain(verify_json(text))
    plain(verify_csv(text))
    plain(verify_csv(b"seq," + (text if isinstance(text, bytes) else text.encode())))
    plain(verify_season(text, {"audit.json": text}))
    plain(verify_exports({"a.json": text, "b.json": json.dumps(FINISHED)}))


@settings(max_examples=200, deadline=None)
@given(at=st.sampled_from(SEASON_PATHS), value=JSON)
def test_a_season_with_any_part_replaced_gets_a_plain_verdict(
    at: tuple[Any, ...], value: object
) -> None:
    season = replaced(SEASON, at, value)
    plain(verify_season(json.dumps(season), {"audit.json": json.dumps(FINISHED)}))


def test_a_csv_export_with_any_cell_changed_gets_a_plain_verdict() -> None:
    header = "seq,at,actor,actor_kind,action,player,details,reason,prev_hash,hash,actor_role"
    for seq in ("1", "²", HUGE, "-1", ""):
        for details in ("{}", HUGE, "[" * 5000, "nan"):
            row = f'{seq},2026-01-01T00:00:00Z,system,system,x,,"{details}",,{"0" * 64},{"0" * 64},'
            plain(verify_csv(f"{header},head_signature,head_key_id\n{row},,\n"))


def command(name: str, *files: Path) -> str:
    with pytest.raises(CommandError) as problem:
        call_command(name, *map(str, files))
    return str(problem.value)


def test_a_five_thousand_digit_number_is_named_by_both_commands(tmp_path: Path) -> None:
    audit = tmp_path / "audit.json"
    audit.write_text(json.dumps(FINISHED).replace('"seq": 1,', f'"seq": {HUGE},', 1))
    season = tmp_path / "season.json"
    season.write_text(f'{{"season": {{"id": {HUGE}}}, "events": [], "standings": []}}')
    for problem in (
        command("verify_audit", audit),
        command("verify_season", season, audit),
    ):
        assert "a number too long to read" in problem
    good = tmp_path / "good.json"
    good.write_text(json.dumps(FINISHED))
    assert "a number too long to read" in command("verify_audit", good, audit)
    assert "a number too long to read" in command("verify_season", season, good)


@pytest.mark.parametrize(
    "content",
    [
        b"",
        b"[" * 100_000,
        b'{"event": {}, "entries": [], "seed": "zz", "result": null}',
        b'{"event": {"id": 1}, "entries": [1, 2], "seed": null, "result": null}',
        b'{"event": {"id": 1}, "entries": [], "seed": null, "result": null, "head": 5}',
        b"seq,at\n1,2",
        b"\xff\xfe\x00",
        b"NaN",
        b'{"season": {"rules": {"best_of": 1e400}}, "events": [], "standings": []}',
    ],
    ids=[
        "empty",
        "nested",
        "seed",
        "entries",
        "head",
        "csv",
        "bytes",
        "nan",
        "infinite",
    ],
)
def test_each_malformed_file_is_named_by_both_commands(tmp_path: Path, content: bytes) -> None:
    path = tmp_path / "file.json"
    path.write_bytes(content)
    assert command("verify_audit", path)
    assert command("verify_season", path, path)
