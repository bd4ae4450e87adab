"""After finalization (docs/rules.md section 10.8): a finalized event's chain takes only payouts,
refunds and relabellings, none touching a card, a place or an award; an export or a season
published before them still verifies, since the later chain extends it (docs/audit.md, "Earlier
heads"); a rewritten prefix does not."""

from __future__ import annotations

import copy
import io
import json
from pathlib import Path
from typing import Any

import pytest
from django.core.management import call_command
from django.core.management.base import CommandError
from django.test import Client

from audit.anchor import event_digest
from audit.chain import GENESIS, entry_hash
from audit.export import audit_csv, audit_document
from audit.verify import verify
from events.models import Event, Registration
from events.registration import player_relabel
from ledger import services as ledger
from tests.audit.test_verify import finished, reseal
from tests.seasons.support import make_league

pytestmark = pytest.mark.django_db

Document = dict[str, Any]
RULES = {"high_points": [5, 3, 1], "low_points": [2], "best_of": 2, "min_events": 1}


def run(*args: str) -> str:
    out = io.StringIO()
    call_command(*args, stdout=out)
    return out.getvalue()


def write(folder: Path, name: str, document: object) -> str:
    folder.mkdir(exist_ok=True)
    path = folder / name
    path.write_text(json.dumps(document, ensure_ascii=False))
    return str(path)


def rechain(document: Document, start: int = 0) -> None:
    """What an editor of the file does after changing an entry: hash every later entry again,
    and point the top head at the new last entry."""
    entries = document["entries"]
    prev = GENESIS if start == 0 else entries[start - 1]["hash"]
    for entry in entries[start:]:
        entry["prev_hash"] = prev
        entry.pop("hash")
        entry["hash"] = prev = entry_hash(entry)
    document["head"].update(seq=entries[-1]["seq"], hash=entries[-1]["hash"])


def appended(document: Document, action: str, player: str | None, details: object) -> Document:
    """The export with one more entry after its last, chained as the writer chains it."""
    changed = copy.deepcopy(document)
    last = changed["entries"][-1]
    entry = {
        **{key: value for key, value in last.items() if key != "hash"},
        "seq": last["seq"] + 1,
        "action": action,
        "player": player,
        "actor": "system",
        "actor_kind": "system",
        "details": details,
        "reason": None,
        "prev_hash": last["hash"],
    }
    entry.pop("actor_role", None)
    entry["hash"] = entry_hash(entry)
    changed["entries"].append(entry)
    changed["head"].update(seq=entry["seq"], hash=entry["hash"])
    return changed


def public_key(folder: Path) -> str:
    response = Client().get("/audit/public-key")
    assert response.status_code == 200
    folder.mkdir(exist_ok=True)
    path = folder / "audit-key.json"
    path.write_bytes(response.content)
    return str(path)


def export_all(season_id: int, event_ids: list[int]) -> tuple[Document, dict[int, Document]]:
    season = json.loads(run("export_season", str(season_id)))
    return season, {pk: audit_document(Event.objects.get(pk=pk)) for pk in event_ids}


@pytest.fixture
def published(tmp_path: Path) -> dict[str, Any]:
    """A season of three nights exported with its audits; then a winner is paid and a player's
    account deletion relabels their registrations, and everything is exported again."""
    league = make_league(5)
    league.open_season(RULES)
    a, b, c, d, e = league.players
    nights = [
        league.night(0, [a, b, c, d], seed=11),
        league.night(1, [b, c, d, e, a], seed=12),
        league.night(2, [e, a, c, b], seed=13),
    ]
    old_season, old_audits = export_all(league.season.pk, nights)
    old_csv = audit_csv(Event.objects.get(pk=nights[0]))
    winner = Registration.objects.filter(event_id=nights[0], award__gt=0).order_by("-award").first()
    assert winner is not None and winner.award
    ledger.payout_record(
        event_id=nights[0],
        registration_id=winner.pk,
        by=league.house,
        amount=winner.award,
        method="cash",
        handed_by="Dana at the door",
        acknowledged=True,
    )
    # The account deletion's relabelling, one registration after the other (privacy/services.py).
    deleted = b
    for registration in Registration.objects.filter(player=deleted).order_by("pk"):
        player_relabel(registration_id=registration.pk, by=deleted)
    new_season, new_audits = export_all(league.season.pk, nights)
    return {
        "folder": tmp_path,
        "nights": nights,
        "old": (old_season, old_audits),
        "old_csv": old_csv,
        "new": (new_season, new_audits),
        "key": public_key(tmp_path),
    }


