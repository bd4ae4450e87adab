"""The command contract of docs/rules.md section 13: `simulate_event`, `export_audit` and
`verify_audit`.

Each (format, players) simulation plays a whole event through the services, which takes seconds,
so it runs once per test session: the first test that needs it runs the commands inside its own
test transaction and keeps their text output (plain strings, no database rows) for the others.
"""

from __future__ import annotations

import copy
import csv
import hashlib
import io
import json
import subprocess
import sys
from collections.abc import Callable, Iterator
from dataclasses import dataclass
from pathlib import Path
from typing import Any

import pytest
from django.core.management import call_command
from django.core.management.base import CommandError

from audit.chain import GENESIS, entry_hash
from tests.factories import make_table

pytestmark = pytest.mark.django_db

FORMATS = ["league", "switch", "standard-v1"]
SIZES = [2, 4, 9]
KEPT = {"league": 7, "switch": 7, "standard-v1": 6}
OFFERED = {"league": 3, "switch": 5, "standard-v1": 0}
SEED = 20261203
CONTRIBUTION = 10  # simulate_event's default
# The fields of docs/rules.md section 10.3, with the actor's kind beside the actor; then the signed
# head's columns.
ENTRY_COLUMNS = [
    "seq",
    "at",
    "actor",
    "actor_kind",
    "action",
    "player",
    "details",
    "reason",
    "prev_hash",
    "hash",
    "actor_role",
]
HEAD_COLUMNS = ["head_signature", "head_key_id"]
REVEALING = {"starting_selection_confirmed", "player_withdrawn"}
ROOT = Path(__file__).resolve().parents[2]

SIMULATIONS = [
    pytest.param(format, players, id=f"{format}-{players}")
    for format in FORMATS
    for players in SIZES
]
# docs/rules.md section 13: with N >= 4 the event includes a late entry, a withdrawal, a correction,
# a House selection.
WITH_TWISTS = [
    pytest.param(format, players, id=f"{format}-{players}")
    for format in FORMATS
    for players in SIZES
    if players >= 4
]

type Document = dict[str, Any]


@dataclass(frozen=True)
class Simulated:
    format: str
    players: int
    stdout: str
    json_export: str
    csv_export: str

    @property
    def document(self) -> Document:
        return json.loads(self.json_export)  # a fresh copy for every caller

    def entries(self, action: str | None = None) -> list[dict[str, Any]]:
        entries: list[dict[str, Any]] = self.document["entries"]
        return [entry for entry in entries if action is None or entry["action"] == action]


_simulations: dict[tuple[str, int], Simulated] = {}


def simulated(format: str, players: int) -> Simulated:
    """Run simulate_event then export_audit (JSON and CSV), once per session."""
    key = (format, players)
    if key not in _simulations:
        out = io.StringIO()
        call_command(
            "simulate_event",
            "--format",
            format,
            "--players",
            str(players),
            "--seed",
            str(SEED),
            stdout=out,
        )
        event_id = json.loads(out.getvalue())["event_id"]
        _simulations[key] = Simulated(
            format=format,
            players=players,
            stdout=out.getvalue(),
            json_export=export(event_id, "json"),
            csv_export=export(event_id, "csv"),
        )
    return _simulations[key]


def export(event_id: int, format: str) -> str:
    out = io.StringIO()
    call_command("export_audit", str(event_id), "--format", format, stdout=out)
    return out.getvalue()


def verify_audit(path: Path) -> str:
    """Run verify_audit on the file; its output, or CommandError naming the first problem."""
    out = io.StringIO()
    call_command("verify_audit", str(path), stdout=out)
    return out.getvalue()


def write(tmp_path: Path, document: Document | str, name: str = "audit.json") -> Path:
    path = tmp_path / name
    text = document if isinstance(document, str) else json.dumps(document, ensure_ascii=False)
    path.write_text(text, encoding="utf-8")
    return path


def dealt_cards_in(value: object) -> Iterator[dict[str, Any]]:
    """Every {"shoe", "position"} object in an entry's details, in document order."""
    if isinstance(value, dict):
        if "shoe" in value and "position" in value:
            yield value
        for item in value.values():
            yield from dealt_cards_in(item)
    elif isinstance(value, list):
        for item in value:
            yield from dealt_cards_in(item)


