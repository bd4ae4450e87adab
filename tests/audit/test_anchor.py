"""The signed head anchors the audit chain: an export rewritten and re-chained, or cut short,
no longer verifies against the deployment's public key. Exports are fetched with real requests,
checked with `manage.py verify_audit --public-key`, and attacked the way an editor of the file
would."""

from __future__ import annotations

import base64
import copy
import csv
import datetime
import io
import json
from pathlib import Path
from typing import Any

import pytest
from cryptography.hazmat.primitives.asymmetric.ed25519 import Ed25519PrivateKey
from django.core.checks import run_checks
from django.core.management import CommandError, call_command
from django.test import Client
from pytest_django.fixtures import Settings

from audit import signing
from audit.anchor import (
    event_digest,
    head_message,
    key_id,
    legacy_head_message,
    public_key_pem,
    read_public_key,
    signature_holds,
)
from audit.chain import GENESIS, entry_hash
from events import services
from events.models import Event
from tests.api.support import Api
from tests.factories import make_table

pytestmark = pytest.mark.django_db

Document = dict[str, Any]


@pytest.fixture(autouse=True)
def deployment_key(settings: Settings) -> str:
    """A deployment key in the environment, as production has, made by `manage.py audit_keys`."""
    out = io.StringIO()
    call_command("audit_keys", stdout=out, stderr=io.StringIO())
    line = out.getvalue().strip()
    assert line.startswith("AUDIT_SIGNING_KEY=")
    settings.AUDIT_SIGNING_KEY = line.removeprefix("AUDIT_SIGNING_KEY=")
    return settings.AUDIT_SIGNING_KEY


def public_key_file(tmp_path: Path) -> Path:
    """The public key as anyone fetches it: GET /audit/public-key, no sign-in."""
    response = Client().get("/audit/public-key")
    assert response.status_code == 200
    path = tmp_path / "audit-key.json"
    path.write_bytes(response.content)
    return path


def verify_audit(tmp_path: Path, document: Document, *key_args: str) -> str:
    path = tmp_path / "audit.json"
    path.write_text(json.dumps(document, ensure_ascii=False))
    out = io.StringIO()
    call_command("verify_audit", str(path), *key_args, stdout=out)
    return out.getvalue()


def refused(tmp_path: Path, document: Document, key: Path) -> str:
    with pytest.raises(CommandError) as problem:
        verify_audit(tmp_path, document, "--public-key", str(key))
    return str(problem.value)


def unfinished_export() -> tuple[Any, Document]:
    table = make_table(players=3, start=True)
    for player in table.players:
        table.choose_start(player)
        table.report(player, 1, "loss")
    document = Api(table.house).get(f"/api/events/{table.event.pk}/audit/").json()
    return table, document


def finalized_export() -> Document:
    """simulate_event -> export_audit, the commands docs/rules.md section 13 names."""
    out = io.StringIO()
    call_command(
        "simulate_event", "--format", "league", "--players", "4", "--seed", "7", stdout=out
    )
    event_id = json.loads(out.getvalue())["event_id"]
    exported = io.StringIO()
    call_command("export_audit", str(event_id), "--format", "json", stdout=exported)
    return dict(json.loads(exported.getvalue()))


def signed_message(document: Document, head: dict[str, Any]) -> bytes:
    """The message a head in the current format signs, rebuilt from the export."""
    return head_message(
        document["event"]["id"],
        head["seq"],
        head["hash"],
        phase=head["phase"],
        at=head["at"],
        event_block=head["event_block"],
    )


def rechain(document: Document, start: int = 0) -> None:
    """What an editor of the file does after changing an entry: hash every later entry again."""
    entries = document["entries"]
    prev = GENESIS if start == 0 else entries[start - 1]["hash"]
    for entry in entries[start:]:
        entry["prev_hash"] = prev
        entry.pop("hash")
        entry["hash"] = prev = entry_hash(entry)


# --- the key, the head, the export ------------------------------------------------------------


