"""The operator's controls: `manage.py organizations list`, `suspend <slug>`, `resume <slug>`,
`cap <slug> <events a month>` (`default` for the deployment's ORGANIZATION_EVENTS_PER_MONTH)."""

from __future__ import annotations

from typing import Any

from django.core.management.base import BaseCommand, CommandError, CommandParser

from organizations import operator
from organizations.models import Organization


class Command(BaseCommand):
    help = "List, suspend, resume or cap the deployment's organizations."

    def add_arguments(self, parser: CommandParser) -> None:
        parser.add_argument("verb", choices=["list", "suspend", "resume", "cap"])
        parser.add_argument("slug", nargs="?")
        parser.add_argument("cap", nargs="?")

    def handle(self, *args: Any, **options: Any) -> None:
        verb, slug = options["verb"], options["slug"]
        if verb == "list":
            for row in Organization.objects.order_by("slug"):
                state = "suspended" if row.suspended else "active"
                cap = "default" if row.events_per_month is None else row.events_per_month
                self.stdout.write(f"{row.slug}\t{state}\tcap={cap}\t{row.name}")
            return
        if not slug:
            raise CommandError("Name the organization by its slug.")
        try:
            if verb == "suspend":
                operator.suspend(slug=slug)
            elif verb == "resume":
                operator.resume(slug=slug)
            else:
                raw = options["cap"]
                if raw is None:
                    raise CommandError("Give the events a month, or `default`.")
                if raw != "default" and not raw.isdigit():
                    raise CommandError("The cap is a whole number of events, or `default`.")
                operator.cap(slug=slug, events_per_month=None if raw == "default" else int(raw))
        except Organization.DoesNotExist:
            raise CommandError(f"No organization {slug!r}.") from None
        self.stdout.write(f"{slug}: {verb} done.")
