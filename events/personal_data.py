"""What the engine keeps about a person (accounts/registry.py): their registrations (results,
cards, places, awards, the audit entries that name them), and their stored answers (their staff
roles, invitations and display links are the staff layer's: staff/personal_data.py)."""

from __future__ import annotations

from typing import Any

from accounts.models import User
from accounts.registry import Erasure, Handler, Stage, nothing, register
from audit.models import AuditEntry
from events.models import IdempotencyRecord, Phase, Registration
from events.person import commitment
from events.play_rules import NOT_CHECKED_IN
from events.progress import kept_cards
from events.registration import RELABELLED, player_relabel, registration_cancel


def registration_entries(registration: Registration) -> list[dict[str, Any]]:
    """The audit entries of this registration: those naming its label since a deleted account's
    registration last left that label (a chain written before labels were kept apart may name
    two registrations with it, one after the other)."""
    entries = AuditEntry.objects.filter(event_id=registration.event_id, player=registration.label)
    left = entries.filter(action=RELABELLED).order_by("-seq").values_list("seq", flat=True).first()
    if left is not None:
        entries = entries.filter(seq__gt=left)
    return [entry.as_dict() for entry in entries.order_by("seq")]


def export_registrations(user: User) -> list[dict[str, Any]]:
    registrations = []
    for registration in (
        Registration.objects.filter(player=user).select_related("event").order_by("pk")
    ):
        event = registration.event
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
                "audit_entries": registration_entries(registration),
            }
        )
    return registrations


def relabel_registrations(erasure: Erasure) -> None:
    """Each registration takes its neutral label in its event's chain (events/registration.py), in
    event order: the deletion locks its events as every change of several does. One not yet
    checked in, in an event not final, is cancelled first, as the player could have done: nobody
    can come for it any more, so House never checks in a former player (docs/decisions.md,
    "Players' data")."""
    for registration_id, event_id, status, phase in (
        Registration.objects.filter(player=erasure.user)
        .order_by("event_id")
        .values_list("pk", "event_id", "status", "event__phase")
    ):
        if status in NOT_CHECKED_IN and phase != Phase.FINALIZED:
            registration_cancel(registration_id=registration_id, by=erasure.user)
        answer = player_relabel(registration_id=registration_id, by=erasure.user)
        erasure.labels[registration_id] = answer.label
        erasure.events[registration_id] = event_id


def export_stored_answers(user: User) -> list[dict[str, Any]]:
    return [
        {"key": key, "refused": code or None, "at": at.isoformat()}
        for key, code, at in IdempotencyRecord.objects.filter(user=user)
        .order_by("created_at", "pk")
        .values_list("key", "error_code", "created_at")
    ]


register(
    Handler(
        name="registrations",
        models=(Registration,),
        export=export_registrations,
        erase=relabel_registrations,
        stage=Stage.RELABEL,
    )
)
register(
    Handler(
        name="stored_answers",
        models=(IdempotencyRecord,),
        export=export_stored_answers,
        erase=nothing,
    )
)