def test_the_public_key_is_served_as_json_and_pem(deployment_key: str) -> None:
    private = signing.read_private_key(deployment_key)
    document = Client().get("/audit/public-key").json()
    assert document["algorithm"] == "Ed25519"
    assert document["key_id"] == key_id(private.public_key())
    assert base64.b64decode(document["public_key"]) == private.public_key().public_bytes_raw()
    assert deployment_key not in json.dumps(document)
    pem = Client().get("/audit/public-key.pem")
    assert pem.status_code == 200
    assert pem.content.decode() == public_key_pem(private.public_key())
    assert key_id(read_public_key(pem.content)) == document["key_id"]
    assert Client().post("/audit/public-key").status_code == 405


def test_an_unfinished_export_verifies_against_the_public_key(tmp_path: Path) -> None:
    table, document = unfinished_export()
    event = Event.objects.get(pk=table.event.pk)
    head = document["head"]
    assert (head["seq"], head["hash"]) == (event.audit_seq, event.audit_hash)
    assert head["seq"] == document["entries"][-1]["seq"]
    output = verify_audit(tmp_path, document, "--public-key", str(public_key_file(tmp_path)))
    assert f"checked head: seq {head['seq']} signed by key {head['key_id']}" in output
    assert "OK: the chain verifies; the shuffle is not yet verifiable." in output


def test_simulate_export_verify_passes_end_to_end_with_the_key(tmp_path: Path) -> None:
    document = finalized_export()
    output = verify_audit(tmp_path, document, "--public-key", str(public_key_file(tmp_path)))
    assert "OK: the audit verifies." in output
    assert "checked head:" in output


def test_event_finalized_carries_the_head_signed_before_it(tmp_path: Path) -> None:
    document = finalized_export()
    final = next(e for e in document["entries"] if e["action"] == "event_finalized")
    inner = final["details"]["head"]
    assert inner["seq"] == final["seq"] - 1
    assert inner["hash"] == final["prev_hash"]
    # It says final, when, and which event block: the one the final export shows.
    assert inner["phase"] == "final"
    assert inner["at"] == final["at"]
    assert inner["event_block"] == event_digest(document["event"])
    assert document["event"]["phase"] == "finalized"
    public = read_public_key(public_key_file(tmp_path).read_bytes())
    assert signature_holds(public, signed_message(document, inner), inner["signature"])


def test_the_csv_export_carries_the_signed_head_on_its_last_row(tmp_path: Path) -> None:
    table, document = unfinished_export()
    response = Api(table.house).get(f"/api/events/{table.event.pk}/audit/", format="csv")
    rows = list(csv.DictReader(io.StringIO(response.content.decode())))
    assert len(rows) == len(document["entries"])
    assert all(row["head_signature"] == "" for row in rows[:-1])
    last = rows[-1]
    public = read_public_key(public_key_file(tmp_path).read_bytes())
    assert last["head_key_id"] == key_id(public)
    # The same signed head as the JSON export of the same moment: check it with that head.
    head = document["head"]
    assert (head["seq"], head["hash"]) == (int(last["seq"]), last["hash"])
    assert last["head_signature"] == head["signature"]
    assert signature_holds(public, signed_message(document, head), last["head_signature"])


def test_the_key_is_fetched_from_the_deployments_url(tmp_path: Path, live_server: Any) -> None:
    _, document = unfinished_export()
    output = verify_audit(tmp_path, document, "--public-key", f"{live_server.url}/audit/public-key")
    assert "signed by key" in output


# --- an editor of the file ------------------------------------------------------------------


def test_it_refuses_a_reason_rewritten_and_every_hash_recomputed(tmp_path: Path) -> None:
    key = public_key_file(tmp_path)
    document = finalized_export()
    edited = copy.deepcopy(document)
    index = next(i for i, e in enumerate(edited["entries"]) if e["reason"])
    edited["entries"][index]["reason"] = "Nothing happened here."
    rechain(edited, index)
    # The signed head no longer matches the rewritten chain ...
    assert "not the hash of entry" in refused(tmp_path, edited, key)
    # ... and re-pointing the head at the new last hash breaks its signature.
    edited["head"]["hash"] = edited["entries"][-1]["hash"]
    problem = refused(tmp_path, edited, key)
    assert "event_finalized" in problem or "signature does not hold" in problem


