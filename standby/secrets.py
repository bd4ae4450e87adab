"""The secrets a standby copy carries: written by the keeper, read back by `make restore`."""

from __future__ import annotations

import json
from pathlib import Path

from cryptography.hazmat.primitives import serialization
from django.conf import settings

from standby.models import TravellingSecret

AUDIT_KEY = "audit_signing_key"
VAPID = "vapid"
SECRET_KEY = "secret_key"


def in_force() -> dict[str, str]:
    """The secrets this deployment uses now, as the files of `var/` hold them."""
    from audit.signing import signing_key
    from push.keys import vapid_keys

    pem = signing_key().private_bytes(
        serialization.Encoding.PEM,
        serialization.PrivateFormat.PKCS8,
        serialization.NoEncryption(),
    )
    keys = vapid_keys()
    return {
        AUDIT_KEY: pem.decode(),
        VAPID: json.dumps({"public_key": keys.public_key, "private_key": keys.private_key}),
        SECRET_KEY: settings.SECRET_KEY,
    }


def keep() -> None:
    """Put the secrets in force into the database (only what changed: no needless writes)."""
    stored = dict(TravellingSecret.objects.values_list("name", "value"))
    for name, value in in_force().items():
        if stored.get(name) != value:
            TravellingSecret.objects.update_or_create(name=name, defaults={"value": value})


def files(var_dir: Path) -> dict[Path, str]:
    """Where `var/` keeps each secret (audit/signing.py, push/keys.py, syndicate/settings.py)."""
    return {
        var_dir / "audit_signing_key.pem": AUDIT_KEY,
        var_dir / "vapid.json": VAPID,
        var_dir / "secret_key": SECRET_KEY,
    }
