"""The independent audit verifier (docs/rules.md section 10.7, docs/audit.md).

It reads the JSON export alone and re-checks the event from it: the hash chain (with each entry's
actor kind), the event block against the entries, the shuffle commitment, every dealt card against
the shoes recomputed from the revealed seed, the hands, the pool, the High and Low places, the
awards, and last the signed head (audit/anchor.py): its phase against the export, its event block,
and its signature when given the deployment's public key. Pure Python (no Django, no database), so
anyone holding the file can run it. Checks run in that order and stop at the first problem.
"""

from __future__ import annotations

import csv
import hashlib
import io
import itertools
import json
import re
from collections import Counter
from collections.abc import Iterator, Mapping, Sequence
from dataclasses import dataclass, field
from typing import Any, TypeGuard

from cryptography.hazmat.primitives.asymmetric.ed25519 import Ed25519PublicKey

from audit.anchor import (
    FINAL,
    PHASES,
    RUNNING,
    event_digest,
    head_message,
    key_id,
    legacy_head_message,
    owner_head_message,
    signature_holds,
)
from audit.chain import GENESIS, canonical_json, entry_hash
from audit.money_lines import (
    ACTIONS,
    CASH,
    EntryPaid,
    MoneyLine,
    PaymentMarked,
    UnreadableLine,
    read_line,
)
from audit.spreadsheet import original_text
from cards.shuffle import HOUSE, STOCK, shuffled
from events.formats import format_for
from payouts.allocation import allocate
from scoring.standings import Hand, Standings, standings

SHOES = ("stock", "house")
ACTOR_KINDS = ("system", "house", "player")
# The roles a House entry may name (staff/roles.py; "site": site staff who hold no role in the
# event, changing its staff); entries from before roles name none.
STAFF_ROLES = ("owner", "director", "cashier", "scorer", "site")
STATUSES = ("eligible", "withdrawn")
MOST_DECKS = 2_000  # far above any event (1,000 players); keeps a hostile file from stalling us


@dataclass(frozen=True, slots=True)
class Verdict:
    """What the verifier found: ok, or the first problem; and what it checked before stopping."""

    ok: bool
    checked: tuple[str, ...]
    problem: str | None = None
    finalized: bool = False  # False: the chain may hold, but the shuffle is not yet verifiable
    # The owner of a chain above events the document exports ("series"), or "" for an event's.
    owner: str = ""


class AuditProblem(Exception):
    """The first thing in the document that does not hold, as a plain sentence."""


def verify_json(text: str | bytes, public_key: Ed25519PublicKey | None = None) -> Verdict:
    """Verify an export given as JSON text; text that is not JSON is a problem, not an error.

    With the deployment's `public_key`, the export must also carry the head it signed.
    """
    try:
        document = read_json(text, "The file")
    except AuditProblem as problem:
        return Verdict(ok=False, checked=(), problem=str(problem))
    return verify(document, public_key)


def read_json(text: str | bytes, what: str) -> Any:
    """Parsed JSON, or an AuditProblem naming what is wrong with it in plain words: not JSON
    (or not text), nested too deeply, or a number too long to read (Python's int-string limit)."""
    try:
        return json.loads(text)
    except (json.JSONDecodeError, UnicodeDecodeError) as error:
        raise AuditProblem(f"{what} is not JSON: {error}.") from None
    except RecursionError:
        raise AuditProblem(f"{what} is nested too deeply to be an export.") from None
    except ValueError:
        # json.loads refuses an integer of more than sys.get_int_max_str_digits() digits.
        raise AuditProblem(
            f"{what} holds a number too long to read (thousands of digits): no export does."
        ) from None


CSV_COLUMNS = (
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
)
# Exports made before House entries named a role have no actor_role column.
CSV_COLUMNS_WITHOUT_ROLES = CSV_COLUMNS[:-1]
# The signed head's cells, filled on the last row only; the CSV has no event id to check them with.
CSV_HEAD_COLUMNS = ("head_signature", "head_key_id")
NULLABLE = ("player", "reason")  # an empty cell is null, or empty text: the hash tells which
SEQ_CELL = re.compile(r"[0-9]{1,18}")  # ASCII digits only: int() would take "²" or 5,000 digits


def verify_csv(text: str | bytes) -> Verdict:
    """Verify a CSV export: its hash chain. The CSV holds no seed or result, so the shuffle,
    hands and awards are checked from the JSON export."""
    checked: list[str] = []
    try:
        entries = check_chain(entries_from_csv(text))
    except AuditProblem as problem:
        return Verdict(ok=False, checked=tuple(checked), problem=str(problem))
    checked.append(f"chain: {len(entries)} entries, seq 1 to {len(entries)}, every hash intact")
    checked.append(
        "shuffle: not verifiable from the CSV export, which holds no seed and no result; "
        "verify the JSON export for that"
    )
    return Verdict(ok=True, checked=tuple(checked), finalized=False)


def looks_like_csv(text: str | bytes) -> bool:
    """Whether a file is the CSV export (its header) rather than the JSON one."""
    head = text[:8] if isinstance(text, str) else text[:8].decode("utf-8", "replace")
    return head.removeprefix("\ufeff").startswith("seq,")


def entries_from_csv(text: str | bytes) -> list[dict[str, Any]]:
    """The entries of a CSV export as the JSON export has them, spreadsheet marks removed."""
    if isinstance(text, bytes):
        try:
            text = text.decode("utf-8")
        except UnicodeDecodeError as error:
            raise AuditProblem(f"The file is not UTF-8 text: {error}.") from None
    try:
        header, *rows = list(csv.reader(io.StringIO(text.removeprefix("\ufeff"), newline="")))
    except ValueError:
        raise AuditProblem("The file is empty: it has no CSV header.") from None
    except csv.Error as error:
        raise AuditProblem(f"The file is not valid CSV: {error}.") from None
    entry_columns: tuple[str, ...] = CSV_COLUMNS
    if tuple(header) == CSV_COLUMNS_WITHOUT_ROLES + CSV_HEAD_COLUMNS:
        entry_columns = CSV_COLUMNS_WITHOUT_ROLES  # an export from before roles
    columns = entry_columns + CSV_HEAD_COLUMNS
    if tuple(header) != columns:
        raise AuditProblem(f"The CSV header is not {','.join(CSV_COLUMNS + CSV_HEAD_COLUMNS)}.")
    entries = []
    for number, row in enumerate(rows, start=1):
        if len(row) != len(columns):
            raise AuditProblem(f"Row {number} of the CSV has {len(row)} cells, not {len(columns)}.")
        cells = dict(zip(entry_columns, (original_text(cell) for cell in row), strict=False))
        if not cells["actor_kind"]:
            del cells["actor_kind"]  # an entry written before actors had kinds
        if not cells.get("actor_role", "x"):
            del cells["actor_role"]  # a player's or the system's entry, or one from before roles
        if not SEQ_CELL.fullmatch(cells["seq"]):
            raise AuditProblem(f"Row {number} of the CSV has no whole-number seq.")
        details = read_json(cells["details"], f"Row {number} of the CSV: details")
        entry: dict[str, Any] = {**cells, "seq": int(cells["seq"]), "details": details}
        entries.append(_with_nulls(entry))
    return entries


def _with_nulls(entry: dict[str, Any]) -> dict[str, Any]:
    """Empty player and reason cells as null or as empty text, whichever the hash was made of."""
    empty = [column for column in NULLABLE if entry[column] == ""]
    without_hash = {key: value for key, value in entry.items() if key != "hash"}
    for choice in itertools.product((None, ""), repeat=len(empty)):
        candidate = without_hash | dict(zip(empty, choice, strict=True))
        if entry_hash(candidate) == entry["hash"]:
            return candidate | {"hash": entry["hash"]}
    return entry | dict.fromkeys(empty)


def verify(document: object, public_key: Ed25519PublicKey | None = None) -> Verdict:
    """Check an exported audit document (the parsed JSON), stopping at the first problem."""
    checked: list[str] = []
    owner = owner_of(document)
    try:
        if owner:
            finalized = _verify_owner_chain(document, owner, checked, public_key)
        else:
            finalized = _verify(document, checked, public_key)
    except AuditProblem as problem:
        return Verdict(ok=False, checked=tuple(checked), problem=str(problem), owner=owner)
    except RecursionError:
        problem_text = "The document is nested too deeply to be an audit."
        return Verdict(ok=False, checked=tuple(checked), problem=problem_text, owner=owner)
    return Verdict(ok=True, checked=tuple(checked), finalized=finalized, owner=owner)