def test_it_refuses_an_actor_rewritten_even_with_both_heads_repointed(tmp_path: Path) -> None:
    key = public_key_file(tmp_path)
    _, document = unfinished_export()
    edited = copy.deepcopy(document)
    first_player = next(e for e in edited["entries"] if e["actor_kind"] == "player")
    first_player["actor"] = "Somebody Else"
    rechain(edited, edited["entries"].index(first_player))
    edited["head"]["hash"] = edited["entries"][-1]["hash"]
    assert "the signature does not hold" in refused(tmp_path, edited, key)


def test_it_refuses_an_unfinished_export_cut_short(tmp_path: Path) -> None:
    key = public_key_file(tmp_path)
    _, document = unfinished_export()
    cut = copy.deepcopy(document)
    del cut["entries"][-3:]
    problem = refused(tmp_path, cut, key)
    assert "cut off" in problem
    # Moving the head down to the new last entry keeps the old signature, which does not hold.
    cut["head"].update(seq=cut["entries"][-1]["seq"], hash=cut["entries"][-1]["hash"])
    assert "the signature does not hold" in refused(tmp_path, cut, key)


def test_it_refuses_entries_added_after_the_signed_head(tmp_path: Path) -> None:
    key = public_key_file(tmp_path)
    _, document = unfinished_export()
    grown = copy.deepcopy(document)
    extra = copy.deepcopy(grown["entries"][-1])
    extra.update(seq=extra["seq"] + 1, action="pool_adjusted", reason="Cash to the organizer")
    grown["entries"].append(extra)
    rechain(grown, len(grown["entries"]) - 1)
    assert "added after the head was signed" in refused(tmp_path, grown, key)


def test_it_refuses_an_export_without_a_head_when_given_the_key(tmp_path: Path) -> None:
    key = public_key_file(tmp_path)
    _, document = unfinished_export()
    stripped = copy.deepcopy(document)
    del stripped["head"]
    assert "carries no signed head" in refused(tmp_path, stripped, key)
    # Without the key it still checks the chain, and says the chain is not anchored.
    output = verify_audit(tmp_path, stripped)
    assert "not anchored" in output


def test_it_refuses_a_head_carried_over_from_another_event(tmp_path: Path) -> None:
    key = public_key_file(tmp_path)
    _, document = unfinished_export()
    moved = copy.deepcopy(document)
    moved["event"]["id"] = document["event"]["id"] + 1
    assert "the signature does not hold" in refused(tmp_path, moved, key)


def test_it_refuses_a_head_signed_by_another_key(tmp_path: Path, settings: Settings) -> None:
    key = public_key_file(tmp_path)
    settings.AUDIT_SIGNING_KEY = signing.private_key_text(Ed25519PrivateKey.generate())
    _, document = unfinished_export()
    assert "not by the given key" in refused(tmp_path, document, key)


def test_it_refuses_a_forged_signature(tmp_path: Path) -> None:
    key = public_key_file(tmp_path)
    _, document = unfinished_export()
    forged = copy.deepcopy(document)
    signature = bytearray(bytes.fromhex(forged["head"]["signature"]))
    signature[0] ^= 1
    forged["head"]["signature"] = signature.hex()
    assert "the signature does not hold" in refused(tmp_path, forged, key)
    forged["head"]["signature"] = "not hex at all"
    assert "the signature does not hold" in refused(tmp_path, forged, key)


@pytest.mark.parametrize(
    "head",
    [[], "head", {"seq": "5"}, {"seq": -1, "hash": "", "signature": "", "key_id": ""}],
)
def test_it_names_a_malformed_head(tmp_path: Path, head: Any) -> None:
    key = public_key_file(tmp_path)
    _, document = unfinished_export()
    document["head"] = head
    assert "signed head" in refused(tmp_path, document, key)


