"""`export_season`, `verify_season` and `simulate_season` (docs/rules.md sections 14.7 and 13):
a season checks out from its events' audit exports alone, and every kind of tampering is named."""

from __future__ import annotations

import copy
import io
import json
from collections.abc import Callable
from pathlib import Path
from typing import Any

import pytest
from cryptography.hazmat.primitives.asymmetric.ed25519 import Ed25519PrivateKey
from django.core.management import CommandError, call_command

from audit.anchor import public_key_pem
from audit.export import audit_document
from audit.signing import signing_key
from events.models import Event, Phase
from events.simulation import Simulation
from seasons.models import PlayerKey, Season, SeasonResult
from tests.factories import make_user
from tests.seasons.support import make_league

pytestmark = pytest.mark.django_db

RULES = {"high_points": [5, 3, 1], "low_points": [2], "best_of": 2, "min_events": 1}


def run(*args: str) -> str:
    out = io.StringIO()
    call_command(*args, stdout=out)
    return out.getvalue()


@pytest.fixture
def exported(tmp_path: Path) -> tuple[dict[str, Any], dict[int, dict[str, Any]], Path]:
    league = make_league(5)
    league.open_season(RULES)
    a, b, c, d, e = league.players
    league.night(0, [a, b, c, d], seed=11)
    league.night(1, [b, c, d, e, a], seed=12)
    league.night(2, [e, a, c, b], seed=13)
    season = json.loads(run("export_season", str(league.season.pk)))
    audits = {
        event["event_id"]: audit_document(Event.objects.get(pk=event["event_id"]))
        for event in season["events"]
    }
    return season, audits, tmp_path


def verify(tmp_path: Path, season: dict[str, Any], audits: list[dict[str, Any]]) -> str:
    season_file = tmp_path / "season.json"
    season_file.write_text(json.dumps(season))
    files = []
    for number, audit in enumerate(audits):
        path = tmp_path / f"audit-{number}.json"
        path.write_text(json.dumps(audit))
        files.append(str(path))
    return run("verify_season", str(season_file), *files)


def test_the_export_names_players_by_public_id_and_verifies(exported: Any) -> None:
    season, audits, tmp_path = exported
    assert list(season) == ["season", "events", "standings"]
    assert season["season"]["rules"]["high_points"] == [5, 3, 1]
    assert season["season"]["rules"]["low_points"] == [2]
    assert len(season["events"]) == 3
    text = json.dumps(season)
    assert "@" not in text  # no email anywhere
    ids = {row["player_id"] for row in season["standings"]}
    assert ids == set(PlayerKey.objects.values_list("public_id", flat=True))
    for event in season["events"]:
        assert event["head"] == audits[event["event_id"]]["head"]
        assert set(event["players"].values()) <= ids
    assert "OK: the season verifies." in verify(tmp_path, season, list(audits.values()))


def test_a_player_keeps_one_public_id_across_events(exported: Any) -> None:
    season, _, _ = exported
    for user_id, public in PlayerKey.objects.values_list("user_id", "public_id"):
        labels = SeasonResult.objects.filter(player_id=user_id).values_list("event_id", "label")
        for event_id, label in labels:
            event = next(e for e in season["events"] if e["event_id"] == event_id)
            assert event["players"][label] == public


def _first_scorer(season: dict[str, Any]) -> dict[str, Any]:
    return next(row for row in season["standings"] if row["total"] > 0)


TAMPERING: dict[str, tuple[Callable[[dict[str, Any], dict[int, dict[str, Any]]], None], str]] = {
    "an edited total": (
        lambda s, a: _first_scorer(s).update(total=_first_scorer(s)["total"] + 1),
        "total is",
    ),
    "an edited rank": (
        lambda s, a: s["standings"][-1].update(rank=1 if s["standings"][-1]["rank"] != 1 else 2),
        "rank is",
    ),
    "a qualification given away": (
        lambda s, a: s["standings"][-1].update(qualified=not s["standings"][-1]["qualified"]),
        "qualified is",
    ),
    "an edited counted list": (
        lambda s, a: _first_scorer(s).update(counted=[]),
        "counted is",
    ),
    "an edited rule": (
        lambda s, a: s["season"]["rules"].update(attendance=s["season"]["rules"]["attendance"] + 4),
        "total is",
    ),
    "an event left out of the season": (
        lambda s, a: s["events"].pop(),
        "the season does not list it",
    ),
    "a head that does not match its audit": (
        lambda s, a: s["events"][0]["head"].update(hash="0" * 64),
        "does not match the head of its audit",
    ),
    "a player mapped to someone else": (
        lambda s, a: s["events"][0]["players"].update(
            dict.fromkeys(list(s["events"][0]["players"])[:1], "pl_someone_else")
        ),
        "pl_someone_else played in the season, but is not in the standings",
    ),
    "one player id mapped to two labels in one event": (
        lambda s, a: s["events"][0]["players"].update(
            dict.fromkeys(
                list(s["events"][0]["players"])[1:2],
                next(iter(s["events"][0]["players"].values())),
            )
        ),
        "is mapped to two labels",
    ),
    "an event's date moved": (
        lambda s, a: s["events"][0].update(date="2026-01-01"),
        "but its audit says",
    ),
    "an edited place in an audit": (
        lambda s, a: next(iter(a.values()))["result"]["players"][0].update(high_place=99),
        "does not verify",
    ),
}


