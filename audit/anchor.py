"""The signed head that anchors an audit chain: what is signed and how a signature is checked.

A hash chain alone shows that entries were not changed one by one, but anyone holding an export
can rewrite an entry and hash every later entry again, or cut off the tail. So the deployment
signs the chain's head with its Ed25519 key; a rewritten or shortened chain no longer ends at a
head the key signed.

The signed message is the UTF-8 canonical JSON (sorted keys, no spaces) of
`{"at": <when it was signed>, "event": <event id>, "event_block": <sha256 hex of the canonical
JSON of the export's event block>, "hash": <entry hash>, "phase": "running" | "final",
"purpose": "syndicate-audit-head-2", "seq": <n>}`. It says what it signs: at that time the
event's chain ended at entry n, the event was running (not finalized) or final, and its settings
were the event block. A final head cannot be shown as a running one, nor the reverse, and the
event block cannot change (docs/audit.md, "What a signature proves").

A head proves the chain up to entry n, not that nothing came after: a finalized event's chain still
takes payouts, refunds and relabellings (docs/rules.md section 10.8), so a later `final` head may
sign a longer chain. The later chain extends the earlier head when its entry n carries the earlier
head's hash, which the verifiers check (audit.verify.check_extends, verify_exports; docs/audit.md,
"Earlier heads"), so a head once published keeps verifying.

A chain above events (a series': docs/audit.md, "A series' audit") has heads of its own, whose
message names its owner instead of an event and has no phase (a series is never finalized):
`{"at", "hash", "purpose": "syndicate-<owner>-audit-head-1", "seq", <owner>: <id>,
"<owner>_block": <sha256 hex of the canonical JSON of the export's owner block>}`
(`owner_head_message`). Its purpose keeps it from ever reading as an event's head.

Heads signed before the phase was signed used `{"event", "hash", "purpose":
"syndicate-audit-head", "seq"}` (`legacy_head_message`); the verifier still reads them where
they cannot mislead (docs/audit.md, "Heads in the old format"). Pure Python (no Django), for the
independent verifier.
"""

from __future__ import annotations

import base64
import binascii
import hashlib
import json
from collections.abc import Mapping
from typing import Any

from cryptography.exceptions import InvalidSignature
from cryptography.hazmat.primitives import serialization
from cryptography.hazmat.primitives.asymmetric.ed25519 import Ed25519PublicKey

from audit.chain import canonical_json

PURPOSE = "syndicate-audit-head-2"
LEGACY_PURPOSE = "syndicate-audit-head"  # the message before it named its phase, time and event
RUNNING = "running"  # signed while the event was not finalized (draft, open or started)
FINAL = "final"  # signed once the event was finalized, or while finalizing it
PHASES = (RUNNING, FINAL)
ALGORITHM = "Ed25519"


class KeyProblem(ValueError):
    """A public key that cannot be read, in plain words."""


def head_message(
    event_id: int, seq: int, entry_hash: str, *, phase: str, at: str, event_block: str
) -> bytes:
    """The bytes the deployment signs for the head of an event's chain: at time `at`, the chain
    ended at entry `seq` with `entry_hash`, the event was in `phase`, and its event block had the
    digest `event_block` (`event_digest`)."""
    if phase not in PHASES:
        raise ValueError(f"A head's phase is running or final, not {phase!r}.")
    content = {
        "at": at,
        "event": event_id,
        "event_block": event_block,
        "hash": entry_hash,
        "phase": phase,
        "purpose": PURPOSE,
        "seq": seq,
    }
    return canonical_json(content).encode()


def owner_head_message(
    owner: str, owner_id: int, seq: int, entry_hash: str, *, at: str, block: str
) -> bytes:
    """The bytes the deployment signs for the head of a chain above events (`owner`: "series"):
    at time `at`, the owner's chain ended at entry `seq` with `entry_hash`, and its block had the
    digest `block` (`event_digest` of it)."""
    content = {
        "at": at,
        owner: owner_id,
        f"{owner}_block": block,
        "hash": entry_hash,
        "purpose": owner_purpose(owner),
        "seq": seq,
    }
    return canonical_json(content).encode()


def owner_purpose(owner: str) -> str:
    return f"syndicate-{owner}-audit-head-1"


def legacy_head_message(event_id: int, seq: int, entry_hash: str) -> bytes:
    """The bytes heads were signed as before the message named its phase, time and event block."""
    content = {"event": event_id, "hash": entry_hash, "purpose": LEGACY_PURPOSE, "seq": seq}
    return canonical_json(content).encode()


def event_digest(event_block: Mapping[str, Any]) -> str:
    """sha256 hex of the canonical JSON of an export's event block (or a series' block), as a
    head signs it."""
    return hashlib.sha256(canonical_json(dict(event_block)).encode()).hexdigest()


def raw_public_key(public_key: Ed25519PublicKey) -> bytes:
    return public_key.public_bytes(serialization.Encoding.Raw, serialization.PublicFormat.Raw)


def key_id(public_key: Ed25519PublicKey) -> str:
    """A short name for a public key: the first 16 hex digits of sha256 of its 32 raw bytes."""
    return hashlib.sha256(raw_public_key(public_key)).hexdigest()[:16]


def public_key_pem(public_key: Ed25519PublicKey) -> str:
    return public_key.public_bytes(
        serialization.Encoding.PEM, serialization.PublicFormat.SubjectPublicKeyInfo
    ).decode()


def public_key_document(public_key: Ed25519PublicKey) -> dict[str, Any]:
    """The public key as `/audit/public-key` serves it."""
    return {
        "algorithm": ALGORITHM,
        "key_id": key_id(public_key),
        "public_key": base64.b64encode(raw_public_key(public_key)).decode(),
        "pem": public_key_pem(public_key),
    }


def read_public_key(text: str | bytes) -> Ed25519PublicKey:
    """A public key given as the `/audit/public-key` JSON, as PEM, or as base64 of its 32 bytes."""
    data = text.encode() if isinstance(text, str) else text
    stripped = data.strip()
    if stripped.startswith(b"{"):
        try:
            document = json.loads(stripped)
        except ValueError:
            raise KeyProblem("The public key file is not valid JSON.") from None
        if not isinstance(document, dict) or not isinstance(document.get("public_key"), str):
            raise KeyProblem('The public key JSON has no "public_key" text.')
        return read_public_key(document["public_key"])
    if stripped.startswith(b"-----BEGIN"):
        try:
            key = serialization.load_pem_public_key(stripped)
        except ValueError:
            raise KeyProblem("The PEM public key cannot be read.") from None
        if not isinstance(key, Ed25519PublicKey):
            raise KeyProblem("The PEM public key is not an Ed25519 key.")
        return key
    try:
        raw = base64.b64decode(stripped, validate=True)
    except (binascii.Error, ValueError):
        raise KeyProblem("The public key is neither JSON, PEM nor base64.") from None
    if len(raw) != 32:
        raise KeyProblem("An Ed25519 public key has 32 bytes.")
    return Ed25519PublicKey.from_public_bytes(raw)


def signature_holds(public_key: Ed25519PublicKey, message: bytes, signature: str) -> bool:
    """Whether `signature` (hex) is the key's signature of `message` (`head_message`)."""
    try:
        raw = bytes.fromhex(signature)
    except ValueError:
        return False
    try:
        public_key.verify(raw, message)
    except InvalidSignature:
        return False
    return True
