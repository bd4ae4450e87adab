"""Whose registration a change may touch: its own player, or House; anyone else is told it does
not exist (no leak). Every change that names a registration asks here first."""

from __future__ import annotations

from django.utils.translation import gettext as _

from accounts.models import User
from events import store
from events.errors import NotFound
from events.models import Registration
from events.progress import Progress
from events.runner import Change


def registration_for(change: Change, registration_id: int, by: User) -> Registration:
    """The registration, if `by` is its player or House; otherwise not found (no leak)."""
    # The player and their progress in one statement: the hot paths need both.
    found = store.player_with_progress(event_id=change.event.pk, registration_id=registration_id)
    if found is None:
        raise NotFound(_("No such registration."))
    registration = found.registration
    change.progress[registration.pk] = Progress.of(found.progress, change.event.rules)
    registration.event = change.event
    change.know(registration)
    if registration.player_id == by.pk:
        change.house = False  # acting on their own place, even when also House
        return registration
    if not change.house:
        if change.roles:
            raise change.refusal()  # staff, whose role does not include this action
        raise NotFound(_("No such registration."))
    return registration
