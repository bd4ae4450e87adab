"""`manage.py simulate_season --events E --players P --seed S [--format F]`."""

from __future__ import annotations

import json
from typing import Any

from django.core.management.base import BaseCommand, CommandError, CommandParser

from events.errors import DomainError
from seasons.simulation import FORMATS, simulate_season


class Command(BaseCommand):
    help = (
        "Play a series and a season of E finalized events through the services; print one JSON "
        "line whose last key is season_id."
    )

    def add_arguments(self, parser: CommandParser) -> None:
        parser.add_argument("--events", required=True, type=int)
        parser.add_argument("--players", required=True, type=int)
        parser.add_argument("--seed", required=True, type=int)
        parser.add_argument("--format", choices=FORMATS, default="league")

    def handle(self, *args: Any, **options: Any) -> None:
        if options["events"] < 1:
            raise CommandError("--events must be at least 1.")
        if options["players"] < 4:
            raise CommandError("--players must be at least 4 (each night needs four).")
        try:
            outcome = simulate_season(
                events=options["events"],
                players=options["players"],
                seed=options["seed"],
                format=options["format"],
            )
        except DomainError as error:
            raise CommandError(f"{error.code}: {error.message}") from error
        self.stdout.write(json.dumps(outcome))
