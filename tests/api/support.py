"""What the API tests share: a JSON client that sends an Idempotency-Key with every write."""

from __future__ import annotations

import uuid
from typing import Any

from rest_framework.test import APIClient

from accounts.models import User
from audit.models import AuditEntry
from cards.models import DealtCard
from events.models import Event, IdempotencyRecord

AUTO = "auto"


class Api:
    """One user's (or a visitor's) client. Writes get a fresh key unless `key` says otherwise."""

    def __init__(self, user: User | None = None, *, csrf_checks: bool = False) -> None:
        self.user = user
        self.client = APIClient(enforce_csrf_checks=csrf_checks)
        if user is not None:
            self.client.force_login(user)

    def get(self, path: str, **query: Any) -> Any:
        return self.client.get(path, query or None)

    def post(self, path: str, body: Any = None, *, key: str | None = AUTO) -> Any:
        return self.client.post(
            path, {} if body is None else body, format="json", headers=_key(key)
        )

    def patch(self, path: str, body: Any = None, *, key: str | None = AUTO) -> Any:
        return self.client.patch(
            path, {} if body is None else body, format="json", headers=_key(key)
        )

    def delete(self, path: str, *, key: str | None = AUTO) -> Any:
        return self.client.delete(path, headers=_key(key))

    def send(self, method: str, path: str, body: Any = None, *, key: str | None = AUTO) -> Any:
        if method == "GET":
            return self.get(path)
        if method == "DELETE":
            return self.delete(path, key=key)
        return getattr(self, method.lower())(path, body, key=key)


def _key(key: str | None) -> dict[str, str]:
    if key is None:
        return {}
    return {"Idempotency-Key": uuid.uuid4().hex if key == AUTO else key}


def error(response: Any) -> tuple[int, str]:
    """The status and error code of a refusal, after checking the one error shape."""
    body = response.json()
    assert set(body) == {"error"}, body
    assert set(body["error"]) == {"code", "message"}, body
    assert isinstance(body["error"]["message"], str) and body["error"]["message"]
    return response.status_code, body["error"]["code"]


def footprint(event: Event) -> tuple[int, int, int, int]:
    """What any change would move: audit entries, the live version, dealt cards, stored keys."""
    event.refresh_from_db()
    return (
        AuditEntry.objects.filter(event=event).count(),
        event.version,
        DealtCard.objects.filter(registration__event=event).count(),
        IdempotencyRecord.objects.count(),
    )


def changes(event: Event) -> tuple[int, int, int]:
    """The event's own state, without the stored keys (a refusal stores its key)."""
    return footprint(event)[:3]
