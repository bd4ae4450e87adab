"""The errors every layer refuses with: each carries a stable snake_case code, an HTTP status and
a plain message. Services raise them (or an app's own kinds of them); the API and the pages map
them once (`error.as_json()`), never by hand. The codes are listed in docs/errors.md and never
change meaning."""

from __future__ import annotations

from typing import Any, ClassVar


class DomainError(Exception):
    code: ClassVar[str] = "invalid"
    status: ClassVar[int] = 400
    default_message: ClassVar[str] = "That request is not valid."

    def __init__(self, message: str | None = None) -> None:
        self.message = message or self.default_message
        super().__init__(self.message)

    def as_json(self) -> dict[str, Any]:
        return {"error": {"code": self.code, "message": self.message}}


class Invalid(DomainError):
    code = "invalid"
    status = 400


class IdempotencyKeyRequired(Invalid):
    code = "idempotency_key_required"
    default_message = "Send an Idempotency-Key with every write."


class NotAllowed(DomainError):
    code = "not_allowed"
    status = 403
    default_message = "You are not allowed to do that."


class NotFound(DomainError):
    code = "not_found"
    status = 404
    default_message = "Not found."


class WrongState(DomainError):
    code = "wrong_state"
    status = 409
    default_message = "That cannot be done now."