def _verify(document: object, checked: list[str], public_key: Ed25519PublicKey | None) -> bool:
    export = read_export(document)
    entries = check_chain(export.entries)
    checked.append(f"chain: {len(entries)} entries, seq 1 to {len(entries)}, every hash intact")
    entries, relabelled = follow_relabels(entries)
    if relabelled:
        checked.append(
            f"labels: {relabelled} player{'s' if relabelled != 1 else ''} relabelled "
            "(player_relabelled), followed to the label the result names"
        )
    checked.append(check_event_block(export.event, entries))
    checked.append(check_after_final(entries))

    seed = revealed_seed(export, entries)
    if seed is None:
        checked.extend(filter(None, [check_ledger(entries)]))
        checked.append(check_anchor(export, entries, public_key, finalized=False))
        checked.append(
            "shuffle: not yet verifiable: the event is not finalized, so its seed is not revealed"
        )
        return False

    start = check_commitment(seed, entries, export.event)
    checked.append(f"commitment: sha256 of the revealed seed matches entry seq {start.seq}")

    shoes = {
        "stock": shuffled(start.decks, seed, STOCK),
        "house": shuffled(start.house_decks, seed, HOUSE),
    }
    dealt = check_dealt_cards(entries, shoes, start.seq)
    checked.append(
        f"shuffle: {dealt['stock']} stock cards and {dealt['house']} house cards match the seed, "
        "dealt in order, every face-down card revealed"
    )

    hands = recompute_hands(entries)
    kept = sum(len(hand.cards) for hand in hands.values())
    wilds = sum(1 for hand in hands.values() if hand.wild_rank is not None)
    checked.append(
        f"hands: {kept} kept cards in {len(hands)} hands, {wilds} wilds revealed, "
        "no position kept twice"
    )

    result = read_result(export.result)
    checked.append(check_pool(entries, export.event, result))
    check_players(result, hands, hand_size(export.event))
    eligible = sum(1 for player in result.players if player.status == "eligible")
    checked.append(
        f"players: {len(result.players)} in the result ({eligible} eligible, "
        f"{len(result.players) - eligible} withdrawn) match their kept cards, wilds and status"
    )
    places = check_places(result)
    checked.append(f"places: High and Low recomputed for {eligible} eligible players")
    checked.append(check_awards(result, places, entries))
    checked.append(check_payouts(result, entries))
    checked.extend(filter(None, [check_ledger(entries)]))
    # Last, so a re-chained export still names what its rewriting broke in the event itself.
    checked.append(check_anchor(export, entries, public_key, finalized=True))
    return True


# A chain above events ---------------------------------------------------------------------------

# A series keeps an audit chain of its own (docs/audit.md, "A series' audit"): its export holds the
# owner's block under the owner's name, its entries and a head signing both
# (audit.anchor.owner_head_message). The verifier reads the owner's name from the document.

OWNER_NAME = re.compile(r"[a-z]{1,20}")
ACTION_NAME = re.compile(r"[a-z][a-z_]{0,39}")


def owner_of(document: object) -> str:
    """The owner of a chain above events that `document` exports (its one block beside the
    entries and the head), or "" for an event's export."""
    if not isinstance(document, dict) or "event" in document:
        return ""
    blocks = [
        key
        for key, value in document.items()
        if key not in ("entries", "head") and isinstance(value, dict)
    ]
    if len(blocks) == 1 and OWNER_NAME.fullmatch(blocks[0]):
        return str(blocks[0])
    return ""


def _verify_owner_chain(
    document: object,
    owner: str,
    checked: list[str],
    public_key: Ed25519PublicKey | None,
) -> bool:
    """The chain, each entry's shape and role, and the signed head of a chain above events."""
    assert isinstance(document, dict)  # owner_of found the owner's block in it
    block = document[owner]
    raw_entries = document.get("entries")
    if not isinstance(raw_entries, list):
        raise AuditProblem("The document has no entries list.")
    owner_id = block.get("id")
    if not _is_int(owner_id):
        raise AuditProblem(f"The document's {owner} has no whole-number id.")
    entries = check_chain(raw_entries)
    checked.append(f"chain: {len(entries)} entries, seq 1 to {len(entries)}, every hash intact")
    checked.append(check_owner_entries(raw_entries))
    checked.append(
        check_owner_head(owner, owner_id, block, entries, document.get("head"), public_key)
    )
    return False


def check_owner_entries(raw_entries: Sequence[Mapping[str, Any]]) -> str:
    """Each entry says who acted (`actor_kind`), House entries the role they acted in, none
    names a player (a chain above events records staff and settings), and each action is a name."""
    roles: Counter[str] = Counter()
    for raw in raw_entries:
        seq, action = raw["seq"], raw["action"]
        if "actor_kind" not in raw:
            raise AuditProblem(f"Entry seq {seq} has no actor_kind.")
        if not ACTION_NAME.fullmatch(action):
            raise AuditProblem(f"Entry seq {seq}: action {action!r} is not an action's name.")
        if raw.get("player") is not None:
            raise AuditProblem(f"Entry seq {seq} ({action}) names a player.")
        if raw["actor_kind"] == "house":
            role = raw.get("actor_role")
            if role is None:
                raise AuditProblem(f"Entry seq {seq} ({action}): a House entry names no role.")
            roles[role] += 1
    acted = ", ".join(f"{role} {count}" for role, count in sorted(roles.items()))
    return f"entries: each says who acted, every House entry its role ({acted or 'none'})"


def check_owner_head(
    owner: str,
    owner_id: int,
    block: Mapping[str, Any],
    entries: Sequence[Entry],
    raw: object,
    public_key: Ed25519PublicKey | None,
) -> str:
    """The export's signed head is its last entry and signs this block; with the deployment's
    public key, its signature holds."""
    what = "The export's signed head"
    if raw is None:
        if public_key is not None:
            raise AuditProblem(
                "The export carries no signed head, so it cannot be checked against the key."
            )
        return "head: the export carries no signed head (the chain is not anchored)"
    if not isinstance(raw, dict):
        raise AuditProblem(f"{what} is not an object with seq, hash, signature and key_id.")
    seq, digest, at = raw.get("seq"), raw.get("hash"), raw.get("at")
    signature, signer, signed_block = (
        raw.get("signature"),
        raw.get("key_id"),
        raw.get(f"{owner}_block"),
    )
    if not _is_int(seq) or seq < 0:
        raise AuditProblem(f"{what} has no whole-number seq.")
    if not (isinstance(digest, str) and isinstance(signature, str) and isinstance(signer, str)):
        raise AuditProblem(f"{what} needs hash, signature and key_id as text.")
    if not isinstance(at, str) or not AT.fullmatch(at):
        raise AuditProblem(f"{what} has no signing time in ISO 8601 UTC (at).")
    if not isinstance(signed_block, str) or not DIGEST.fullmatch(signed_block):
        raise AuditProblem(f"{what} has no {owner}_block digest (64 hex digits).")
    last = entries[-1].seq if entries else 0
    if seq != last:
        ends = f"ends at seq {last}" if entries else "has no entries"
        raise AuditProblem(
            f"{what} is at seq {seq}, but the export {ends}: entries were cut off or added "
            "after the head was signed."
        )
    if digest != (entries[-1].hash if entries else GENESIS):
        raise AuditProblem(
            f"{what} signs hash {digest[:12]}... at seq {seq}, which is not the hash of entry "
            f"seq {seq} in this export: the chain was rewritten."
        )
    if signed_block != event_digest(block):
        raise AuditProblem(
            f"{what} signs another {owner} block than this export's: it was changed after it "
            "was signed."
        )
    if public_key is None:
        return (
            f"head: seq {seq} matches the last entry, signed at {at}; its signature was not "
            "checked (give the deployment's public key)"
        )
    if signer != key_id(public_key):
        raise AuditProblem(
            f"{what} was signed by key {signer}, not by the given key {key_id(public_key)}."
        )
    message = owner_head_message(owner, owner_id, seq, digest, at=at, block=signed_block)
    if not signature_holds(public_key, message, signature):
        raise AuditProblem(f"{what}: the signature does not hold for this {owner}, seq and hash.")
    return f"head: seq {seq} signed by key {signer} at {at}, matching the last entry"


# The document -------------------------------------------------------------------------------------


@dataclass(frozen=True, slots=True)
class Export:
    event: Mapping[str, Any]
    entries: Sequence[Any]
    seed: str | None
    result: object
    head: object = None


@dataclass(frozen=True, slots=True)
class Entry:
    seq: int
    action: str
    player: str | None
    details: Mapping[str, Any]
    hash: str = ""

    def __str__(self) -> str:
        return f"Entry seq {self.seq} ({self.action})"


def read_export(document: object) -> Export:
    """The four parts of the export, with their types checked."""
    if not isinstance(document, dict):
        raise AuditProblem(
            "The document is not a JSON object with event, entries, seed and result."
        )
    event = document.get("event")
    if not isinstance(event, dict):
        raise AuditProblem("The document has no event object.")
    entries = document.get("entries")
    if not isinstance(entries, list):
        raise AuditProblem("The document has no entries list.")
    seed = document.get("seed")
    if seed is not None and not isinstance(seed, str):
        raise AuditProblem("The document's seed is neither null nor hexadecimal text.")
    return Export(
        event=event,
        entries=entries,
        seed=seed,
        result=document.get("result"),
        head=document.get("head"),
    )


