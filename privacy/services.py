"""A player's data in their own hands: everything kept about them, as JSON, and the deletion of
their account (docs/decisions.md, "Players' data").

What is kept and how it goes is each app's own `personal_data.py` (accounts/registry.py): the
download and the deletion walk them. Deleting an account erases its email, display name, sessions,
push subscriptions and stored answers, and unlinks its registrations: each takes a neutral label
("Former player 12") through `player_relabelled`, a state change of its event written to its
chain by the system, and loses the salt of its commitment (events/person.py); its season rows
follow the label. The audit keeps what it held (labels, never an email); `verify_audit` follows a
relabelling, so exports made before and after the deletion both verify. A player with a card to
choose in an event in play is refused: they choose it first.
"""

from __future__ import annotations

from dataclasses import dataclass
from typing import Any

from django.db import transaction
from django.utils.translation import gettext as _

from accounts import revocation
from accounts.models import User
from accounts.registry import Erasure, handlers, sections
from cards.models import Offer
from events.errors import DeletionBlocked, NotFound
from events.models import Phase, Registration
from events.runner import together


def pending_in_play(user: User) -> list[Registration]:
    """The registrations with a card to choose in an event in play."""
    waiting = Offer.objects.pending().filter(
        registration__player=user, registration__event__phase=Phase.STARTED
    )
    return list(
        Registration.objects.filter(pk__in=waiting.values("registration_id")).select_related(
            "event"
        )
    )


@dataclass(frozen=True, slots=True)
class DeletedAccount:
    registrations: int
    sessions: int


def delete_account(*, user: User) -> DeletedAccount:
    """Delete the account, refused while it has a card to choose in an event in play.

    One transaction, all or nothing: every app's handler (accounts/registry.py) relabels or
    erases what it keeps, in stage order (the registrations take their neutral labels in their
    events' chains first), then the account row goes."""
    if pending := pending_in_play(user):
        names = ", ".join(sorted({r.event.name for r in pending}))
        raise DeletionBlocked(
            _(
                "You have a card to choose in %(names)s: choose it (or ask House), then delete "
                "your account."
            )
            % {"names": names}
        )
    with together():
        # No key update: a season recorded meanwhile may still insert rows naming the account
        # (they wait for nothing here), which the seasons handler then passes on.
        locked = User.objects.select_for_update(no_key=True).filter(pk=user.pk).first()
        if locked is None:
            raise NotFound(_("No such account."))
        if pending_in_play(locked):
            raise DeletionBlocked()
        erasure = Erasure(user=locked)
        for handler in handlers():
            handler.erase(erasure)
        user_id = locked.pk
        locked.delete()
        transaction.on_commit(lambda: revocation.revoke(user_id))
    return DeletedAccount(registrations=len(erasure.labels), sessions=erasure.sessions)


def personal_data(user: User) -> dict[str, Any]:
    """Everything kept about the account, as JSON: one section per handler of the registry."""
    return {handler.name: handler.export(user) for handler in sections()}
