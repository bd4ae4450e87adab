"""The errors every layer refuses with: each carries a stable snake_case code, an HTTP status and
a plain message. Services raise them (or an app's own kinds of them); the API and the pages map
them once (`error.as_json()`), never by hand. The codes are listed in docs/errors.md and never
change meaning. A message is read in the reader's language (the request's, docs/decisions.md
"Languages"); a code never is."""

from __future__ import annotations

from typing import Any, ClassVar

from django.utils.functional import Promise
from django.utils.translation import gettext_lazy


class DomainError(Exception):
    code: ClassVar[str] = "invalid"
    status: ClassVar[int] = 400
    default_message: ClassVar[str | Promise] = gettext_lazy("That request is not valid.")

    def __init__(self, message: str | Promise | None = None) -> None:
        # Read in the language active where it is raised, so `as_json` stays plain JSON.
        self.message = str(message or self.default_message)
        super().__init__(self.message)

    def as_json(self) -> dict[str, Any]:
        return {"error": {"code": self.code, "message": self.message}}


class Invalid(DomainError):
    code = "invalid"
    status = 400


class IdempotencyKeyRequired(Invalid):
    code = "idempotency_key_required"
    default_message = gettext_lazy("Send an Idempotency-Key with every write.")


class NotAllowed(DomainError):
    code = "not_allowed"
    status = 403
    default_message = gettext_lazy("You are not allowed to do that.")


class NotFound(DomainError):
    code = "not_found"
    status = 404
    default_message = gettext_lazy("Not found.")


class WrongState(DomainError):
    code = "wrong_state"
    status = 409
    default_message = gettext_lazy("That cannot be done now.")


_NO_SUCH = {
    "event": gettext_lazy("No such event."),
    "series": gettext_lazy("No such series."),
    "organization": gettext_lazy("No such organization."),
    "season": gettext_lazy("No such season."),
    "registration": gettext_lazy("No such registration."),
    "review": gettext_lazy("No such review."),
    "display link": gettext_lazy("No such display link."),
    "invitation": gettext_lazy("No such invitation."),
}


def no_such(thing: str) -> NotFound:
    """'No such event.' for a missing thing named in English (a scope's noun, a missing id), in
    the reader's language; a thing without its own sentence reads 'Not found.'"""
    return NotFound(_NO_SUCH.get(thing))