def season_files(folder: Path, season: Document, audits: dict[int, Document]) -> list[str]:
    return [
        write(folder, "season.json", season),
        *(write(folder, f"audit-{pk}.json", audit) for pk, audit in audits.items()),
    ]


def test_exports_published_before_a_payout_and_a_relabelling_still_verify(
    published: dict[str, Any],
) -> None:
    folder, key = published["folder"], published["key"]
    (old_season, old_audits), (new_season, new_audits) = published["old"], published["new"]
    first = published["nights"][0]
    actions = [entry["action"] for entry in new_audits[first]["entries"]]
    assert actions[actions.index("event_finalized") + 1 :][:1] == ["payout_made"]
    assert "player_relabelled" in actions
    assert new_audits[first]["head"]["seq"] > old_audits[first]["head"]["seq"]
    assert old_season["events"][0]["head"] != new_season["events"][0]["head"]

    # The old files alone, and against the deployment's current public key.
    for pk, audit in old_audits.items():
        path = write(folder / "old", f"audit-{pk}.json", audit)
        assert "OK: the audit verifies." in run("verify_audit", path, "--public-key", key)
    old = season_files(folder / "old", old_season, old_audits)
    assert "OK: the season verifies." in run("verify_season", *old, "--public-key", key)
    # The new files, alone.
    new = season_files(folder / "new", new_season, new_audits)
    assert "OK: the season verifies." in run("verify_season", *new, "--public-key", key)
    # The old season against the current audits: its heads are earlier heads their chains
    # extend, and the relabelled player is followed to the label the audits end with.
    mixed = season_files(folder / "mixed", old_season, new_audits)
    output = run("verify_season", *mixed, "--public-key", key)
    assert "OK: the season verifies." in output
    assert "an earlier head that its audit's chain extends" in output
    # The old audit against the current one: the later chain extends it.
    old_audit = write(folder / "pair", "old.json", old_audits[first])
    new_audit = write(folder / "pair", "new.json", new_audits[first])
    output = run("verify_audit", old_audit, new_audit, "--public-key", key)
    assert "the later chain extends it" in output
    assert "OK: the audit verifies." in output
    # The CSV downloaded before, too (its chain: the CSV carries no event id for the key).
    old_csv = folder / "pair" / "old.csv"
    old_csv.write_text(published["old_csv"])
    assert "the later chain extends it" in run("verify_audit", str(old_csv), new_audit)


def test_a_rewritten_prefix_does_not_verify_against_the_later_chain(
    published: dict[str, Any],
) -> None:
    folder, key = published["folder"], published["key"]
    (old_season, old_audits), (_, new_audits) = published["old"], published["new"]
    first = published["nights"][0]
    # An earlier export (cut before the finalization, as one downloaded while the event ran)
    # whose reason was rewritten and re-chained: it holds alone, unsigned, but the later chain
    # tells.
    tampered = copy.deepcopy(old_audits[first])
    cut = next(e["seq"] for e in tampered["entries"] if e["action"] == "event_finalized")
    del tampered["entries"][cut - 1 :]
    tampered.update(seed=None, result=None)
    tampered["event"]["phase"] = "started"
    tampered["head"].update(phase="running", event_block=event_digest(tampered["event"]))
    entry = next(e for e in tampered["entries"] if e["action"] == "player_registered")
    entry["reason"] = "rewritten"
    rechain(tampered, entry["seq"] - 1)
    assert "OK: the chain verifies" in run("verify_audit", write(folder, "alone.json", tampered))
    rewritten = write(folder, "rewritten.json", tampered)
    later = write(folder, "new.json", new_audits[first])
    with pytest.raises(CommandError, match=rf"entry seq {entry['seq']} differs"):
        run("verify_audit", rewritten, later)
    # The old season's head repointed at a rewritten hash is no head of the current chain.
    season = copy.deepcopy(old_season)
    season["events"][0]["head"]["hash"] = "0" * 64
    files = season_files(folder / "season", season, new_audits)
    with pytest.raises(CommandError, match="does not match the head of its audit"):
        run("verify_season", *files)
    # Nor does a head signed for another seq of the chain, with the key.
    season = copy.deepcopy(old_season)
    head = season["events"][0]["head"]
    entries = new_audits[season["events"][0]["event_id"]]["entries"]
    head.update(seq=head["seq"] - 1, hash=entries[head["seq"] - 2]["hash"])
    files = season_files(folder / "season-seq", season, new_audits)
    with pytest.raises(CommandError, match="signature does not hold"):
        run("verify_season", *files, "--public-key", key)


