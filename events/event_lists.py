"""The lists of events: the public one, and the events a user is registered for."""

from __future__ import annotations

from django.db.models import Count, Q, QuerySet

from accounts.models import User
from events.models import Event, RegistrationStatus


def event_list_public() -> QuerySet[Event]:
    """Events that are not drafts, newest first, with their checked-in counts."""
    return (
        Event.objects.exclude(phase="draft")
        .annotate(
            checked_in=Count(
                "registrations",
                filter=Q(registrations__status=RegistrationStatus.CHECKED_IN),
            )
        )
        .order_by("-date", "-id")
    )


def events_of(user: User) -> list[Event]:
    """Events the user is registered for (not cancelled), newest first."""
    return list(
        Event.objects.filter(registrations__player=user)
        .exclude(registrations__status=RegistrationStatus.CANCELLED, registrations__player=user)
        .distinct()
        .order_by("-date", "-id")
    )
