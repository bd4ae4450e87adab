"""Who may read what: the API's read helpers (selectors). They change nothing.

The services guard every write; these guard the reads the same way: someone else's registration
and a draft event are simply not found, and House reads refuse everyone but that event's House.
"""

from __future__ import annotations

from typing import Any

from django.contrib.auth.models import AnonymousUser
from django.db.models import Q
from django.utils.translation import gettext as _

from accounts.models import User
from events.errors import NotAllowed, NotFound
from events.models import Event, Phase, Registration
from events.progress import blockers
from events.reads.common import event_summary, to_json
from events.runner import is_house, roles_of, stranger_refusal
from staff import roles as staff


def account(user: User | AnonymousUser) -> User | None:
    """The signed-in account, or None for a visitor."""
    return user if isinstance(user, User) and user.is_authenticated else None


def _may_see_drafts(user: User | None, event: Event) -> bool:
    return user is not None and (user.is_staff or is_house(user, event))


def visible_event(user: User | None, event_id: int) -> Event:
    """An event anyone with the link may see; drafts only for site staff and its House."""
    event = Event.objects.filter(pk=event_id).first()
    if event is None or (event.phase == Phase.DRAFT and not _may_see_drafts(user, event)):
        raise NotFound(_("No such event."))
    return event


def house_event(user: User | None, event_id: int) -> Event:
    """An event whose House (or a superuser) is asking."""
    event = visible_event(user, event_id)
    if not is_house(user, event):
        if not roles_of(user, event.pk) and (unknown := stranger_refusal(user, Event, event.pk)):
            raise unknown
        raise NotAllowed(_("Only House can see this for this event."))
    return event


def money_event(user: User | None, event_id: int) -> Event:
    """An event whose House asks for its money: a role that may not see it (staff/roles.py
    `SIGHTS`, a scorer) is refused with a House action's words."""
    event = house_event(user, event_id)
    roles = roles_of(user, event.pk)
    if not staff.may_see(roles, "money"):
        raise staff.unseen(roles, "money")
    return event


def own_registration(user: User, event: Event) -> Registration:
    registration = Registration.objects.filter(event=event, player=user).first()
    if registration is None:
        raise NotFound(_("You are not registered for this event."))
    registration.event = event
    return registration


def readable_registration(user: User, registration_id: int) -> Registration:
    """A registration its own player or the event's House may read; for anyone else, none."""
    registration = Registration.objects.select_related("event").filter(pk=registration_id).first()
    if registration is None or (
        registration.player_id != user.pk and not is_house(user, registration.event)
    ):
        raise NotFound(_("No such registration."))
    return registration


def checklist(event: Event) -> dict[str, Any]:
    """What still blocks finalization, in plain words naming each player."""
    problems = blockers(event)
    return {
        "event_id": event.pk,
        "phase": event.phase,
        "finalizable": event.phase == Phase.STARTED and not problems,
        "blockers": problems,
    }


def event_list(user: User | None) -> list[dict[str, Any]]:
    """Events that are not drafts, plus the drafts this user may see; newest first.

    Each carries whether the user is its House and the user's own registration there.
    """
    events = Event.objects.exclude(phase=Phase.DRAFT)
    house_ids: set[int] = set()
    registrations: dict[int, int] = {}
    if user is not None:
        house_ids = set(
            Event.objects.filter(Q(staff__user=user) | Q(series__staff__user=user)).values_list(
                "pk", flat=True
            )
        )
        drafts = Q(phase=Phase.DRAFT) if user.is_staff else Q(pk__in=house_ids)
        events = Event.objects.filter(~Q(phase=Phase.DRAFT) | drafts)
        registrations = dict(Registration.objects.filter(player=user).values_list("event_id", "pk"))
    return [
        {
            **to_json(event_summary(event)),
            "house": user is not None and (user.is_superuser or event.pk in house_ids),
            "registration_id": registrations.get(event.pk),
        }
        for event in events.order_by("-date", "-id")
    ]


def account_for_house(
    *, by: User, event_id: int, user_id: int | None = None, email: str | None = None
) -> User:
    """The account House names (to add as a late participant), once House is known to ask.

    Checking House first keeps anyone else from learning which emails have accounts.
    """
    house_event(by, event_id)
    return _account(user_id=user_id, email=email)


def _account(*, user_id: int | None, email: str | None, active_only: bool = True) -> User:
    found = (
        User.objects.filter(pk=user_id).first()
        if user_id is not None
        else User.objects.filter(email__iexact=email or "").first()
    )
    if found is None or (active_only and not found.is_active):
        raise NotFound(_("No such account."))
    return found
