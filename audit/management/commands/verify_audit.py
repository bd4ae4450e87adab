"""`manage.py verify_audit FILE [FILE...]`: check an exported audit file on its own
(audit/verify.py).

The JSON export is checked in full; the CSV export (recognized by its header) for its hash chain.
Given several exports of one event (published at different times), each is checked, and each must
be a prefix of the longest: the later chain extends every earlier one (docs/audit.md, "Earlier
heads").
"""

from __future__ import annotations

import sys
from pathlib import Path
from typing import Any
from urllib.error import URLError
from urllib.parse import urlsplit
from urllib.request import urlopen

from cryptography.hazmat.primitives.asymmetric.ed25519 import Ed25519PublicKey
from django.core.management.base import BaseCommand, CommandError, CommandParser

from audit.anchor import KeyProblem, read_public_key
from audit.verify import looks_like_csv, verify_csv, verify_exports, verify_json


class Command(BaseCommand):
    help = (
        "Independently check an exported audit JSON file: the hash chain, the shuffle commitment, "
        "every dealt card, the hands, the pool, the places and the awards. Exits non-zero naming "
        "the first problem. A CSV export is checked for its hash chain."
    )
    # The verifier reads a file, not this project's state: it runs even if other apps fail checks.
    requires_system_checks = ()

    def add_arguments(self, parser: CommandParser) -> None:
        parser.add_argument(
            "files",
            nargs="+",
            metavar="file",
            help=(
                "the audit export (JSON or CSV), or - to read standard input; several exports "
                "of one event: each must be a prefix of the longest"
            ),
        )
        parser.add_argument(
            "--public-key",
            metavar="FILE_OR_URL",
            help=(
                "the deployment's audit public key (a file, or a URL such as "
                "https://host/audit/public-key): the JSON export's signed head must verify with it"
            ),
        )

    def handle(self, *args: Any, **options: Any) -> None:
        paths: list[str] = options["files"]
        key_source: str | None = options["public_key"]
        public_key = read_public_key_from(key_source) if key_source else None
        texts = {path: read_input(path) for path in paths}
        if public_key is not None and any(looks_like_csv(text) for text in texts.values()):
            raise CommandError(
                "The CSV export carries no event id to check its signed head with: "
                "verify the JSON export against the key."
            )
        if len(texts) > 1:
            verdict = verify_exports(texts, public_key)
        elif looks_like_csv(text := texts[paths[0]]):
            verdict = verify_csv(text)
        else:
            verdict = verify_json(text, public_key)
        for line in verdict.checked:
            self.stdout.write(f"checked {line}")
        if not verdict.ok:
            raise CommandError(verdict.problem or "The audit does not verify.")
        if verdict.owner:
            self.stdout.write(self.style.SUCCESS(f"OK: the {verdict.owner} audit verifies."))
        elif verdict.finalized:
            self.stdout.write(self.style.SUCCESS("OK: the audit verifies."))
        else:
            self.stdout.write(
                self.style.SUCCESS("OK: the chain verifies; the shuffle is not yet verifiable.")
            )


def read_input(path: str) -> bytes | str:
    if path == "-":
        stream = getattr(sys.stdin, "buffer", None)
        return stream.read() if stream is not None else sys.stdin.read()
    try:
        return Path(path).read_bytes()
    except OSError as error:
        raise CommandError(f"Cannot read {path}: {error.strerror or error}.") from None


MOST_KEY_BYTES = 64 * 1024  # a public key document is a few hundred bytes


def read_public_key_from(source: str) -> Ed25519PublicKey:
    """The public key from a file, or fetched from an http(s) URL."""
    if urlsplit(source).scheme in ("http", "https"):
        try:
            with urlopen(source, timeout=10) as response:
                text = response.read(MOST_KEY_BYTES)
        except (URLError, OSError, ValueError) as error:
            raise CommandError(f"Cannot fetch the public key from {source}: {error}.") from None
    else:
        try:
            text = Path(source).read_bytes()[:MOST_KEY_BYTES]
        except OSError as error:
            raise CommandError(f"Cannot read {source}: {error.strerror or error}.") from None
    try:
        return read_public_key(text)
    except KeyProblem as problem:
        raise CommandError(f"{source}: {problem}") from None