def test_a_new_season_needs_the_audits_its_heads_sign(published: dict[str, Any]) -> None:
    folder = published["folder"]
    (_, old_audits), (new_season, _) = published["old"], published["new"]
    files = season_files(folder, new_season, old_audits)
    with pytest.raises(CommandError, match="it signs a later export of the event"):
        run("verify_season", *files)


def test_a_finalized_event_takes_only_payouts_refunds_sponsor_money_and_relabellings(
    published: dict[str, Any],
) -> None:
    folder = published["folder"]
    audit = published["new"][1][published["nights"][0]]
    path = write(folder, "audit.json", audit)
    assert "OK: the audit verifies." in run("verify_audit", path)
    winner = next(p for p in audit["result"]["players"] if p["award"] > 0)
    loser = next(p for p in audit["result"]["players"] if p["award"] == 0)
    card = next(p for p in audit["result"]["players"] if p["cards"])
    wrong: dict[str, tuple[Document, str]] = {
        "a correction after finalization": (
            appended(audit, "result_corrected", loser["player"], {"game": 1}),
            "follows event_finalized",
        ),
        "an entry of a new kind after finalization": (
            appended(audit, "award_changed", winner["player"], {"award": 1}),
            "a finalized event takes only "
            "payout_made, entry_refunded, sponsor_paid, player_relabelled",
        ),
        "a payout that names a card": (
            appended(
                audit,
                "payout_made",
                winner["player"],
                {"amount": 0, "award": winner["award"], "card": {"shoe": "stock", "position": 0}},
            ),
            "names a dealt card",
        ),
        "a payout beyond the award": (
            appended(
                audit,
                "payout_made",
                winner["player"],
                {"amount": winner["award"] + 1, "award": winner["award"], "method": "cash"},
            ),
            "more than the",
        ),
        "a payout that changes the award": (
            appended(
                audit,
                "payout_made",
                loser["player"],
                {"amount": 0, "award": 5, "method": "cash"},
            ),
            "a payout never changes an award",
        ),
        "a refund to an eligible winner after finalization": (
            appended(
                audit,
                "entry_refunded",
                winner["player"],
                {"amount": 10, "method": "cash", "grounds": "withdrawal"},
            ),
            "who finished eligible",
        ),
    }
    assert card["cards"]
    for what, (document, problem) in wrong.items():
        path = write(folder, "wrong.json", document)
        with pytest.raises(CommandError, match=problem):
            run("verify_audit", path)
            pytest.fail(f"{what} verified")
    # The season verifier checks each audit in full, so it refuses them too.
    season, audits = published["new"]
    audits = {**audits, published["nights"][0]: wrong["a correction after finalization"][0]}
    with pytest.raises(CommandError, match="follows event_finalized"):
        run("verify_season", *season_files(folder / "season", season, audits))


def test_a_payout_before_finalization_is_refused() -> None:
    """Awards are paid once the event is finalized (docs/rules.md section 10.8)."""
    document = finished()
    entries = document["entries"]
    at = next(i for i, e in enumerate(entries) if e["action"] == "event_finalized")
    payout = {
        **{key: value for key, value in entries[at].items() if key != "hash"},
        "action": "payout_made",
        "player": document["result"]["players"][0]["player"],
        "details": {"amount": 0, "award": 0, "method": "cash"},
    }
    entries.insert(at, payout)
    for seq, entry in enumerate(entries, start=1):
        entry["seq"] = seq
    reseal(entries)
    verdict = verify(document)
    assert not verdict.ok
    assert "before event_finalized" in (verdict.problem or "")
