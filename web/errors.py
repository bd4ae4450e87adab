"""How pages answer a refused action: the service's message in plain words, nothing changed."""

from __future__ import annotations

import uuid

from django.contrib import messages
from django.http import HttpRequest

from events.errors import DomainError, NotAllowed, NotFound
from syndicate import security


def fresh_key() -> str:
    """An idempotency key for one rendered form: a double submit sends the same key."""
    return uuid.uuid4().hex


def form_key(request: HttpRequest) -> str | None:
    key = request.POST.get("idempotency_key", "").strip()
    return key or None


def refuse(request: HttpRequest, error: DomainError) -> None:
    if isinstance(error, NotAllowed | NotFound):
        security.log_refusal(request, code=error.code, status=error.status)
    messages.error(request, error.message)