def test_it_says_when_the_key_cannot_be_fetched(tmp_path: Path) -> None:
    _, document = unfinished_export()
    with pytest.raises(CommandError, match="Cannot fetch the public key"):
        verify_audit(tmp_path, document, "--public-key", "http://127.0.0.1:1/audit/public-key")


@pytest.mark.parametrize("content", [b"", b"{}", b"not a key", b"-----BEGIN PUBLIC KEY-----\nx"])
def test_it_refuses_a_public_key_it_cannot_read(tmp_path: Path, content: bytes) -> None:
    _, document = unfinished_export()
    key = tmp_path / "key"
    key.write_bytes(content)
    with pytest.raises(CommandError):
        verify_audit(tmp_path, document, "--public-key", str(key))


# --- the head on the pages, the key in production -------------------------------------------


def test_the_board_and_house_page_show_the_current_head() -> None:
    table, _ = unfinished_export()
    event = Event.objects.get(pk=table.event.pk)
    shown = f"Audit #{event.audit_seq} · <code>{event.audit_hash[:12]}</code>"
    board = Client().get(f"/board/{event.pk}/")
    assert board.status_code == 200
    assert shown in board.content.decode()
    house = Client()
    house.force_login(table.house)
    dashboard = house.get(f"/house/events/{event.pk}/")
    assert dashboard.status_code == 200
    assert shown in dashboard.content.decode()


def test_production_refuses_to_start_without_a_signing_key(settings: Settings) -> None:
    settings.PRODUCTION = True
    settings.AUDIT_SIGNING_KEY = ""
    assert "audit.E001" in {check.id for check in run_checks()}
    settings.AUDIT_SIGNING_KEY = "bm90IGEga2V5"
    assert "audit.E002" in {check.id for check in run_checks()}


def test_outside_production_a_development_key_is_kept(settings: Settings, tmp_path: Path) -> None:
    settings.AUDIT_SIGNING_KEY = ""
    settings.VAR_DIR = tmp_path
    first = signing.signing_key()
    assert (tmp_path / "audit_signing_key.pem").exists()
    assert (tmp_path / "audit_signing_key.pem").stat().st_mode & 0o077 == 0
    signing._signing_key.cache_clear()
    assert key_id(signing.signing_key().public_key()) == key_id(first.public_key())


def test_a_finalized_export_carries_its_own_anchor_even_without_the_top_head(
    tmp_path: Path,
) -> None:
    document = finalized_export()
    edited = copy.deepcopy(document)
    del edited["head"]
    index = next(i for i, e in enumerate(edited["entries"]) if e["action"] == "result_corrected")
    edited["entries"][index]["details"]["to"] = edited["entries"][index]["details"]["from"]
    rechain(edited, index)
    with pytest.raises(CommandError) as problem:
        verify_audit(tmp_path, edited)  # no key: the finalizing entry's head still disagrees
    assert "event_finalized" in str(problem.value)
    assert "the chain was rewritten" in str(problem.value)


# --- what a head says: running or final, when, and which event block ------------------------


def cut_before_finalization(document: Document) -> Document:
    """What the holder of a final export does to present the event as never finalized: cut the
    entries before event_finalized, take that entry's own head as the export's, drop the seed and
    the result, and give the event block the phase the cut entries leave."""
    cut = copy.deepcopy(document)
    index = next(i for i, e in enumerate(cut["entries"]) if e["action"] == "event_finalized")
    cut["head"] = cut["entries"][index]["details"]["head"]
    del cut["entries"][index:]
    cut.update(seed=None, result=None)
    cut["event"]["phase"] = "started"
    return cut