# The hash chain -----------------------------------------------------------------------------------


def check_chain(raw_entries: Sequence[Any]) -> list[Entry]:
    """seq 1, 2, 3 ... with no gap; each prev_hash is the previous hash; each hash recomputes."""
    entries: list[Entry] = []
    prev_hash = GENESIS
    kinds_from: int | None = None  # the first entry that recorded its actor's kind
    for index, raw in enumerate(raw_entries):
        expected_seq = index + 1
        if not isinstance(raw, dict):
            raise AuditProblem(f"Entry number {expected_seq} in the file is not a JSON object.")
        seq = raw.get("seq")
        if not _is_int(seq):
            raise AuditProblem(f"Entry number {expected_seq} in the file has no whole-number seq.")
        check_seq(seq, expected_seq)
        if raw.get("prev_hash") != prev_hash:
            if seq == 1:
                raise AuditProblem("Entry seq 1: prev_hash is not the genesis hash (64 zeros).")
            raise AuditProblem(
                f"Entry seq {seq}: prev_hash does not equal the hash of entry seq {seq - 1}."
            )
        stored_hash = raw.get("hash")
        without_hash = {key: value for key, value in raw.items() if key != "hash"}
        if stored_hash != entry_hash(without_hash):
            raise AuditProblem(
                f"Entry seq {seq}: its hash does not match its contents; "
                "the entry was changed after it was written."
            )
        kinds_from = check_actor_kind(seq, raw, kinds_from)
        entries.append(read_entry(seq, raw, stored_hash))
        prev_hash = stored_hash
    return entries


def check_actor_kind(seq: int, raw: Mapping[str, Any], kinds_from: int | None) -> int | None:
    """`actor_kind` says who acted; the `actor` text must agree with it. Entries written before
    kinds were recorded have none, but once one entry has a kind every later entry must."""
    if "actor_kind" not in raw:
        if kinds_from is not None:
            raise AuditProblem(
                f"Entry seq {seq} has no actor_kind, though entry seq {kinds_from} and every "
                "entry after it must have one."
            )
        return None
    kind, actor = raw["actor_kind"], raw.get("actor")
    if kind not in ACTOR_KINDS:
        raise AuditProblem(
            f"Entry seq {seq}: actor_kind is {kind!r}, not one of {', '.join(ACTOR_KINDS)}."
        )
    if not isinstance(actor, str):
        raise AuditProblem(f"Entry seq {seq}: actor is missing or not text.")
    if kind == "system" and actor != "system":
        raise AuditProblem(f'Entry seq {seq}: a system entry whose actor is not "system".')
    if kind == "house" and not actor.startswith("House: "):
        raise AuditProblem(f'Entry seq {seq}: a House entry whose actor is not "House: <name>".')
    role = raw.get("actor_role")
    if role is not None and (kind != "house" or role not in STAFF_ROLES):
        raise AuditProblem(
            f"Entry seq {seq}: actor_role {role!r} is not one of {', '.join(STAFF_ROLES)} "
            "on a House entry."
        )
    return seq if kinds_from is None else kinds_from


def check_seq(seq: int, expected_seq: int) -> None:
    if seq == expected_seq:
        return
    if expected_seq == 1:
        raise AuditProblem(f"The first entry has seq {seq}; the chain starts at seq 1.")
    previous = expected_seq - 1
    if seq > expected_seq:
        missing = (
            f"seq {expected_seq}" if seq == expected_seq + 1 else f"seq {expected_seq}-{seq - 1}"
        )
        raise AuditProblem(f"Entry seq {seq} follows entry seq {previous}: {missing} is missing.")
    raise AuditProblem(
        f"Entry seq {seq} follows entry seq {previous}: seq must rise by one, with no repeat."
    )


def read_entry(seq: int, raw: Mapping[str, Any], entry_hash: str = "") -> Entry:
    action = raw.get("action")
    if not isinstance(action, str):
        raise AuditProblem(f"Entry seq {seq}: action is missing or not text.")
    player = raw.get("player")
    if player is not None and not isinstance(player, str):
        raise AuditProblem(f"Entry seq {seq} ({action}): player is neither null nor a label.")
    details = raw.get("details")
    if details is None:
        details = {}
    if not isinstance(details, dict):
        raise AuditProblem(f"Entry seq {seq} ({action}): details is not a JSON object.")
    return Entry(seq=seq, action=action, player=player, details=details, hash=entry_hash)


# Relabelled players ------------------------------------------------------------------------------

RELABELLED = "player_relabelled"


def follow_relabels(entries: list[Entry]) -> tuple[list[Entry], int]:
    """Each entry as if its player had always had their last label: a player_relabelled entry
    (an account deleted: docs/audit.md) renames `player` to `details.label` for every entry before
    it that names the old label, and in the awards event_finalized records before it. A later
    entry naming the old label is another registration's (a chain written before a label, once
    left, was kept from later registrations). The hashes were checked first."""
    given: set[str] = set()
    for entry in entries:
        if entry.action != RELABELLED:
            continue
        new = entry.details.get("label")
        if not isinstance(entry.player, str) or not isinstance(new, str) or not new:
            raise AuditProblem(f"{entry}: a relabelling names the player and details.label.")
        if new in given or any(e.player == new for e in entries if e.seq < entry.seq):
            raise AuditProblem(f"{entry}: the label {new!r} is already a player's.")
        given.add(new)
    if not given:
        return entries, 0

    # From the last entry back: what each label held at that point is finally called.
    final: dict[str, str] = {}

    def renamed(entry: Entry) -> Entry:
        player = final.get(entry.player, entry.player) if entry.player else entry.player
        details = entry.details
        awards = details.get("awards") if entry.action == "event_finalized" else None
        if isinstance(awards, dict):
            details = {**details, "awards": {final.get(k, k): v for k, v in awards.items()}}
        return Entry(
            seq=entry.seq, action=entry.action, player=player, details=details, hash=entry.hash
        )

    followed: list[Entry] = []
    for entry in reversed(entries):
        if entry.action == RELABELLED:
            assert isinstance(entry.player, str)  # checked above
            new = str(entry.details["label"])
            final[entry.player] = final.get(new, new)
        followed.append(renamed(entry))
    followed.reverse()
    left = {entry.player for entry in entries if entry.action == RELABELLED}
    return followed, len(given - left)


# The ledger ---------------------------------------------------------------------------------------

# The night's money lines (docs/audit.md): recomputed here, apart from the ledger's own code.
ENTRY_METHODS = ("cash", "card", "online", "comp")
REFUND_METHODS = ("cash", "card", "online")
CASH_OR_TRANSFER = ("cash", "transfer")
LEDGER_LINES = ACTIONS  # one typed record each (audit/money_lines.py)


@dataclass(slots=True)
class _Account:
    held: int = 0
    last_entry: int | None = None
    refunded_since_entry: int = 0


def check_ledger(entries: Sequence[Entry]) -> str:
    """The money lines add up: a refund never above what the player paid and has not had back, a
    "not paid" mark voids an entry none of which was refunded, payouts stay within the award
    once the event is final, a sponsor's money within the sponsored pool; so the cash in the box
    is cash in less cash out, never a figure the lines cannot reach. "" when there is no line."""
    accounts: dict[str, _Account] = {}
    sponsored = 0
    sponsor_in = 0
    finalized = False
    cash = 0
    lines = 0
    for entry in entries:
        details = entry.details
        if entry.action == "event_created":
            sponsored = _whole(details.get("sponsored_pool", 0), f"{entry}: details.sponsored_pool")
        elif entry.action == "event_updated":
            changes = details.get("changes")
            change = changes.get("sponsored_pool") if isinstance(changes, dict) else None
            if isinstance(change, list) and len(change) == 2:
                sponsored = _whole(change[1], f"{entry}: the sponsored pool")
        elif entry.action == "pool_confirmed" and "sponsored" in details:
            sponsored = _whole(details["sponsored"], f"{entry}: details.sponsored")
        elif entry.action == "event_finalized":
            finalized = True
        if entry.action not in LEDGER_LINES:
            continue
        lines += 1
        record = read_money_line(entry)
        amount = record.amount
        method = CASH if isinstance(record, PaymentMarked) else record.method
        if entry.action == "sponsor_paid":
            if method not in CASH_OR_TRANSFER or amount == 0:
                raise AuditProblem(f"{entry}: a sponsor's money is dollars in cash or by transfer.")
            sponsor_in += amount
            if sponsor_in > sponsored:
                raise AuditProblem(
                    f"{entry}: ${sponsor_in} of the sponsor's money recorded, more than the "
                    f"${sponsored} sponsored pool."
                )
            cash += amount if method == "cash" else 0
            continue
        if not entry.player:
            raise AuditProblem(f"{entry}: a ledger line names its player.")
        account = accounts.setdefault(entry.player, _Account())
        if isinstance(record, EntryPaid) or (isinstance(record, PaymentMarked) and record.paid):
            if method not in ENTRY_METHODS or (method == "comp") != (amount == 0):
                raise AuditProblem(f"{entry}: an entry is paid in cash, by card, online or comped.")
            account.held += amount
            account.last_entry = amount
            account.refunded_since_entry = 0
            cash += amount if method == "cash" else 0
        elif entry.action == "payment_marked":
            if account.last_entry is None:
                continue  # a mark of an entry never recorded takes back nothing
            if account.refunded_since_entry:
                raise AuditProblem(
                    f"{entry}: {entry.player} is marked not paid after "
                    f"${account.refunded_since_entry} of the entry was refunded."
                )
            account.held -= account.last_entry
            cash -= account.last_entry if _last_method(entries, entry) == "cash" else 0
            account.last_entry = None
        elif entry.action == "entry_refunded":
            if method not in REFUND_METHODS or amount == 0 or amount > account.held:
                raise AuditProblem(
                    f"{entry}: a refund of ${amount} to {entry.player}, who has ${account.held} "
                    "paid in and not given back."
                )
            account.held -= amount
            account.refunded_since_entry += amount
            cash -= amount if method == "cash" else 0
        else:
            # Which awards a payout may hand over, and how much of each, check_payouts says.
            if not finalized or method not in CASH_OR_TRANSFER or amount == 0:
                raise AuditProblem(f"{entry}: a payout is dollars of a final award.")
            cash -= amount if method == "cash" else 0
    if not lines:
        return ""
    return (
        f"ledger: {lines} money lines, no refund above what was paid and not given back, no void "
        f"after a refund, payouts within the awards; cash expected in the box ${cash}"
        if cash >= 0
        else f"ledger: {lines} money lines add up; cash expected in the box \u2212${-cash} (short)"
    )


