"""`manage.py export_audit EVENT_ID --format json|csv`: print the public audit."""

from __future__ import annotations

import json
from typing import Any

from django.core.management.base import BaseCommand, CommandError, CommandParser

from audit.export import audit_csv, audit_document
from events.models import Event


class Command(BaseCommand):
    help = "Print an event's public audit as JSON or CSV."

    def add_arguments(self, parser: CommandParser) -> None:
        parser.add_argument("event_id", type=int)
        parser.add_argument("--format", choices=["json", "csv"], default="json")

    def handle(self, *args: Any, **options: Any) -> None:
        event = Event.objects.filter(pk=options["event_id"]).first()
        if event is None:
            raise CommandError(f"No event with id {options['event_id']}.")
        if options["format"] == "csv":
            self.stdout.write(audit_csv(event), ending="")
        else:
            self.stdout.write(json.dumps(audit_document(event), ensure_ascii=False))
