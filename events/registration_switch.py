"""The registration switch: when House may open registration, and when it closes by itself.

Registration closes before the last player's first result: once the event has started, any change
that leaves no active checked-in player without a first result (an accepted Game 1 result, a
withdrawal) closes it in the same transaction, actor "system". Every such change calls
`close_if_nobody_waits`, the rule's one home. Registration never reopens once nobody waits for a
first result, nor once the pool has been confirmed, also after a late addition made the pool
provisional again; House still adds late participants (docs/decisions.md, Events and House).
"""

from __future__ import annotations

from django.utils.translation import gettext as _

from events import store
from events.errors import (
    DomainError,
    RegistrationCannotReopen,
    RegistrationIsClosed,
    RemainderPolicyRequired,
)
from events.models import Event, Phase, RegistrationStatus
from events.remainder_policy import lacks_remainder_policy
from events.runner import Change


def nobody_waits_for_a_first_result(event: Event) -> bool:
    """Whether the event has started and no active checked-in player is without a Game 1 result:
    the moment registration must be closed by."""
    return event.phase == Phase.STARTED and not store.waiting_for_a_first_result(event_id=event.pk)


def close_registration(change: Change, *, by_system: bool = False) -> None:
    """Close registration; registrations never checked in become no-shows."""
    event = change.event
    event.registration_open = False
    event.save(update_fields=["registration_open"])
    no_shows = list(
        event.registrations.filter(status=RegistrationStatus.REGISTERED)
        .order_by("id")
        .values_list("label", flat=True)
    )
    if no_shows:
        event.registrations.filter(status=RegistrationStatus.REGISTERED).update(
            status=RegistrationStatus.NO_SHOW
        )
    change.audit("registration_closed", details={"no_shows": no_shows}, by_system=by_system)
    change.touches_everyone = True


def close_if_nobody_waits(change: Change) -> None:
    """Close open registration (actor "system") when the change just made leaves no active
    checked-in player without a first result. Called by every change that can."""
    if change.event.registration_open and nobody_waits_for_a_first_result(change.event):
        close_registration(change, by_system=True)


def why_registration_cannot_open(event: Event) -> DomainError | None:
    """What stops House opening registration now, in plain words; None when nothing does.

    The House page asks it for its note beside the switch, `registration_open` for its refusal.
    """
    if event.phase == Phase.FINALIZED:
        return None  # every change is refused as finalized first
    if event.registration_open:
        return RegistrationIsClosed(_("Registration is already open."))
    if event.pool_was_confirmed:
        return RegistrationCannotReopen(
            _(
                "The pool has been confirmed, so registration cannot reopen. House may still add "
                "a late participant."
            )
        )
    if nobody_waits_for_a_first_result(event):
        return RegistrationCannotReopen(
            _(
                "Every player has a first result, so registration closed for good. House may "
                "still add a late participant."
            )
        )
    if lacks_remainder_policy(event.contribution, event.remainder_policy):
        return RemainderPolicyRequired(
            _(
                "Registration cannot open yet: a paid event ($%(contribution)s per participant) "
                "needs its remainder policy first, saying how an indivisible High remainder will "
                "be handled. Set it in the event's settings."
            )
            % {"contribution": event.contribution}
        )
    return None