def rechain(document: Document) -> Document:
    """Recompute every hash, as a forger who knows the chain rule would."""
    prev_hash = GENESIS
    for entry in document["entries"]:
        entry["prev_hash"] = prev_hash
        entry["hash"] = entry_hash({k: v for k, v in entry.items() if k != "hash"})
        prev_hash = entry["hash"]
    return document


# simulate_event and export_audit ------------------------------------------------------------------


@pytest.mark.parametrize(("format", "players"), SIMULATIONS)
def test_simulate_event_prints_one_json_line_with_the_event_id(format: str, players: int) -> None:
    run = simulated(format, players)

    lines = run.stdout.splitlines()
    assert len(lines) == 1, run.stdout
    summary = json.loads(lines[0])
    assert isinstance(summary["event_id"], int)
    document = run.document
    assert document["event"]["id"] == summary["event_id"]
    assert document["event"]["format"] == format
    assert document["event"]["contribution"] == CONTRIBUTION
    assert document["event"]["name"]
    assert document["event"]["phase"] == "finalized"
    assert len(run.entries("player_checked_in")) == players


@pytest.mark.parametrize(("format", "players"), SIMULATIONS)
def test_the_json_export_verifies(tmp_path: Path, format: str, players: int) -> None:
    run = simulated(format, players)

    output = verify_audit(write(tmp_path, run.json_export))

    assert "OK: the audit verifies." in output
    assert "checked chain" in output
    assert "checked commitment" in output


@pytest.mark.parametrize(("format", "players"), SIMULATIONS)
def test_the_csv_export_has_one_row_per_entry_with_the_spec_fields(
    format: str, players: int
) -> None:
    run = simulated(format, players)

    header, *rows = list(csv.reader(io.StringIO(run.csv_export)))

    assert header == ENTRY_COLUMNS + HEAD_COLUMNS
    entries = run.entries()
    assert len(rows) == len(entries)
    head = run.document["head"]
    for row, entry in zip(rows, entries, strict=True):
        written = dict(zip(header, row, strict=True))
        assert int(written["seq"]) == entry["seq"]
        assert json.loads(written["details"]) == entry["details"]
        for column in ("at", "actor", "actor_kind", "action", "player", "reason", "prev_hash"):
            assert written[column] == ("" if entry[column] is None else entry[column]), column
        assert written["hash"] == entry["hash"]
        # A House entry names the role House acted in; no other entry names one.
        assert written["actor_role"] == entry.get("actor_role", "")
        assert (written["actor_role"] != "") == (entry["actor_kind"] == "house")
        # The signed head rides on the last row only (Ed25519 signs the same head identically).
        signs = entry is entries[-1]
        assert written["head_signature"] == (head["signature"] if signs else "")
        assert written["head_key_id"] == (head["key_id"] if signs else "")


@pytest.mark.parametrize(("format", "players"), SIMULATIONS)
def test_the_result_block_has_the_spec_shape(format: str, players: int) -> None:
    document = simulated(format, players).document
    result = document["result"]

    assert set(result) == {"pool", "adjustments", "unallocated", "players"}
    for adjustment in result["adjustments"]:
        assert set(adjustment) == {"amount", "explanation"}
        assert isinstance(adjustment["amount"], int) and adjustment["amount"] != 0
        assert isinstance(adjustment["explanation"], str) and adjustment["explanation"]
    assert len(result["players"]) == players
    adjusted = sum(adjustment["amount"] for adjustment in result["adjustments"])
    assert result["pool"] == CONTRIBUTION * players + adjusted
    assert sum(p["award"] for p in result["players"]) + result["unallocated"] == result["pool"]
    for player in result["players"]:
        assert set(player) == {
            "player",
            "status",
            "cards",
            "wild_rank",
            "high_place",
            "low_place",
            "award",
        }
        assert player["status"] in ("eligible", "withdrawn")
        assert all(isinstance(card, str) and len(card) == 2 for card in player["cards"])
        assert isinstance(player["award"], int) and player["award"] >= 0
        if player["status"] == "eligible":
            assert len(player["cards"]) == KEPT[format]
            assert player["wild_rank"] in list("23456789TJQKA")
            assert isinstance(player["high_place"], int)
            assert isinstance(player["low_place"], int)
        else:
            assert player["high_place"] is None and player["low_place"] is None
            assert player["award"] == 0
    eligible = [p for p in result["players"] if p["status"] == "eligible"]
    for place in ("high_place", "low_place"):
        places = [p[place] for p in eligible]
        # Competition ranking (1, 1, 3): a place is 1 + the number of players strictly ahead.
        assert all(mine == 1 + sum(other < mine for other in places) for mine in places), places
    started = run_entry(document, "event_started")
    assert (
        hashlib.sha256(bytes.fromhex(document["seed"])).hexdigest()
        == (started["details"]["commitment"])
    )
    assert run_entry(document, "event_finalized")["details"]["seed"] == document["seed"]


