"""`manage.py verify_audit FILE`: check an exported audit file on its own (audit/verify.py).

The JSON export is checked in full; the CSV export (recognized by its header) for its hash chain.
"""

from __future__ import annotations

import sys
from pathlib import Path
from typing import Any

from django.core.management.base import BaseCommand, CommandError, CommandParser

from audit.verify import looks_like_csv, verify_csv, verify_json


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
            "file", help="the audit export (JSON or CSV), or - to read standard input"
        )

    def handle(self, *args: Any, **options: Any) -> None:
        path: str = options["file"]
        text = read_input(path)
        verdict = verify_csv(text) if looks_like_csv(text) else verify_json(text)
        for line in verdict.checked:
            self.stdout.write(f"checked {line}")
        if not verdict.ok:
            raise CommandError(verdict.problem or "The audit does not verify.")
        if verdict.finalized:
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