def read_money_line(entry: Entry) -> MoneyLine:
    """The entry's money line as its typed record (audit/money_lines.py: details without a
    version are version 1); details that cannot be read are a problem, never a default."""
    try:
        return read_line(entry.action, entry.details)
    except UnreadableLine as problem:
        raise AuditProblem(f"{entry} cannot be read as a ledger line: {problem}") from None


def _last_method(entries: Sequence[Entry], mark: Entry) -> str:
    """The method of the entry line a "not paid" mark takes back: the player's last before it
    (check_ledger has read every line before the mark)."""
    for entry in reversed(entries[: mark.seq - 1]):
        if entry.player != mark.player or entry.action not in ("entry_paid", "payment_marked"):
            continue
        record = read_money_line(entry)
        if isinstance(record, EntryPaid):
            return record.method
        if isinstance(record, PaymentMarked) and record.paid:
            return CASH
    return CASH


# The event block ----------------------------------------------------------------------------------

# The event block's settings that event_created records and event_updated changes.
SETTINGS = ("name", "format", "contribution", "venue", "date")


def check_event_block(event: Mapping[str, Any], entries: Sequence[Entry]) -> str:
    """The export's event block says what the chain says: the settings event_created recorded,
    as later event_updated entries changed them; the phase the entries reached; the commitment
    event_started published."""
    # event_created is not among the actions every audit must have (docs/audit.md); without it
    # the settings are checked by the signed head alone.
    created = next((entry for entry in entries if entry.action == "event_created"), None)
    settings: dict[str, Any] = {}
    recorded_at: dict[str, int] = {}
    if created is not None:
        if created.seq != 1:
            raise AuditProblem(
                f"{created} creates the event, but the chain does not start with it."
            )
        settings = {key: created.details[key] for key in SETTINGS if key in created.details}
        recorded_at = dict.fromkeys(settings, created.seq)
    phase, commitment = "draft", None
    for entry in entries:
        if entry.action == "event_created" and entry is not created:
            raise AuditProblem(f"{entry} creates the event a second time (first at seq 1).")
        if entry.action == "event_updated":
            apply_settings_change(entry, settings, recorded_at)
        elif entry.action == "registration_opened" and phase == "draft":
            phase = "open"
        elif entry.action == "event_started":
            phase, commitment = "started", entry.details.get("commitment")
        elif entry.action == "event_finalized":
            phase = "finalized"
    for key, value in settings.items():
        if key in event and not _same(event[key], value):
            raise AuditProblem(
                f"The event block's {key} is {event[key]!r}, but the chain records {value!r} "
                f"(entry seq {recorded_at[key]}): the event block was changed."
            )
    if "phase" in event and event["phase"] != phase:
        raise AuditProblem(
            f"The event block's phase is {event['phase']!r}, but the entries leave the event "
            f"{phase}: the event block was changed."
        )
    if "commitment" in event and event["commitment"] != commitment:
        raise AuditProblem(
            f"The event block's commitment is {event['commitment']!r}, but event_started "
            f"published {commitment!r}: the event block was changed."
        )
    compared = [key for key in (*settings, "phase", "commitment") if key in event]
    updates = sum(1 for entry in entries if entry.action == "event_updated")
    source = (
        "no event_created entry records the settings"
        if created is None
        else f"as event_created{f' and {updates} event_updated entries' if updates else ''} "
        "record them"
    )
    return f"event: {', '.join(compared) or 'nothing'} in the event block checked, {source}"


def apply_settings_change(
    entry: Entry, settings: dict[str, Any], recorded_at: dict[str, int]
) -> None:
    """An event_updated entry's `changes`: `{field: [old, new]}`; each old is the value in force."""
    changes = entry.details.get("changes")
    if not isinstance(changes, dict):
        raise AuditProblem(f"{entry}: details.changes is not a JSON object.")
    for key, change in changes.items():
        if key not in SETTINGS:
            continue
        if not isinstance(change, list) or len(change) != 2:
            raise AuditProblem(f"{entry}: the change of {key} is not [old, new].")
        old, new = change
        if key in settings and not _same(settings[key], old):
            raise AuditProblem(
                f"{entry} changes {key} from {old!r}, but it was {settings[key]!r} "
                f"(entry seq {recorded_at[key]})."
            )
        settings[key], recorded_at[key] = new, entry.seq


# After finalization -------------------------------------------------------------------------

# The only entries a finalized event takes (docs/rules.md section 10.8): money handed over or given
# back, and a deleted account's neutral label. None of them changes a card, a place or an award.
AFTER_FINAL = ("payout_made", "entry_refunded", "sponsor_paid", RELABELLED)
PAYOUT = "payout_made"


def check_after_final(entries: Sequence[Entry]) -> str:
    """Every entry after event_finalized is of a kind the rules let follow it, and names no
    dealt card; no payout comes before it."""
    finalized = next((entry for entry in entries if entry.action == "event_finalized"), None)
    after = [entry for entry in entries if finalized is not None and entry.seq > finalized.seq]
    for entry in entries:
        if entry.action == PAYOUT and (finalized is None or entry.seq < finalized.seq):
            raise AuditProblem(
                f"{entry} pays out an award before event_finalized: awards are paid once the "
                "event is finalized."
            )
    for entry in after:
        if entry.action not in AFTER_FINAL:
            raise AuditProblem(
                f"{entry} follows event_finalized (seq {finalized.seq if finalized else 0}), "
                f"but a finalized event takes only {', '.join(AFTER_FINAL)} entries "
                "(docs/rules.md section 10.8)."
            )
        if next(dealt_cards_in(entry.details), None) is not None:
            raise AuditProblem(
                f"{entry} follows event_finalized and names a dealt card: nothing after "
                "finalization touches a card."
            )
    if finalized is None:
        return "after finalization: nothing (the event is not finalized)"
    kinds = Counter(entry.action for entry in after)
    listed = ", ".join(f"{count} {action}" for action, count in sorted(kinds.items()))
    return (
        f"after finalization: {listed or 'no entries'}; only payouts, refunds and relabellings, "
        "none touching a card, a place or an award"
    )


def check_payouts(result: Result, entries: Sequence[Entry]) -> str:
    """Each payout hands over part of a player's final award, never more than is left of it;
    a refund after finalization goes to a cancelled entry or a withdrawal."""
    awards = {player.player: player for player in result.players}
    paid: Counter[str] = Counter()
    finalized_seq = next(entry.seq for entry in entries if entry.action == "event_finalized")
    for entry in entries:
        if entry.seq < finalized_seq:
            continue
        standing = awards.get(entry.player or "")
        if entry.action == "entry_refunded" and standing and standing.status == "eligible":
            raise AuditProblem(
                f"{entry} refunds {entry.player}, who finished eligible: only a cancelled "
                "entry or a withdrawal is refunded."
            )
        if entry.action != PAYOUT:
            continue
        if standing is None:
            raise AuditProblem(f"{entry} pays {entry.player!r}, who is not in result.players.")
        amount = _whole(entry.details.get("amount"), f"{entry}: details.amount")
        award = entry.details.get("award")
        if award is not None and not _same(award, standing.award):
            raise AuditProblem(
                f"{entry}: details.award is {award!r}, but the result gives {standing.player} "
                f"${standing.award}: a payout never changes an award."
            )
        paid[standing.player] += amount
        if paid[standing.player] > standing.award:
            raise AuditProblem(
                f"{entry}: {standing.player} has been handed ${paid[standing.player]}, more "
                f"than the ${standing.award} award."
            )
    total = sum(paid.values())
    return f"payouts: ${total} handed over to {len(paid)} winners, none beyond their award"


