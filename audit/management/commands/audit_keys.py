"""`manage.py audit_keys`: make an Ed25519 key pair for signing the audit chain's head."""

from __future__ import annotations

from typing import Any

from django.core.management.base import BaseCommand

from audit.anchor import key_id, public_key_pem
from audit.signing import generate, private_key_text


class Command(BaseCommand):
    help = (
        "Print a new audit signing key as the AUDIT_SIGNING_KEY line for the environment, and "
        "its public key (also served at /audit/public-key once the key is in force)."
    )
    requires_system_checks = ()

    def handle(self, *args: Any, **options: Any) -> None:
        key = generate()
        public = key.public_key()
        self.stdout.write(f"AUDIT_SIGNING_KEY={private_key_text(key)}")
        self.stderr.write(f"key id {key_id(public)}; public key:\n{public_key_pem(public)}")
