"""A player's data in their own hands: everything kept about them, as JSON, and the deletion of
their account (docs/decisions.md, "Players' data").

What is kept and how it goes is each app's own `personal_data.py` (privacy/registry.py): the
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

from accounts import revocation
from accounts.models import User
from cards.models import Offer
from events.answers import Answer
from events.errors import DeletionBlocked, NotFound
from events.models import Phase, Registration
from events.registration import RELABELLED, labels_taken
from events.runner import Change, action, together
from privacy.registry import Erasure, handlers, sections

LABEL = "Former player {number}"


@dataclass(frozen=True)
class PlayerRelabelled(Answer):
    """The registration's neutral label."""

    registration_id: int
    label: str


def _neutral_label(registration: Registration) -> str:
    """The neutral label, "Former player <registration id>", made unique among every label the
    event's registrations hold or held (a label once in the chain is never anyone else's)."""
    taken = set(labels_taken(registration.event))
    label = LABEL.format(number=registration.pk)
    suffix = 2
    while label in taken:
        label = f"{LABEL.format(number=registration.pk)} #{suffix}"
        suffix += 1
    return label


@action(RELABELLED)
def player_relabel(
    change: Change,
    *,
    registration_id: int,
    by: User,
    idempotency_key: str | None = None,
) -> PlayerRelabelled:
    """The account behind a registration is being deleted: the registration takes a neutral
    label and forgets the account and the salt of its commitment."""
    registration = Registration.objects.filter(pk=registration_id, player=by).first()
    if registration is None:
        raise NotFound("No such registration.")
    old = registration.label
    registration.label = _neutral_label(registration)
    registration.player = None
    registration.person_salt = ""
    registration.save(update_fields=["label", "player", "person_salt"])
    change.touched_labels.add(registration.label)
    change.know(registration)
    # Written by the system: the entry names neither the account nor who asked.
    change.audit(RELABELLED, player=old, details={"label": registration.label}, by_system=True)
    return PlayerRelabelled(registration_id=registration.pk, label=registration.label)


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

    One transaction, all or nothing: every app's handler (privacy/registry.py) relabels or
    erases what it keeps, in stage order (the registrations take their neutral labels in their
    events' chains first), then the account row goes."""
    if pending := pending_in_play(user):
        names = ", ".join(sorted({r.event.name for r in pending}))
        raise DeletionBlocked(
            f"You have a card to choose in {names}: choose it (or ask House), then delete your "
            "account."
        )
    with together():
        # No key update: a season recorded meanwhile may still insert rows naming the account
        # (they wait for nothing here), which the seasons handler then passes on.
        locked = User.objects.select_for_update(no_key=True).filter(pk=user.pk).first()
        if locked is None:
            raise NotFound("No such account.")
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
