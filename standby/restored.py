"""What `make restore` does once Django runs on the restored database: the secrets the copy
carries go back into `var/`, and every event's audit is checked."""

from __future__ import annotations

import os
from pathlib import Path

from django.db import transaction

from standby.folder import CopyProblem
from standby.models import TravellingSecret
from standby.secrets import files


def write_secrets(var_dir: Path) -> None:
    """The copy's secrets replace `var/`'s: the night's audit heads, push subscriptions and
    sessions go on with the keys they were made with."""
    stored = dict(TravellingSecret.objects.values_list("name", "value"))
    for path, name in files(var_dir).items():
        if name not in stored:
            continue
        temporary = path.with_suffix(".restoring")
        descriptor = os.open(temporary, os.O_WRONLY | os.O_CREAT | os.O_TRUNC, 0o600)
        with os.fdopen(descriptor, "w") as handle:
            handle.write(stored[name])
        temporary.replace(path)


def check_events() -> tuple[list[tuple[int, str, str]], str]:
    """Every event's audit chain and signed head, checked as `verify_audit` checks an export with
    the deployment's public key; (id, name, phase) of each, and the time of the last write."""
    from audit.export import audit_document
    from audit.models import AuditEntry
    from audit.signing import signing_key
    from audit.verify import verify
    from events.models import Event

    public_key = signing_key().public_key()
    events = []
    for event in Event.objects.order_by("pk"):
        with transaction.atomic():
            locked = Event.objects.select_for_update().get(pk=event.pk)
            verdict = verify(audit_document(locked), public_key)
        if not verdict.ok:
            raise CopyProblem(f"Event {event.pk} ({event.name}): {verdict.problem}")
        events.append((event.pk, event.name, event.phase))
    last = AuditEntry.objects.order_by("-pk").values_list("at", flat=True).first()
    return events, str(last or "no write yet")
