"""`manage.py export_season SEASON_ID --format json|csv`: print a season's export."""

from __future__ import annotations

import json
from typing import Any

from django.core.management.base import BaseCommand, CommandError, CommandParser

from seasons.export import season_csv, season_document
from seasons.models import Season
from seasons.standings import catch_up


class Command(BaseCommand):
    help = (
        "Print a season: its rules, each finalized event's signed audit head and players' public "
        "ids, and the table (JSON), or the table alone (CSV)."
    )

    def add_arguments(self, parser: CommandParser) -> None:
        parser.add_argument("season_id", type=int)
        parser.add_argument("--format", choices=["json", "csv"], default="json")

    def handle(self, *args: Any, **options: Any) -> None:
        season = Season.objects.select_related("series").filter(pk=options["season_id"]).first()
        if season is None:
            raise CommandError(f"No season with id {options['season_id']}.")
        catch_up(season)
        if options["format"] == "csv":
            self.stdout.write(season_csv(season), ending="")
        else:
            self.stdout.write(json.dumps(season_document(season), ensure_ascii=False))