# The signed head ------------------------------------------------------------------------------

AT = re.compile(r"\d{4}-\d\d-\d\dT\d\d:\d\d:\d\d(\.\d{1,6})?Z")
DIGEST = re.compile(r"[0-9a-f]{64}")


def check_anchor(
    export: Export,
    entries: Sequence[Entry],
    public_key: Ed25519PublicKey | None,
    *,
    finalized: bool,
) -> str:
    """The export's signed head is its last entry and says the phase the export shows; the head
    event_finalized carries signs the entry before it as final; both sign this event block; with
    the deployment's public key, both signatures hold.

    A rewritten entry re-chained after it, or a chain cut short, ends at a head nobody signed; a
    finalized export cut before its finalization ends at a head that says final.
    """
    event_id = export.event.get("id")
    if public_key is not None and not _is_int(event_id):
        raise AuditProblem("The document's event has no whole-number id to check the head with.")
    block = event_digest(export.event)
    notes: list[str] = []
    # The head the finalizing entry carries holds whether or not the export has one on top.
    for entry in entries:
        if entry.action == "event_finalized" and "head" in entry.details:
            what = f"{entry}: details.head"
            inner = read_head(entry.details["head"], what)
            if inner.seq != entry.seq - 1:
                raise AuditProblem(
                    f"{what} must sign the entry just before it (seq {entry.seq - 1}), "
                    f"not seq {inner.seq}."
                )
            if inner.phase is not None and inner.phase != FINAL:
                raise AuditProblem(
                    f"{what} says the event was {inner.phase}; the head signed while "
                    "finalizing says final."
                )
            check_head(inner, entries, what, public_key, event_id, block)
            if inner.phase is None:
                notes.append(
                    f"the head in {entry} is in the old format, which signs no phase, time or "
                    "event block (accepted: the event was finalized before heads said so)"
                )
    if export.head is None:
        if public_key is not None:
            raise AuditProblem(
                "The export carries no signed head, so it cannot be checked against the key."
            )
        return _with_notes(
            "head: the export carries no signed head (the chain is not anchored)", notes
        )
    last = entries[-1] if entries else None
    head = read_head(export.head, "The export's signed head")
    if head.seq != (last.seq if last else 0):
        ends = f"ends at seq {last.seq}" if last else "has no entries"
        raise AuditProblem(
            f"The export's signed head is at seq {head.seq}, but the export {ends}: entries were "
            "cut off or added after the head was signed."
        )
    check_head_phase(head, finalized, public_key)
    check_head(head, entries, "The export's signed head", public_key, event_id, block)
    return _with_notes(described(head, public_key, finalized), notes)


def check_head_phase(head: Head, finalized: bool, public_key: Ed25519PublicKey | None) -> None:
    """A final head needs a finalized export, a running head an unfinalized one. A head in the
    old format says no phase: given the key, it is accepted only where the entries finalize the
    event, since on an unfinished export it could be a finalized event's cut short."""
    if head.phase == FINAL and not finalized:
        raise AuditProblem(
            "The export's signed head says the event was final, but the export has no "
            "event_finalized entry, seed or result: it was cut before its finalization."
        )
    if head.phase == RUNNING and finalized:
        raise AuditProblem(
            "The export's signed head says the event was still running, but the export "
            "finalizes it."
        )
    if head.phase is None and not finalized and public_key is not None:
        raise AuditProblem(
            "The export's signed head is in the old format, which does not say whether the "
            "event was final: on an unfinished export it cannot be told from a finalized event "
            "cut short. Download the export again for a head that says its phase."
        )


def described(head: Head, public_key: Ed25519PublicKey | None, finalized: bool) -> str:
    """What the export's head shows, in words (docs/audit.md, "What a signature proves")."""
    if head.phase is None:
        said = (
            "in the old format, which signs no phase, time or event block; the entries "
            "finalize the event"
            if finalized
            else "in the old format, which signs no phase, time or event block"
        )
    elif head.phase == FINAL:
        said = f"at {head.at}: the event was final"
    else:
        said = (
            f"at {head.at}: the event was running (not finalized) then; this shows the chain "
            "at that moment, not that nothing came after it"
        )
    if public_key is None:
        return (
            f"head: seq {head.seq} matches the last entry, {said}; its signature was not "
            "checked (give the deployment's public key)"
        )
    return f"head: seq {head.seq} signed by key {head.key_id}, matching the last entry, {said}"


def _with_notes(line: str, notes: Sequence[str]) -> str:
    return "; ".join([line, *notes])


@dataclass(frozen=True, slots=True)
class Head:
    seq: int
    hash: str
    signature: str
    key_id: str
    # None on a head in the old format (audit.anchor.legacy_head_message).
    phase: str | None = None
    at: str | None = None
    event_block: str | None = None

    def message(self, event_id: int) -> bytes:
        if self.phase is None or self.at is None or self.event_block is None:
            return legacy_head_message(event_id, self.seq, self.hash)
        return head_message(
            event_id,
            self.seq,
            self.hash,
            phase=self.phase,
            at=self.at,
            event_block=self.event_block,
        )


def read_head(raw: object, what: str) -> Head:
    if not isinstance(raw, dict):
        raise AuditProblem(f"{what} is not an object with seq, hash, signature and key_id.")
    seq, digest = raw.get("seq"), raw.get("hash")
    signature, key = raw.get("signature"), raw.get("key_id")
    if not _is_int(seq) or seq < 0:
        raise AuditProblem(f"{what} has no whole-number seq.")
    if not (isinstance(digest, str) and isinstance(signature, str) and isinstance(key, str)):
        raise AuditProblem(f"{what} needs hash, signature and key_id as text.")
    head = Head(seq=seq, hash=digest, signature=signature, key_id=key)
    if not {"phase", "at", "event_block"} & raw.keys():
        return head  # the old format
    phase, at, block = raw.get("phase"), raw.get("at"), raw.get("event_block")
    if phase not in PHASES:
        raise AuditProblem(f"{what} has the phase {phase!r}, not {' or '.join(PHASES)}.")
    if not isinstance(at, str) or not AT.fullmatch(at):
        raise AuditProblem(f"{what} has no signing time in ISO 8601 UTC (at).")
    if not isinstance(block, str) or not DIGEST.fullmatch(block):
        raise AuditProblem(f"{what} has no event_block digest (64 hex digits).")
    return Head(
        seq=seq, hash=digest, signature=signature, key_id=key, phase=phase, at=at, event_block=block
    )


def check_head(
    head: Head,
    entries: Sequence[Entry],
    what: str,
    public_key: Ed25519PublicKey | None,
    event_id: object,
    block: str,
) -> None:
    if head.seq > len(entries):
        raise AuditProblem(f"{what} is at seq {head.seq}, past the last entry of this export.")
    expected = GENESIS if head.seq == 0 else entries[head.seq - 1].hash
    if head.hash != expected:
        raise AuditProblem(
            f"{what} signs hash {head.hash[:12]}... at seq {head.seq}, which is not the hash of "
            f"entry seq {head.seq} in this export: the chain was rewritten."
        )
    if public_key is not None:
        if head.key_id != key_id(public_key):
            raise AuditProblem(
                f"{what} was signed by key {head.key_id}, not by the given key "
                f"{key_id(public_key)}."
            )
        assert _is_int(event_id)
        if not signature_holds(public_key, head.message(event_id), head.signature):
            signed = "seq and hash" if head.phase is None else "seq, hash, phase and time"
            raise AuditProblem(f"{what}: the signature does not hold for this event, {signed}.")
    if head.event_block is not None and head.event_block != block:
        raise AuditProblem(
            f"{what} signs another event block than this export's: its name, venue, date, "
            "format, contribution, phase or commitment was changed after it was signed."
        )


# Earlier heads and earlier exports ----------------------------------------------------------------

# A finalized event's chain still grows by the entries AFTER_FINAL allows, so a head or an export
# published before them is a prefix of the chain exported later. As in a transparency log, the
# later chain proves it extends the earlier one: its entry at the earlier head's seq carries the
# earlier head's hash (docs/audit.md, "Earlier heads").


@dataclass(frozen=True, slots=True)
class Extension:
    """An earlier signed head that the export's chain extends."""

    head: Head
    # Every label a player_relabelled entry of the chain renamed, to the label the export ends
    # with: a season exported before a relabelling (or keeping the label it recorded) names the
    # player by an earlier label of the same registration.
    relabelled: Mapping[str, str]