def legacy_head(document: Document, seq: int) -> dict[str, Any]:
    """A head signed by the deployment's key in the old format, which named no phase."""
    key = signing.signing_key()
    entry_hash = GENESIS if seq == 0 else document["entries"][seq - 1]["hash"]
    message = legacy_head_message(document["event"]["id"], seq, entry_hash)
    return {
        "seq": seq,
        "hash": entry_hash,
        "signature": key.sign(message).hex(),
        "key_id": key_id(key.public_key()),
    }


def play_to_the_end(table: Any) -> None:
    for player in table.players:
        table.play_out(player)
    services.pool_confirm(event_id=table.event.pk, by=table.house)
    services.event_finalize(event_id=table.event.pk, by=table.house)


def test_a_final_export_cut_before_finalization_does_not_verify(tmp_path: Path) -> None:
    key = public_key_file(tmp_path)
    cut = cut_before_finalization(finalized_export())
    problem = refused(tmp_path, cut, key)
    assert "says the event was final" in problem
    assert "cut before its finalization" in problem
    # Without the key the file says the same of itself: its head claims final.
    with pytest.raises(CommandError, match="cut before its finalization"):
        verify_audit(tmp_path, cut)
    # Keeping the event block's finalized phase is refused too: the entries never finalize it.
    kept_phase = copy.deepcopy(cut)
    kept_phase["event"]["phase"] = "finalized"
    assert "The event block's phase is 'finalized'" in refused(tmp_path, kept_phase, key)


def test_a_head_signed_final_relabelled_running_does_not_verify(tmp_path: Path) -> None:
    key = public_key_file(tmp_path)
    cut = cut_before_finalization(finalized_export())
    cut["head"]["phase"] = "running"
    assert "the signature does not hold" in refused(tmp_path, cut, key)
    # Its event block is the final one, whatever the head is relabelled.
    cut["head"]["event_block"] = event_digest(cut["event"])
    assert "the signature does not hold" in refused(tmp_path, cut, key)


def test_a_head_stripped_to_the_old_format_does_not_verify(tmp_path: Path) -> None:
    key = public_key_file(tmp_path)
    document = finalized_export()
    cut = cut_before_finalization(document)
    for field in ("phase", "at", "event_block"):
        del cut["head"][field]
    assert "in the old format" in refused(tmp_path, cut, key)
    # On the whole final export the old message was never signed, so the signature fails.
    stripped = copy.deepcopy(document)
    for field in ("phase", "at", "event_block"):
        del stripped["head"][field]
    assert "the signature does not hold for this event, seq and hash" in refused(
        tmp_path, stripped, key
    )


def test_exports_sign_running_until_the_event_is_finalized_then_final(tmp_path: Path) -> None:
    table = make_table(players=2, start=True)
    api = Api(table.house)
    running = api.get(f"/api/events/{table.event.pk}/audit/").json()
    play_to_the_end(table)
    final = api.get(f"/api/events/{table.event.pk}/audit/").json()
    assert running["head"]["phase"] == "running"
    assert running["head"]["event_block"] == event_digest(running["event"])
    assert final["head"]["phase"] == "final"
    assert final["head"]["event_block"] == event_digest(final["event"])
    assert final["head"]["at"] >= running["head"]["at"]
    key = public_key_file(tmp_path)
    output = verify_audit(tmp_path, final, "--public-key", str(key))
    assert f"at {final['head']['at']}: the event was final" in output
    assert "OK: the audit verifies." in output
    # A final export whose head is relabelled running is refused before its signature is read.
    relabelled = copy.deepcopy(final)
    relabelled["head"]["phase"] = "running"
    assert "says the event was still running, but the export finalizes it" in refused(
        tmp_path, relabelled, key
    )


