"""The deployment's audit signing key, and the signed head of an event's chain (audit/anchor.py).

The key comes from `AUDIT_SIGNING_KEY` (base64 of the 32-byte Ed25519 private key, or a PKCS#8
PEM); production refuses to sign without it (check audit.E001). Elsewhere a development key is
made once and kept in `VAR_DIR/audit_signing_key.pem`, as push/keys.py keeps the VAPID pair.
"""

from __future__ import annotations

import base64
import binascii
from functools import cache
from pathlib import Path
from typing import Any, TypedDict

from cryptography.hazmat.primitives import serialization
from cryptography.hazmat.primitives.asymmetric.ed25519 import Ed25519PrivateKey
from django.conf import settings
from django.core.exceptions import ImproperlyConfigured

from audit.anchor import head_message, key_id, owner_head_message
from helpers.files import write_once


class SignedHead(TypedDict):
    """A signed head as exports carry it: every field of the signed message but the event id
    (the export's event block has it), then the signature."""

    seq: int
    hash: str
    phase: str  # "running" or "final"
    at: str  # when it was signed, ISO 8601 UTC
    event_block: str  # sha256 hex of the canonical JSON of the event block it signs
    signature: str  # hex Ed25519 signature of audit.anchor.head_message
    key_id: str


def generate() -> Ed25519PrivateKey:
    return Ed25519PrivateKey.generate()


def private_key_text(key: Ed25519PrivateKey) -> str:
    """The private key as `AUDIT_SIGNING_KEY` takes it: base64 of its 32 raw bytes."""
    raw = key.private_bytes(
        serialization.Encoding.Raw,
        serialization.PrivateFormat.Raw,
        serialization.NoEncryption(),
    )
    return base64.b64encode(raw).decode()


def read_private_key(text: str) -> Ed25519PrivateKey:
    value = text.strip()
    if value.startswith("-----BEGIN"):
        try:
            key = serialization.load_pem_private_key(value.encode(), password=None)
        except (ValueError, TypeError):
            problem = "AUDIT_SIGNING_KEY is a PEM key that cannot be read."
            raise ImproperlyConfigured(problem) from None
        if not isinstance(key, Ed25519PrivateKey):
            raise ImproperlyConfigured("AUDIT_SIGNING_KEY is not an Ed25519 key.")
        return key
    try:
        raw = base64.b64decode(value, validate=True)
    except (binascii.Error, ValueError):
        raise ImproperlyConfigured("AUDIT_SIGNING_KEY is neither base64 nor PEM.") from None
    if len(raw) != 32:
        raise ImproperlyConfigured("AUDIT_SIGNING_KEY must hold the 32-byte Ed25519 private key.")
    return Ed25519PrivateKey.from_private_bytes(raw)


def dev_key_file() -> Path:
    return Path(settings.VAR_DIR) / "audit_signing_key.pem"


def signing_key() -> Ed25519PrivateKey:
    """The key in force (read once per process for a given setting)."""
    return _signing_key(settings.AUDIT_SIGNING_KEY, str(dev_key_file()))


@cache
def _signing_key(configured: str, dev_path: str) -> Ed25519PrivateKey:
    if configured:
        return read_private_key(configured)
    if settings.PRODUCTION:
        raise ImproperlyConfigured(
            "Signing the audit needs AUDIT_SIGNING_KEY in the environment "
            "(generate one with `manage.py audit_keys`)."
        )
    path = Path(dev_path)
    if path.exists():
        return read_private_key(path.read_text())
    key = generate()
    pem = key.private_bytes(
        serialization.Encoding.PEM,
        serialization.PrivateFormat.PKCS8,
        serialization.NoEncryption(),
    )
    if not write_once(path, pem):  # another process or thread wrote it first: keep that one
        return read_private_key(path.read_text())
    return key


def sign_head(
    event_id: int, seq: int, entry_hash: str, *, phase: str, at: str, event_block: str
) -> SignedHead:
    """The deployment's signature of an event's chain ending at entry `seq` with `entry_hash`, at
    time `at`, in `phase`, with the event block whose digest is `event_block` (audit/heads.py)."""
    message = head_message(event_id, seq, entry_hash, phase=phase, at=at, event_block=event_block)
    signature, signer = _signed(message)
    return {
        "seq": seq,
        "hash": entry_hash,
        "phase": phase,
        "at": at,
        "event_block": event_block,
        "signature": signature,
        "key_id": signer,
    }


def sign_owner_head(
    owner: str, owner_id: int, seq: int, entry_hash: str, *, at: str, block: str
) -> dict[str, Any]:
    """The deployment's signature of the head of a chain above events (a series'): the export's
    `head`, with `<owner>_block` for the block it signs (audit.anchor.owner_head_message)."""
    message = owner_head_message(owner, owner_id, seq, entry_hash, at=at, block=block)
    signature, signer = _signed(message)
    return {
        "seq": seq,
        "hash": entry_hash,
        "at": at,
        f"{owner}_block": block,
        "signature": signature,
        "key_id": signer,
    }


def _signed(message: bytes) -> tuple[str, str]:
    """The key in force's signature of `message` (hex), and the key's id."""
    key = signing_key()
    return key.sign(message).hex(), key_id(key.public_key())
