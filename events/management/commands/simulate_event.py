"""`manage.py simulate_event --format F --players N --seed S [--contribution D]`."""

from __future__ import annotations

import json
from typing import Any

from django.core.management.base import BaseCommand, CommandError, CommandParser

from events.errors import DomainError
from events.simulation import recorded_night, simulate


class Command(BaseCommand):
    help = (
        "Play a whole event to finalization through the services, with its ledger as House "
        "records it; print one JSON line."
    )

    def add_arguments(self, parser: CommandParser) -> None:
        parser.add_argument("--format", required=True, choices=["league", "switch", "standard-v1"])
        parser.add_argument("--players", required=True, type=int)
        parser.add_argument("--seed", required=True, type=int)
        parser.add_argument("--contribution", type=int, default=10)

    def handle(self, *args: Any, **options: Any) -> None:
        if options["players"] < 2:
            raise CommandError("--players must be at least 2 (an event starts with two).")
        if options["contribution"] < 0:
            raise CommandError("--contribution must be $0 or more.")
        try:
            outcome = simulate(
                format=options["format"],
                players=options["players"],
                seed=options["seed"],
                contribution=options["contribution"],
                night=recorded_night(),
            )
        except DomainError as error:
            raise CommandError(f"{error.code}: {error.message}") from error
        self.stdout.write(json.dumps(outcome))