def check_extends(
    document: object,
    raw_head: object,
    public_key: Ed25519PublicKey | None,
    what: str,
    *,
    final: bool,
) -> Extension:
    """`raw_head` is a head signed on this export's chain at or before its end: the entry at its
    seq carries its hash, it signs this event block, its phase is the one the chain had at that
    seq, and with `final` it says final. With the key, its signature holds. The export itself is
    verified separately (`verify`)."""
    export = read_export(document)
    entries = check_chain(export.entries)
    event_id = export.event.get("id")
    if public_key is not None and not _is_int(event_id):
        raise AuditProblem("The document's event has no whole-number id to check the head with.")
    head = read_head(raw_head, what)
    if head.seq > len(entries):
        raise AuditProblem(
            f"{what} is at seq {head.seq}, past this export's last entry (seq {len(entries)}): "
            "it signs a later export of the event; give that export."
        )
    finalized = next((entry for entry in entries if entry.action == "event_finalized"), None)
    if head.phase == FINAL and (finalized is None or head.seq < finalized.seq - 1):
        raise AuditProblem(f"{what} says final at seq {head.seq}, before the event was finalized.")
    if head.phase == RUNNING and finalized is not None and head.seq >= finalized.seq:
        raise AuditProblem(f"{what} says running at seq {head.seq}, after event_finalized.")
    if final and (finalized is None or head.seq < finalized.seq - 1 or head.phase == RUNNING):
        raise AuditProblem(f"{what} is not a head of the finalized event.")
    check_head(head, entries, what, public_key, event_id, event_digest(export.event))
    return Extension(head=head, relabelled=relabels_after(entries, 0))


def relabels_after(entries: Sequence[Entry], seq: int) -> dict[str, str]:
    """Each label as it stood at entry `seq`, to its label at the end of the chain, for the
    player_relabelled entries after `seq` (the hashes and the relabellings checked before)."""
    renamed: dict[str, str] = {}
    for entry in entries:
        if entry.seq <= seq or entry.action != RELABELLED:
            continue
        new = entry.details.get("label")
        if not isinstance(entry.player, str) or not isinstance(new, str):
            continue
        for old, current in renamed.items():
            if current == entry.player:
                renamed[old] = new
        if entry.player not in renamed.values():
            renamed[entry.player] = new
    return renamed


def verify_exports(
    files: Mapping[str, str | bytes], public_key: Ed25519PublicKey | None = None
) -> Verdict:
    """Several exports of one event, as published over time: each verifies on its own (JSON in
    full, CSV for its chain), and each is a prefix of the longest (docs/audit.md, "Earlier
    heads"), so an export published before a payout or a relabelling still holds."""
    checked: list[str] = []
    chains: dict[str, list[Entry]] = {}
    events: dict[str, object] = {}
    finalized = True
    for name, text in files.items():
        verdict = verify_csv(text) if looks_like_csv(text) else verify_json(text, public_key)
        checked.extend(f"{name}: {line}" for line in verdict.checked)
        finalized = finalized and verdict.finalized
        if not verdict.ok:
            return Verdict(ok=False, checked=tuple(checked), problem=f"{name}: {verdict.problem}")
        try:
            if looks_like_csv(text):
                chains[name] = check_chain(entries_from_csv(text))
            else:
                export = read_export(read_json(text, name))
                chains[name], events[name] = check_chain(export.entries), export.event.get("id")
        except AuditProblem as problem:  # it verified above; say it anyway
            return Verdict(ok=False, checked=tuple(checked), problem=f"{name}: {problem}")
    if len(set(events.values())) > 1:
        named = ", ".join(f"{name} event {event}" for name, event in events.items())
        return Verdict(
            ok=False,
            checked=tuple(checked),
            problem=f"The exports are of different events ({named}).",
        )
    latest = max(chains, key=lambda name: len(chains[name]))
    later = chains[latest]
    for name, earlier in chains.items():
        if name == latest:
            continue
        differs = next(
            (a.seq for a, b in zip(earlier, later, strict=False) if a.hash != b.hash), None
        )
        if differs is not None:
            return Verdict(
                ok=False,
                checked=tuple(checked),
                problem=(
                    f"{name} is not an earlier export of the chain in {latest}: entry seq "
                    f"{differs} differs, so one of them was rewritten."
                ),
            )
        checked.append(
            f"{name}: its {len(earlier)} entries are the first {len(earlier)} of {latest}'s "
            f"{len(later)}: the later chain extends it"
        )
    return Verdict(ok=True, checked=tuple(checked), finalized=finalized)


# The seed and its commitment ----------------------------------------------------------------------


@dataclass(frozen=True, slots=True)
class Start:
    seq: int
    decks: int
    house_decks: int


def revealed_seed(export: Export, entries: Sequence[Entry]) -> bytes | None:
    """The seed revealed at finalization, or None while the event is not finalized."""
    finalized = [entry for entry in entries if entry.action == "event_finalized"]
    if len(finalized) > 1:
        raise AuditProblem(
            f"{finalized[1]} finalizes the event a second time (first at seq {finalized[0].seq})."
        )
    if export.seed is None:
        if finalized:
            raise AuditProblem(
                f"{finalized[0]} finalizes the event, but the document's seed is null."
            )
        return None
    if not finalized:
        raise AuditProblem("The document reveals a seed, but no event_finalized entry does.")
    seed = _hex_bytes(export.seed, "The document's seed")
    entry = finalized[0]
    entry_seed = entry.details.get("seed")
    if not isinstance(entry_seed, str) or _hex_bytes(entry_seed, f"{entry}: the seed") != seed:
        raise AuditProblem(f"{entry}: details.seed is not the document's seed.")
    return seed


def check_commitment(seed: bytes, entries: Sequence[Entry], event: Mapping[str, Any]) -> Start:
    """sha256(seed) equals the commitment event_started published before any card was dealt."""
    started = [entry for entry in entries if entry.action == "event_started"]
    if not started:
        raise AuditProblem("No event_started entry: the shuffle commitment was never published.")
    if len(started) > 1:
        raise AuditProblem(
            f"{started[1]} starts the event a second time (first at seq {started[0].seq})."
        )
    entry = started[0]
    decks = _decks(entry.details.get("decks"), f"{entry}: details.decks")
    house_decks = _decks(entry.details.get("house_decks"), f"{entry}: details.house_decks")
    published = entry.details.get("commitment")
    if not isinstance(published, str):
        raise AuditProblem(f"{entry}: details.commitment is missing.")
    if hashlib.sha256(seed).hexdigest() != published.lower():
        raise AuditProblem(
            f"{entry}: the commitment is not sha256 of the revealed seed; "
            "the seed is not the one committed to at the start."
        )
    in_event = event.get("commitment")
    if in_event is not None and in_event != published:
        raise AuditProblem(f"The event block's commitment differs from the one in {entry}.")
    return Start(seq=entry.seq, decks=decks, house_decks=house_decks)


# Dealt cards --------------------------------------------------------------------------------------


@dataclass(frozen=True, slots=True)
class DealtCard:
    shoe: str
    position: int
    card: str | None  # None while face down

    def __str__(self) -> str:
        return f"{self.shoe} position {self.position}"


def dealt_cards_in(value: object) -> Iterator[Mapping[str, Any]]:
    """Every object holding "shoe" and "position", found anywhere in `value`, in document order."""
    if isinstance(value, dict):
        if "shoe" in value and "position" in value:
            yield value
        for item in value.values():
            yield from dealt_cards_in(item)
    elif isinstance(value, list):
        for item in value:
            yield from dealt_cards_in(item)


def read_dealt_card(raw: Mapping[str, Any], entry: Entry) -> DealtCard:
    shoe = raw.get("shoe")
    if shoe not in SHOES:
        raise AuditProblem(f"{entry}: a dealt card names the shoe {shoe!r}, not stock or house.")
    position = raw.get("position")
    if not _is_int(position) or position < 0:
        raise AuditProblem(f"{entry}: a {shoe} card has the position {position!r}.")
    card = raw.get("card")
    if card is not None and not isinstance(card, str):
        raise AuditProblem(f"{entry}: {shoe} position {position} names the card {card!r}.")
    return DealtCard(shoe=shoe, position=position, card=card)