@pytest.mark.parametrize("kind", list(TAMPERING))
def test_each_kind_of_tampering_is_named(exported: Any, kind: str) -> None:
    season, audits, tmp_path = exported
    season, audits = copy.deepcopy(season), copy.deepcopy(audits)
    tamper, named = TAMPERING[kind]
    tamper(season, audits)
    with pytest.raises(CommandError, match=named):
        verify(tmp_path, season, list(audits.values()))


def test_a_missing_or_extra_audit_is_named(exported: Any, tmp_path: Path) -> None:
    season, audits, _ = exported
    listed = list(audits.values())
    with pytest.raises(CommandError, match="no audit file for it was given"):
        verify(tmp_path, season, listed[:-1])
    other = make_user("Outsider", staff=True)
    extra = Simulation(format="league", players=4, seed=3, house=other).run()["event_id"]
    with pytest.raises(CommandError, match="the season does not list it"):
        verify(tmp_path, season, [*listed, audit_document(Event.objects.get(pk=extra))])


def test_bad_arguments_are_plain_errors() -> None:
    with pytest.raises(CommandError, match="No season with id 999999"):
        run("export_season", "999999")
    with pytest.raises(CommandError, match="--events must be at least 1"):
        run("simulate_season", "--events", "0", "--players", "8", "--seed", "1")
    with pytest.raises(CommandError, match="--players must be at least 4"):
        run("simulate_season", "--events", "2", "--players", "3", "--seed", "1")


def test_the_csv_export_is_the_table(exported: Any) -> None:
    season, _, _ = exported
    text = run("export_season", str(season["season"]["id"]), "--format", "csv")
    lines = text.splitlines()
    assert lines[0] == "player_id,display_name,events,counted,total,rank,qualified"
    assert len(lines) == 1 + len(season["standings"])


def test_simulate_season_plays_finalized_dated_events_and_names_the_season_last() -> None:
    out = run("simulate_season", "--events", "3", "--players", "6", "--seed", "5")
    lines = out.strip().splitlines()
    assert len(lines) == 1
    outcome = json.loads(lines[0])
    assert list(outcome)[-1] == "season_id"
    season = Season.objects.get(pk=outcome["season_id"])
    events = Event.objects.filter(pk__in=outcome["events"])
    assert len(events) == 3 and {e.phase for e in events} == {Phase.FINALIZED}
    assert all(season.starts_on <= e.date <= season.ends_on for e in events)
    assert SeasonResult.objects.filter(season=season).values("event_id").distinct().count() == 3
    # Each night had one late player and one withdrawal (events.simulation's twists).
    for event in events:
        assert event.registrations.filter(late=True).count() == 1
        assert event.registrations.filter(status="withdrawn").count() == 1


def test_every_audits_signature_is_checked_against_the_deployments_key(exported: Any) -> None:
    season, audits, tmp_path = exported
    key = tmp_path / "public.pem"
    key.write_text(public_key_pem(signing_key().public_key()))
    season_file = tmp_path / "season.json"
    season_file.write_text(json.dumps(season))
    files = []
    for number, audit in enumerate(audits.values()):
        path = tmp_path / f"audit-{number}.json"
        path.write_text(json.dumps(audit))
        files.append(str(path))
    assert "OK" in run("verify_season", str(season_file), *files, "--public-key", str(key))
    other = tmp_path / "other.pem"
    other.write_text(public_key_pem(Ed25519PrivateKey.generate().public_key()))
    with pytest.raises(CommandError, match="does not verify"):
        run("verify_season", str(season_file), *files, "--public-key", str(other))