def test_an_earlier_running_export_verifies_as_a_statement_about_its_moment(
    tmp_path: Path,
) -> None:
    """An export signed while the event ran stays true of that moment: it verifies after the
    event is finalized, and says when it was signed and that later entries may exist."""
    table = make_table(players=2, start=True)
    api = Api(table.house)
    earlier = api.get(f"/api/events/{table.event.pk}/audit/").json()
    play_to_the_end(table)
    final = api.get(f"/api/events/{table.event.pk}/audit/").json()
    assert final["entries"][: len(earlier["entries"])] == earlier["entries"]
    output = verify_audit(tmp_path, earlier, "--public-key", str(public_key_file(tmp_path)))
    assert f"at {earlier['head']['at']}: the event was running (not finalized) then" in output
    assert "not that nothing came after it" in output
    assert "OK: the chain verifies; the shuffle is not yet verifiable." in output


def test_exporting_an_unchanged_chain_again_gives_the_same_signed_head() -> None:
    table = make_table(players=2, start=True)
    api = Api(table.house)
    first = api.get(f"/api/events/{table.event.pk}/audit/").json()
    again = api.get(f"/api/events/{table.event.pk}/audit/").json()
    assert again == first
    table.choose_start(table.players[0])
    later = api.get(f"/api/events/{table.event.pk}/audit/").json()
    assert later["head"]["seq"] > first["head"]["seq"]
    assert later["head"]["at"] >= first["head"]["at"]


def test_an_old_format_head_on_an_unfinished_export_is_refused_given_the_key(
    tmp_path: Path,
) -> None:
    key = public_key_file(tmp_path)
    _, document = unfinished_export()
    document["head"] = legacy_head(document, document["entries"][-1]["seq"])
    problem = refused(tmp_path, document, key)
    assert "in the old format, which does not say whether the event was final" in problem
    assert "Download the export again" in problem
    # Without the key nothing is signed-checked, and the output says which format it read.
    output = verify_audit(tmp_path, document)
    assert "in the old format, which signs no phase, time or event block" in output


def test_an_event_finalized_with_an_old_format_head_still_verifies_and_says_so(
    tmp_path: Path,
) -> None:
    """An event finalized before heads named their phase keeps the old head inside its
    event_finalized entry (entries never change); its export, signed anew, still verifies."""
    key = public_key_file(tmp_path)
    document = copy.deepcopy(finalized_export())
    index = next(i for i, e in enumerate(document["entries"]) if e["action"] == "event_finalized")
    final = document["entries"][index]
    final["details"]["head"] = legacy_head(document, final["seq"] - 1)
    rechain(document, index)
    last = document["entries"][-1]
    document["head"] = signing.sign_head(
        document["event"]["id"],
        last["seq"],
        last["hash"],
        phase="final",
        at=document["head"]["at"],
        event_block=event_digest(document["event"]),
    )
    output = verify_audit(tmp_path, document, "--public-key", str(key))
    assert "OK: the audit verifies." in output
    assert "is in the old format" in output
    # Its old head cannot present the event as never finalized either.
    cut = cut_before_finalization(document)
    assert "in the old format" in refused(tmp_path, cut, key)
    # An old-format head on the final export itself verifies, and says it is the old format.
    document["head"] = legacy_head(document, last["seq"])
    output = verify_audit(tmp_path, document, "--public-key", str(key))
    assert "in the old format, which signs no phase, time or event block" in output
    assert "OK: the audit verifies." in output


# --- the event block: checked against the chain, and signed --------------------------------


@pytest.mark.parametrize(
    ("field", "value"),
    [("name", "Another night"), ("venue", "Another bar"), ("date", "2027-01-01")],
)
def test_a_changed_event_setting_does_not_verify(tmp_path: Path, field: str, value: str) -> None:
    key = public_key_file(tmp_path)
    document = finalized_export()
    changed = copy.deepcopy(document)
    changed["event"][field] = value
    problem = refused(tmp_path, changed, key)
    assert f"The event block's {field} is {value!r}" in problem
    assert "(entry seq 1)" in problem  # event_created records the original
    with pytest.raises(CommandError, match="the event block was changed"):
        verify_audit(tmp_path, changed)