def check_dealt_cards(
    entries: Sequence[Entry], shoes: Mapping[str, Sequence[str]], start_seq: int
) -> dict[str, int]:
    """Every mention names the card the seed put at its position; each shoe is dealt 0, 1, 2 ...
    with none skipped; every face-down card is revealed later. Returns the cards dealt per shoe."""
    seen: set[tuple[str, int]] = set()
    named_at: dict[tuple[str, int], int] = {}  # the first entry that named the card
    last_named_at: dict[tuple[str, int], int] = {}
    face_down_at: dict[tuple[str, int], int] = {}  # the last entry that mentioned it face down
    dealt = dict.fromkeys(shoes, 0)
    for entry in entries:
        fresh: dict[str, set[int]] = {shoe: set() for shoe in shoes}
        for raw in dealt_cards_in(entry.details):
            mention = read_dealt_card(raw, entry)
            if entry.seq < start_seq:
                raise AuditProblem(
                    f"{entry} deals {mention} before the shuffle commitment (seq {start_seq})."
                )
            shoe = shoes[mention.shoe]
            key = (mention.shoe, mention.position)
            if mention.position >= len(shoe):
                raise AuditProblem(
                    f"{entry}: {mention} is beyond the {mention.shoe} shoe's {len(shoe)} cards."
                )
            if mention.card is None:
                face_down_at[key] = entry.seq
            else:
                check_card_at_position(mention, shoe[mention.position], entry, named_at.get(key))
                named_at.setdefault(key, entry.seq)
                last_named_at[key] = entry.seq
            if key not in seen:
                seen.add(key)
                fresh[mention.shoe].add(mention.position)
        for shoe_name, positions in fresh.items():
            dealt[shoe_name] = check_dealt_in_order(shoe_name, positions, dealt[shoe_name], entry)
    check_face_down_revealed(face_down_at, last_named_at, entries)
    return dealt


def check_card_at_position(
    mention: DealtCard, card: str, entry: Entry, earlier_seq: int | None
) -> None:
    if mention.card == card:
        return
    earlier = f" (entry seq {earlier_seq} named it {card})" if earlier_seq is not None else ""
    raise AuditProblem(
        f"{entry}: {mention} is named {mention.card}, but the revealed seed puts {card} there"
        f"{earlier}."
    )


def check_dealt_in_order(shoe: str, positions: set[int], next_position: int, entry: Entry) -> int:
    """The positions an entry deals for the first time continue the shoe with none skipped.

    Within one entry (one transaction) their order is not significant: JSON object keys may come
    back in any order from the database, so the entry's new positions are taken as a set.
    """
    for position in sorted(positions):
        if position != next_position:
            raise AuditProblem(
                f"{entry} deals {shoe} position {position}, but {shoe} position {next_position} "
                "was never dealt before it; cards leave the shoe strictly in order."
            )
        next_position += 1
    return next_position


def check_face_down_revealed(
    face_down_at: Mapping[tuple[str, int], int],
    last_named_at: Mapping[tuple[str, int], int],
    entries: Sequence[Entry],
) -> None:
    by_seq = {entry.seq: entry for entry in entries}
    for (shoe, position), seq in sorted(face_down_at.items(), key=lambda item: item[1]):
        if last_named_at.get((shoe, position), 0) <= seq:
            raise AuditProblem(
                f"{by_seq[seq]} records {shoe} position {position} face down, "
                "and no later entry reveals it."
            )


# Hands --------------------------------------------------------------------------------------------


@dataclass(slots=True)
class PlayerHand:
    """A player's hand recomputed from the entries."""

    first: Entry | None = None  # the first entry that concerns the player's hand
    cards: list[str] = field(default_factory=list)
    wild_rank: str | None = None
    withdrawn_at: int | None = None
    revealed_at: int | None = None


def recompute_hands(entries: Sequence[Entry]) -> dict[str, PlayerHand]:
    """Kept cards from card_kept (in seq order), wilds from wild_revealed, player_withdrawn."""
    hands: dict[str, PlayerHand] = {}
    kept_at: dict[tuple[str, int], tuple[int, str]] = {}
    indicators: dict[int, int] = {}
    for entry in entries:
        if entry.action == "card_kept":
            hand = _hand_of(entry, hands)
            card = keep_card(entry, kept_at)
            hand.cards.append(card)
        elif entry.action == "wild_revealed":
            hand = _hand_of(entry, hands)
            reveal_wild(entry, hand, indicators)
        elif entry.action == "player_withdrawn":
            hand = _hand_of(entry, hands)
            if hand.withdrawn_at is not None:
                raise AuditProblem(
                    f"{entry} withdraws {entry.player} again (already at seq {hand.withdrawn_at})."
                )
            hand.withdrawn_at = entry.seq
    return hands


def _hand_of(entry: Entry, hands: dict[str, PlayerHand]) -> PlayerHand:
    if entry.player is None:
        raise AuditProblem(f"{entry} names no player.")
    return hands.setdefault(entry.player, PlayerHand(first=entry))


def keep_card(entry: Entry, kept_at: dict[tuple[str, int], tuple[int, str]]) -> str:
    """The card a card_kept entry puts into a hand; a shoe position enters a hand only once."""
    raw = entry.details.get("card")
    if not isinstance(raw, dict) or "shoe" not in raw or "position" not in raw:
        raise AuditProblem(f"{entry}: details.card is not a dealt card.")
    card = read_dealt_card(raw, entry)
    if card.card is None:
        raise AuditProblem(f"{entry}: the kept card {card} is not revealed.")
    if card.shoe != "stock":
        raise AuditProblem(
            f"{entry}: the kept card comes from the {card.shoe} shoe, not the stock."
        )
    key = (card.shoe, card.position)
    if key in kept_at:
        seq, player = kept_at[key]
        raise AuditProblem(
            f"{entry}: {card} enters {entry.player}'s hand, but it already entered "
            f"{player}'s hand at entry seq {seq}."
        )
    kept_at[key] = (entry.seq, entry.player or "")
    return card.card


def reveal_wild(entry: Entry, hand: PlayerHand, indicators: dict[int, int]) -> None:
    """The wild rank is the rank of an indicator dealt from the House shoe, one per player."""
    if hand.revealed_at is not None:
        raise AuditProblem(
            f"{entry} reveals a second wild for {entry.player} (first at seq {hand.revealed_at})."
        )
    raw = entry.details.get("indicator")
    if not isinstance(raw, dict) or "shoe" not in raw or "position" not in raw:
        raise AuditProblem(f"{entry}: details.indicator is not a dealt card.")
    indicator = read_dealt_card(raw, entry)
    if indicator.shoe != "house":
        raise AuditProblem(
            f"{entry}: the indicator comes from the {indicator.shoe} shoe, not house."
        )
    if indicator.card is None:
        raise AuditProblem(f"{entry}: the indicator {indicator} is not revealed.")
    if indicator.position in indicators:
        raise AuditProblem(
            f"{entry}: {indicator} was already the indicator at entry seq "
            f"{indicators[indicator.position]}."
        )
    wild_rank = entry.details.get("wild_rank")
    if wild_rank != indicator.card[0]:
        raise AuditProblem(
            f"{entry}: the wild rank is {wild_rank!r}, but the indicator {indicator.card} "
            f"has the rank {indicator.card[0]}."
        )
    indicators[indicator.position] = entry.seq
    hand.wild_rank = indicator.card[0]
    hand.revealed_at = entry.seq


def hand_size(event: Mapping[str, Any]) -> int:
    """The cards a complete hand holds in the event's format."""
    name = event.get("format")
    try:
        return format_for(str(name)).kept
    except (KeyError, ValueError):
        raise AuditProblem(
            f"The event's format {name!r} is not league, switch or standard-v1."
        ) from None


# The result block ---------------------------------------------------------------------------------


@dataclass(frozen=True, slots=True)
class PlayerResult:
    player: str
    status: str
    cards: list[str]
    wild_rank: str | None
    high_place: int | None
    low_place: int | None
    award: int


@dataclass(frozen=True, slots=True)
class Result:
    pool: int
    adjustments: list[Any]
    unallocated: int
    players: list[PlayerResult]


def read_result(raw: object) -> Result:
    if raw is None:
        raise AuditProblem("The event is finalized, but the document has no result block.")
    if not isinstance(raw, dict):
        raise AuditProblem("The result block is not a JSON object.")
    pool = _whole(raw.get("pool"), "result.pool")
    unallocated = _whole(raw.get("unallocated"), "result.unallocated")
    adjustments = raw.get("adjustments")
    if not isinstance(adjustments, list):
        raise AuditProblem("result.adjustments is not a list.")
    players = raw.get("players")
    if not isinstance(players, list):
        raise AuditProblem("result.players is not a list.")
    return Result(
        pool=pool,
        adjustments=adjustments,
        unallocated=unallocated,
        players=[read_player_result(index, player) for index, player in enumerate(players)],
    )


def read_player_result(index: int, raw: object) -> PlayerResult:
    where = f"result.players[{index}]"
    if not isinstance(raw, dict):
        raise AuditProblem(f"{where} is not a JSON object.")
    player = raw.get("player")
    if not isinstance(player, str):
        raise AuditProblem(f"{where}.player is not a label.")
    where = f"Result for {player}:"
    status = raw.get("status")
    if status not in STATUSES:
        raise AuditProblem(f"{where} status {status!r} is neither eligible nor withdrawn.")
    cards = raw.get("cards")
    if not isinstance(cards, list) or not all(isinstance(card, str) for card in cards):
        raise AuditProblem(f"{where} cards is not a list of cards.")
    wild_rank = raw.get("wild_rank")
    if wild_rank is not None and not isinstance(wild_rank, str):
        raise AuditProblem(f"{where} wild_rank is neither null nor a rank.")
    return PlayerResult(
        player=player,
        status=status,
        cards=cards,
        wild_rank=wild_rank,
        high_place=_place(raw.get("high_place"), f"{where} high_place"),
        low_place=_place(raw.get("low_place"), f"{where} low_place"),
        award=_whole(raw.get("award"), f"{where} award"),
    )