def run_entry(document: Document, action: str) -> dict[str, Any]:
    (entry,) = [entry for entry in document["entries"] if entry["action"] == action]
    return entry


@pytest.mark.parametrize(
    ("format", "players"),
    WITH_TWISTS,
)
def test_four_or_more_players_include_every_twist(format: str, players: int) -> None:
    run = simulated(format, players)
    entries = run.entries()
    started_at = run_entry(run.document, "event_started")["seq"]

    late = [
        e
        for e in run.entries("player_checked_in")
        if e["details"]["late"] and e["seq"] > started_at
    ]
    assert len(late) == 1
    (withdrawn,) = run.entries("player_withdrawn")
    statuses = {p["player"]: p["status"] for p in run.document["result"]["players"]}
    assert statuses[withdrawn["player"]] == "withdrawn"
    assert withdrawn["reason"]
    (corrected,) = run.entries("result_corrected")
    assert corrected["reason"]
    assert any(
        e["action"] == "review_resolved"
        and e["player"] == corrected["player"]
        and e["seq"] > corrected["seq"]
        and e["reason"]
        for e in entries
    )
    by_house = [e for e in run.entries("win_choice_confirmed") if e["details"]["by_house"]]
    assert len(by_house) == 1
    assert by_house[0]["reason"]
    assert by_house[0]["actor"].startswith("House: ")
    kept_by_house = [
        e
        for e in run.entries("card_kept")
        if e["details"]["source"] == "house" and e["player"] == by_house[0]["player"]
    ]
    assert [e["details"]["card"] for e in kept_by_house] == [by_house[0]["details"]["kept"]]


@pytest.mark.parametrize(("format", "players"), SIMULATIONS)
def test_no_entry_names_a_face_down_card_before_its_reveal(format: str, players: int) -> None:
    face_down: dict[tuple[str, int], int] = {}  # position -> the entry that dealt it face down
    named: set[tuple[str, int]] = set()
    for entry in simulated(format, players).entries():
        for card in dealt_cards_in(entry["details"]):
            key = (card["shoe"], card["position"])
            if "card" not in card:
                assert key not in named, f"seq {entry['seq']} hides {key} after it was shown"
                face_down.setdefault(key, entry["seq"])
            elif key in face_down:
                assert entry["action"] in REVEALING, (
                    f"seq {entry['seq']} ({entry['action']}) names the face-down card at {key}, "
                    f"dealt at seq {face_down[key]}, before it is revealed"
                )
                del face_down[key]
                named.add(key)
            else:
                named.add(key)

    assert face_down == {}, "face-down cards never revealed"
    offers = simulated(format, players).entries("starting_offer_dealt")
    assert len(offers) == (players if OFFERED[format] else 0)
    for offer in offers:
        assert len(offer["details"]["cards"]) == OFFERED[format]
        assert all("card" not in card for card in offer["details"]["cards"])


# verify_audit on tampered files -------------------------------------------------------------------


def kept_entry(document: Document) -> dict[str, Any]:
    return next(e for e in document["entries"] if e["action"] == "card_kept")


def other_card(card: str) -> str:
    return ("2" if card[0] != "2" else "3") + card[1]


def change_kept_card(document: Document) -> str:
    entry = kept_entry(document)
    entry["details"]["card"]["card"] = other_card(entry["details"]["card"]["card"])
    return f"Entry seq {entry['seq']}: its hash does not match its contents"


def change_kept_card_and_rechain(document: Document) -> str:
    entry = kept_entry(document)
    card = entry["details"]["card"]
    forged = other_card(card["card"])
    message = f"stock position {card['position']} is named {forged}, but the revealed seed puts"
    card["card"] = forged
    rechain(document)
    return message


def change_a_result_card(document: Document) -> str:
    player = next(p for p in document["result"]["players"] if p["status"] == "eligible")
    player["cards"][0] = other_card(player["cards"][0])
    return f"Result for {player['player']}: the cards are"


