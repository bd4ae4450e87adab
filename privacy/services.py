"""A player's data in their own hands: everything kept about them, as JSON, and the deletion of
their account (docs/decisions.md, "Players' data").

Deleting an account erases its email, display name, sessions, push subscriptions and stored
answers, and unlinks its registrations: each takes a neutral label ("Former player 12") through
`player_relabelled`, a state change of its event written to its chain by the system, and loses the
salt of its commitment (events/person.py). The audit keeps what it held (labels, never an email);
`verify_audit` follows a relabelling, so exports made before and after the deletion both verify.
A player with a card to choose in an event in play is refused: they choose it first.
"""

from __future__ import annotations

from dataclasses import dataclass
from typing import Any

from django.contrib.sessions.models import Session
from django.db import transaction
from django.utils import timezone

from accounts import revocation
from accounts.models import User
from audit.models import AuditEntry
from cards.models import Offer
from events.answers import Answer
from events.errors import DeletionBlocked, NotFound
from events.models import Phase, Registration
from events.person import commitment
from events.progress import kept_cards
from events.runner import Change, action

RELABELLED = "player_relabelled"
LABEL = "Former player {number}"


@dataclass(frozen=True)
class PlayerRelabelled(Answer):
    """The registration's neutral label."""

    registration_id: int
    label: str


def _neutral_label(registration: Registration) -> str:
    taken = set(registration.event.registrations.values_list("label", flat=True))
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
    """Delete the account, refused while it has a card to choose in an event in play."""
    pending = pending_in_play(user)
    if pending:
        names = ", ".join(sorted({r.event.name for r in pending}))
        raise DeletionBlocked(
            f"You have a card to choose in {names}: choose it (or ask House), then delete your "
            "account."
        )
    registrations = list(Registration.objects.filter(player=user).values_list("pk", flat=True))
    # One change per event, each in its own transaction under its event's lock; a retry after a
    # failure goes on where it stopped (a relabelled registration no longer names the account).
    for registration_id in registrations:
        player_relabel(registration_id=registration_id, by=user)
    with transaction.atomic():
        user = User.objects.select_for_update().get(pk=user.pk)
        if pending_in_play(user):
            raise DeletionBlocked()
        sessions = [
            session.pk
            for session in Session.objects.filter(expire_date__gt=timezone.now())
            if session.get_decoded().get("_auth_user_id") == str(user.pk)
        ]
        Session.objects.filter(pk__in=sessions).delete()
        user_id = user.pk
        user.delete()  # email addresses, push subscriptions, stored answers, House memberships
        transaction.on_commit(lambda: revocation.revoke(user_id))
    return DeletedAccount(registrations=len(registrations), sessions=len(sessions))


def personal_data(user: User) -> dict[str, Any]:
    """Everything kept about the account, as JSON: the account, each registration with its
    results, kept cards, the salt and commitment that tie it to the account, and the audit
    entries that name it; the events it is House for; its push subscriptions."""
    registrations = []
    for registration in (
        Registration.objects.filter(player=user).select_related("event").order_by("pk")
    ):
        event = registration.event
        entries = AuditEntry.objects.filter(event=event, player=registration.label).order_by("seq")
        registrations.append(
            {
                "event": {
                    "id": event.pk,
                    "name": event.name,
                    "date": event.date.isoformat(),
                    "venue": event.venue,
                    "phase": event.phase,
                },
                "label": registration.label,
                "status": registration.status,
                "registered_at": registration.registered_at.isoformat(),
                "checked_in_at": registration.checked_in_at.isoformat()
                if registration.checked_in_at
                else None,
                "late": registration.late,
                "paid": registration.paid,
                "age_confirmed": registration.age_confirmed,
                "results": [
                    {
                        "game": result.game,
                        "outcome": result.outcome,
                        "opponent": result.opponent,
                        "score": result.score,
                        "assisted": result.assisted,
                        "submitted_at": result.submitted_at.isoformat(),
                    }
                    for result in registration.results.order_by("game")
                ],
                "kept_cards": kept_cards(registration),
                "wild_rank": registration.wild_rank or None,
                "high_place": registration.high_place,
                "low_place": registration.low_place,
                "award": registration.award,
                "person": {
                    "salt": registration.person_salt,
                    "commitment": commitment(registration.person_salt, user.pk)
                    if registration.person_salt
                    else None,
                },
                "audit_entries": [entry.as_dict() for entry in entries],
            }
        )
    return {
        "account": {
            "id": user.pk,
            "email": user.email,
            "display_name": user.display_name,
            "date_joined": user.date_joined.isoformat(),
            "last_login": user.last_login.isoformat() if user.last_login else None,
            "four_colour_deck": user.four_colour_deck,
        },
        "registrations": registrations,
        "house_for": [
            {"event": event.pk, "name": event.name} for event in user.house_events.order_by("pk")
        ],
        "push_subscriptions": [
            {"device": subscription.user_agent, "created_at": subscription.created_at.isoformat()}
            for subscription in user.push_subscriptions.order_by("pk")
        ],
    }
