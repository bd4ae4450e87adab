"""VAPID keys: from the environment in production; a kept development pair otherwise."""

from __future__ import annotations

import base64
import json
from dataclasses import dataclass
from pathlib import Path

from cryptography.hazmat.primitives import serialization
from cryptography.hazmat.primitives.asymmetric import ec
from django.conf import settings
from django.core.exceptions import ImproperlyConfigured

from helpers.files import write_once


@dataclass(frozen=True, slots=True)
class VapidKeys:
    public_key: str  # base64url, uncompressed P-256 point: the browser's applicationServerKey
    private_key: str  # base64url, the raw 32-byte private value


def _b64(data: bytes) -> str:
    return base64.urlsafe_b64encode(data).rstrip(b"=").decode()


def generate() -> VapidKeys:
    private = ec.generate_private_key(ec.SECP256R1())
    raw_private = private.private_numbers().private_value.to_bytes(32, "big")
    raw_public = private.public_key().public_bytes(
        serialization.Encoding.X962, serialization.PublicFormat.UncompressedPoint
    )
    return VapidKeys(public_key=_b64(raw_public), private_key=_b64(raw_private))


def dev_key_file() -> Path:
    return Path(settings.VAR_DIR) / "vapid.json"


def vapid_keys() -> VapidKeys:
    """The keys in force. Production refuses push without both keys in the environment."""
    if settings.VAPID_PUBLIC_KEY and settings.VAPID_PRIVATE_KEY:
        return VapidKeys(settings.VAPID_PUBLIC_KEY, settings.VAPID_PRIVATE_KEY)
    if settings.PRODUCTION:
        raise ImproperlyConfigured(
            "Poker push needs VAPID_PUBLIC_KEY and VAPID_PRIVATE_KEY in the environment "
            "(generate them with `manage.py vapid_keys`)."
        )
    path = dev_key_file()
    if path.exists():
        return _read(path)
    keys = generate()
    pair = {"public_key": keys.public_key, "private_key": keys.private_key}
    if not write_once(path, json.dumps(pair).encode()):  # another writer was first: keep theirs
        return _read(path)
    return keys


def _read(path: Path) -> VapidKeys:
    stored = json.loads(path.read_text())
    return VapidKeys(stored["public_key"], stored["private_key"])
