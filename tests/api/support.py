"""What the API tests share: a JSON client that sends an Idempotency-Key with every write."""

from __future__ import annotations

import uuid
from typing import Any

from rest_framework.test import APIClient

from accounts.models import User
from tests.refusals import api_error

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


# The API tests' name for it: the status and code of a refusal, after checking the error shape.
error = api_error
