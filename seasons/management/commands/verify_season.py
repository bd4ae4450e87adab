"""`manage.py verify_season SEASON_FILE AUDIT_FILE...`: recompute a season from its events'
audit exports alone (seasons/verify.py); exits non-zero naming the first disagreement."""

from __future__ import annotations

from typing import Any

from django.core.management.base import BaseCommand, CommandError, CommandParser

from audit.management.commands.verify_audit import read_input, read_public_key_from
from seasons.verify import verify_season


class Command(BaseCommand):
    help = (
        "Check a season export (JSON) against the JSON audit exports of its events: every audit "
        "in full, every head, every point, total, rank and qualification."
    )
    requires_system_checks = ()

    def add_arguments(self, parser: CommandParser) -> None:
        parser.add_argument("season_file")
        parser.add_argument("audit_files", nargs="*", metavar="AUDIT_FILE")
        parser.add_argument(
            "--public-key",
            metavar="FILE_OR_URL",
            help="the deployment's audit public key: every audit's signed head must verify with it",
        )

    def handle(self, *args: Any, **options: Any) -> None:
        key_source: str | None = options["public_key"]
        public_key = read_public_key_from(key_source) if key_source else None
        season = read_input(options["season_file"])
        audits = {path: read_input(path) for path in options["audit_files"]}
        verdict = verify_season(season, audits, public_key)
        for line in verdict.checked:
            self.stdout.write(f"checked {line}")
        if not verdict.ok:
            raise CommandError(verdict.problem or "The season does not verify.")
        self.stdout.write(self.style.SUCCESS("OK: the season verifies."))
