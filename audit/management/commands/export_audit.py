"""`manage.py export_audit EVENT_ID --format json|csv`: print the public audit of an event; with
`--series ID` (a chain the layer above installs: audit.export.use_owner_export), the audit of
that owner's own chain, as JSON."""

from __future__ import annotations

import json
from typing import Any

from django.core.management.base import BaseCommand, CommandError, CommandParser

from audit.export import audit_csv, audit_document, owner_exports
from events.models import Event


class Command(BaseCommand):
    help = "Print an event's public audit as JSON or CSV, or a series' audit as JSON."

    def add_arguments(self, parser: CommandParser) -> None:
        parser.add_argument("event_id", type=int, nargs="?")
        parser.add_argument("--format", choices=["json", "csv"], default="json")
        for owner in owner_exports():
            parser.add_argument(
                f"--{owner}", type=int, metavar="ID", help=f"export the {owner}'s own audit"
            )

    def handle(self, *args: Any, **options: Any) -> None:
        chosen = [
            (owner, options[owner]) for owner in owner_exports() if options.get(owner) is not None
        ]
        if chosen:
            if options["event_id"] is not None or len(chosen) > 1:
                raise CommandError("Give an event id or one owner's id, not both.")
            owner, owner_id = chosen[0]
            if options["format"] != "json":
                raise CommandError(f"A {owner}'s audit is exported as JSON.")
            document = owner_exports()[owner](owner_id)
            if document is None:
                raise CommandError(f"No {owner} with id {owner_id}.")
            self.stdout.write(json.dumps(document, ensure_ascii=False))
            return
        if options["event_id"] is None:
            others = "".join(f" or --{owner} ID" for owner in owner_exports())
            raise CommandError(f"Give the event's id{others}.")
        event = Event.objects.filter(pk=options["event_id"]).first()
        if event is None:
            raise CommandError(f"No event with id {options['event_id']}.")
        if options["format"] == "csv":
            self.stdout.write(audit_csv(event), ending="")
        else:
            self.stdout.write(json.dumps(audit_document(event), ensure_ascii=False))