def change_an_award(document: Document) -> str:
    player = max(document["result"]["players"], key=lambda p: p["award"])
    player["award"] += 1
    return f"Result for {player['player']}: the award is ${player['award']}"


def move_an_award_in_the_final_entry(document: Document) -> str:
    entry = run_entry(document, "event_finalized")
    awards = entry["details"]["awards"]
    label = max(awards, key=awards.get)
    awards[label] -= 1
    rechain(document)
    return f"the award of {label} is {awards[label]}"


def change_the_seed(document: Document) -> str:
    document["seed"] = "00" * 32
    return "details.seed is not the document's seed"


def drop_an_entry(document: Document) -> str:
    removed = document["entries"].pop(3)
    return f"seq {removed['seq']} is missing"


TAMPERINGS: dict[str, Callable[[Document], str]] = {
    "kept card": change_kept_card,
    "kept card, hashes recomputed": change_kept_card_and_rechain,
    "card in the result": change_a_result_card,
    "award in the result": change_an_award,
    "award in event_finalized, hashes recomputed": move_an_award_in_the_final_entry,
    "seed": change_the_seed,
    "missing entry": drop_an_entry,
}


@pytest.mark.parametrize("tampering", list(TAMPERINGS))
def test_verify_audit_names_the_tampering(tmp_path: Path, tampering: str) -> None:
    document = simulated("league", 4).document
    problem = TAMPERINGS[tampering](document)

    with pytest.raises(CommandError) as refused:
        verify_audit(write(tmp_path, document))

    assert problem in str(refused.value)


def test_verify_audit_exits_non_zero_naming_the_problem(tmp_path: Path) -> None:
    document = simulated("switch", 4).document
    problem = change_an_award(document)

    finished = subprocess.run(
        [sys.executable, "manage.py", "verify_audit", str(write(tmp_path, document))],
        cwd=ROOT,
        capture_output=True,
        text=True,
        timeout=120,
        check=False,
    )

    assert finished.returncode != 0
    assert problem in finished.stderr
    assert "OK" not in finished.stdout


def test_an_event_not_yet_finalized_verifies_its_chain_only(tmp_path: Path) -> None:
    table = make_table("league", players=3, start=True)
    ann = table.players[0]
    table.choose_start(ann)
    table.report(ann, 1, "win")

    document = json.loads(export(table.event.pk, "json"))
    output = verify_audit(write(tmp_path, document))

    assert document["seed"] is None
    assert document["result"] is None
    assert document["event"]["phase"] == "started"
    assert "OK: the chain verifies; the shuffle is not yet verifiable." in output
    assert "OK: the audit verifies." not in output
    # The chain is still checked: a changed entry fails.
    tampered = copy.deepcopy(document)
    tampered["entries"][-1]["actor"] = "Mallory"
    with pytest.raises(CommandError, match="its hash does not match its contents"):
        verify_audit(write(tmp_path, tampered, "tampered.json"))


def test_export_audit_refuses_an_unknown_event() -> None:
    with pytest.raises(CommandError, match="No event with id"):
        export(987654321, "json")


def test_simulate_event_refuses_fewer_than_two_players() -> None:
    with pytest.raises(CommandError, match="at least 2"):
        call_command("simulate_event", "--format", "league", "--players", "1", "--seed", "1")


@pytest.mark.django_db
@pytest.mark.parametrize(("format", "players"), WITH_TWISTS)
def test_the_simulated_night_records_its_ledger_end_to_end(format, players, tmp_path):
    """Entries in cash and by card, a comp, the withdrawn player's refund, every award paid out:
    each a line of the chain, and the export still verifies."""
    run = simulated(format, players)
    paid = run.entries("entry_paid")
    methods = [entry["details"]["method"] for entry in paid]
    assert len(paid) == players and methods.count("comp") == 1
    assert {"cash", "card"} <= set(methods)
    (refund,) = run.entries("entry_refunded")
    assert refund["details"] == {
        "version": 1,
        "method": "cash",
        "amount": CONTRIBUTION,
        "grounds": "withdrawal",
    }
    awards = {
        player["player"]: player["award"]
        for player in run.document["result"]["players"]
        if player["award"]
    }
    payouts = {entry["player"]: entry["details"]["amount"] for entry in run.entries("payout_made")}
    assert payouts == awards
    assert run.entries()[-1]["action"] == "payout_made"
    assert "OK: the audit verifies." in verify_audit(write(tmp_path, run.json_export))