def test_a_changed_event_name_does_not_verify(tmp_path: Path) -> None:
    key = public_key_file(tmp_path)
    document = finalized_export()
    created = document["entries"][0]
    assert created["action"] == "event_created"
    changed = copy.deepcopy(document)
    changed["event"]["name"] = "A night that never was"
    assert refused(tmp_path, changed, key) == (
        "The event block's name is 'A night that never was', but the chain records "
        f"{created['details']['name']!r} (entry seq 1): the event block was changed."
    )


def test_a_changed_format_does_not_verify(tmp_path: Path) -> None:
    key = public_key_file(tmp_path)
    document = finalized_export()
    assert document["event"]["format"] == "league"
    changed = copy.deepcopy(document)
    changed["event"]["format"] = "switch"  # League and Switch hands hold seven cards alike
    assert "The event block's format is 'switch', but the chain records 'league'" in refused(
        tmp_path, changed, key
    )


def test_a_changed_contribution_phase_or_commitment_does_not_verify(tmp_path: Path) -> None:
    key = public_key_file(tmp_path)
    document = finalized_export()
    for field, value, problem in (
        ("contribution", 20, "The event block's contribution is 20"),
        ("phase", "started", "The event block's phase is 'started'"),
        ("commitment", "0" * 64, "The event block's commitment is"),
    ):
        changed = copy.deepcopy(document)
        changed["event"][field] = value
        assert problem in refused(tmp_path, changed, key)


def test_settings_edited_before_the_start_verify_against_their_event_updated_entries(
    tmp_path: Path,
) -> None:
    key = public_key_file(tmp_path)
    table = make_table(players=2)
    services.event_update(
        event_id=table.event.pk,
        by=table.house,
        changes={"name": "Friday League", "venue": "The Anchor"},
    )
    services.event_update(
        event_id=table.event.pk, by=table.house, changes={"date": datetime.date(2026, 12, 4)}
    )
    table.start()
    document = Api(table.house).get(f"/api/events/{table.event.pk}/audit/").json()
    assert document["event"]["name"] == "Friday League"
    output = verify_audit(tmp_path, document, "--public-key", str(key))
    assert "as event_created and 2 event_updated entries record them" in output
    # The name event_created recorded is not the name in force any more.
    original = copy.deepcopy(document)
    original["event"]["name"] = "Thursday League"
    problem = refused(tmp_path, original, key)
    assert "The event block's name is 'Thursday League'" in problem
    updated = next(e for e in document["entries"] if e["action"] == "event_updated")
    assert f"(entry seq {updated['seq']})" in problem


def test_the_signature_covers_the_event_block(tmp_path: Path) -> None:
    key = public_key_file(tmp_path)
    document = finalized_export()
    head = document["head"]
    public = read_public_key(key.read_bytes())
    assert signature_holds(public, signed_message(document, head), head["signature"])
    renamed = copy.deepcopy(document)
    renamed["event"]["name"] = "Another night"
    forged = head | {"event_block": event_digest(renamed["event"])}
    assert not signature_holds(public, signed_message(renamed, forged), head["signature"])
    # A key the chain does not check, added to the event block, is caught by the signed digest:
    # the finalizing entry's head signs the final event block too ...
    grown = copy.deepcopy(document)
    grown["event"]["time_zone"] = "Europe/Paris"
    assert "details.head signs another event block than this export's" in refused(
        tmp_path, grown, key
    )
    # ... and so does the head of an unfinished export, whose digest cannot be replaced.
    _, running = unfinished_export()
    running["event"]["time_zone"] = "Europe/Paris"
    assert "The export's signed head signs another event block" in refused(tmp_path, running, key)
    running["head"]["event_block"] = event_digest(running["event"])
    assert "the signature does not hold" in refused(tmp_path, running, key)


def test_a_contribution_written_as_another_json_type_does_not_verify(tmp_path: Path) -> None:
    _, document = unfinished_export()
    assert document["event"]["contribution"] == 10
    changed = copy.deepcopy(document)
    changed["event"]["contribution"] = 10.0
    with pytest.raises(CommandError, match=r"The event block.s contribution is 10\.0,"):
        verify_audit(tmp_path, changed)