def check_pool(entries: Sequence[Entry], event: Mapping[str, Any], result: Result) -> str:
    """The last confirmed pool = contribution x participants + adjustments; the result agrees."""
    confirmed = [entry for entry in entries if entry.action == "pool_confirmed"]
    if not confirmed:
        raise AuditProblem("The event is finalized, but no pool_confirmed entry confirms a pool.")
    entry = confirmed[-1]
    contribution = _whole(event.get("contribution"), "The event's contribution")
    participants = len(result.players)
    pool = _int(entry.details.get("pool"), f"{entry}: details.pool")
    adjustments = read_adjustments(entry)
    adjusted = sum(adjustment["amount"] for adjustment in adjustments)
    # A free-entry event's pool is the sponsored pool House stated, not the contributions.
    sponsored = _whole(entry.details.get("sponsored", 0), f"{entry}: details.sponsored")
    base = sponsored if sponsored else contribution * participants
    for key, recorded in (("contribution", contribution), ("participants", participants)):
        written = entry.details.get(key)
        if written is not None and written != recorded:
            raise AuditProblem(
                f"{entry}: details.{key} is {written!r}, but the export has {recorded} "
                f"({'the event' if key == 'contribution' else 'result.players'})."
            )
    funded = (
        f"the ${sponsored} sponsored pool"
        if sponsored
        else f"${contribution} x {participants} participants"
    )
    if pool != base + adjusted:
        raise AuditProblem(
            f"{entry}: the pool is ${pool}, but {funded} "
            f"{_signed(adjusted)} in adjustments is ${base + adjusted}."
        )
    if pool < 0:
        raise AuditProblem(f"{entry}: the pool is ${pool}; a pool is never negative.")
    if result.pool != pool:
        raise AuditProblem(
            f"result.pool is ${result.pool}, but {entry} confirmed ${pool} (seq {entry.seq})."
        )
    if _multiset(result.adjustments) != _multiset(adjustments):
        raise AuditProblem(f"result.adjustments differ from the adjustments confirmed by {entry}.")
    return (
        f"pool: ${pool} = {funded} {_signed(adjusted)} "
        f"in adjustments, confirmed at entry seq {entry.seq}"
    )


def read_adjustments(entry: Entry) -> list[Mapping[str, Any]]:
    raw = entry.details.get("adjustments", [])
    if not isinstance(raw, list):
        raise AuditProblem(f"{entry}: details.adjustments is not a list.")
    for adjustment in raw:
        if not isinstance(adjustment, dict):
            raise AuditProblem(f"{entry}: an adjustment is not a JSON object.")
        _int(adjustment.get("amount"), f"{entry}: an adjustment's amount")
        if not isinstance(adjustment.get("explanation"), str):
            raise AuditProblem(f"{entry}: an adjustment has no explanation.")
    return raw


def check_players(result: Result, hands: Mapping[str, PlayerHand], full_hand: int) -> None:
    """Each player's cards, wild and status match the entries; eligible hands are complete."""
    labels = Counter(player.player for player in result.players)
    for label, count in labels.items():
        if count > 1:
            raise AuditProblem(f"result.players lists {label} {count} times.")
    for label, hand in hands.items():
        if label not in labels:
            raise AuditProblem(f"{hand.first} concerns {label}, who is not in result.players.")
    for player in result.players:
        hand = hands.get(player.player, PlayerHand())
        where = f"Result for {player.player}:"
        if player.cards != hand.cards:
            raise AuditProblem(
                f"{where} the cards are {' '.join(player.cards) or 'none'}, but the card_kept "
                f"entries give {' '.join(hand.cards) or 'none'}."
            )
        if player.wild_rank != hand.wild_rank:
            raise AuditProblem(
                f"{where} the wild rank is {player.wild_rank!r}, but wild_revealed gives "
                f"{hand.wild_rank!r}."
            )
        status = "withdrawn" if hand.withdrawn_at is not None else "eligible"
        if player.status != status:
            seen = f" (entry seq {hand.withdrawn_at})" if hand.withdrawn_at else ""
            raise AuditProblem(
                f"{where} the status is {player.status}, but the entries make it {status}{seen}."
            )
        if status == "eligible" and len(hand.cards) != full_hand:
            raise AuditProblem(
                f"{where} eligible with {len(hand.cards)} kept cards; a full hand is {full_hand}."
            )
        if status == "eligible" and hand.wild_rank is None:
            raise AuditProblem(f"{where} eligible, but no wild_revealed entry reveals a wild.")


def check_places(result: Result) -> Standings[str]:
    """High and Low places of the eligible players, competition ranking (1, 1, 3)."""
    eligible = {
        player.player: Hand(cards=tuple(player.cards), wild_rank=player.wild_rank)
        for player in result.players
        if player.status == "eligible"
    }
    places = standings(eligible)
    for player in result.players:
        if player.status == "eligible":
            high, low = places.high_place(player.player), places.low_place(player.player)
        else:
            high = low = None
        for name, written, expected in (
            ("High", player.high_place, high),
            ("Low", player.low_place, low),
        ):
            if written != expected:
                raise AuditProblem(
                    f"Result for {player.player}: the {name} place is {_shown(written)}, "
                    f"but the recomputed {name} place is {_shown(expected)}."
                )
    return places


def check_awards(result: Result, places: Standings[str], entries: Sequence[Entry]) -> str:
    """Each award and the unallocated dollars equal the split of the pool between the winners."""
    split = allocate(result.pool, places.high_winners(), places.low_winners())
    for player in result.players:
        expected = split.awards.get(player.player, 0)
        if player.award != expected:
            raise AuditProblem(
                f"Result for {player.player}: the award is ${player.award}, but the split of the "
                f"${result.pool} pool gives ${expected}."
            )
    if result.unallocated != split.unallocated:
        raise AuditProblem(
            f"result.unallocated is ${result.unallocated}, but the split of the ${result.pool} "
            f"pool leaves ${split.unallocated} unallocated."
        )
    check_finalized_awards(entries, split.awards, split.unallocated)
    return f"awards: {len(split.awards)} winners, ${split.unallocated} unallocated"


def check_finalized_awards(
    entries: Sequence[Entry], awards: Mapping[str, int], unallocated: int
) -> None:
    """When event_finalized records the awards and unallocated dollars, they agree too."""
    entry = next(entry for entry in entries if entry.action == "event_finalized")
    written = entry.details.get("unallocated")
    if written is not None and written != unallocated:
        raise AuditProblem(
            f"{entry}: unallocated is {written!r}, but the split leaves ${unallocated}."
        )
    recorded = entry.details.get("awards")
    if not isinstance(recorded, dict):
        return
    for label in sorted(set(recorded) | {label for label, dollars in awards.items() if dollars}):
        if recorded.get(label, 0) != awards.get(label, 0):
            raise AuditProblem(
                f"{entry}: the award of {label} is {recorded.get(label, 0)!r}, but the split "
                f"gives ${awards.get(label, 0)}."
            )


# Small readers ------------------------------------------------------------------------------------


def _is_int(value: object) -> TypeGuard[int]:
    return isinstance(value, int) and not isinstance(value, bool)


def _int(value: object, what: str) -> int:
    if not isinstance(value, int) or isinstance(value, bool):
        raise AuditProblem(f"{what} is {value!r}, not a whole number.")
    return value


def _whole(value: object, what: str) -> int:
    number = _int(value, what)
    if number < 0:
        raise AuditProblem(f"{what} is {number}; it must not be negative.")
    return number


def _decks(value: object, what: str) -> int:
    decks = _whole(value, what)
    if decks > MOST_DECKS:
        raise AuditProblem(f"{what} is {decks}; no event uses more than {MOST_DECKS} decks.")
    return decks


def _place(value: object, what: str) -> int | None:
    if value is None:
        return None
    place = _int(value, what)
    if place < 1:
        raise AuditProblem(f"{what} is {place}; places start at 1.")
    return place


def _hex_bytes(text: str, what: str) -> bytes:
    try:
        return bytes.fromhex(text)
    except ValueError:
        raise AuditProblem(f"{what} is not hexadecimal.") from None


def _signed(dollars: int) -> str:
    return f"+ ${dollars}" if dollars >= 0 else f"- ${-dollars}"


def _shown(place: int | None) -> str:
    return "none" if place is None else str(place)


def _same(a: object, b: object) -> bool:
    """Equal as JSON values: true is not 1, and 1.0 is not 1."""
    return canonical_json(a) == canonical_json(b)


def _multiset(items: Sequence[Any]) -> Counter[str]:
    return Counter(canonical_json(item) for item in items)
