"""An event as a scope of staff (staff/scopes.py) and of House's staff pages
(house/staff_pages.py): what its invitations say, who is House for it, its staff services and
its pages (its forms and words: house/staff_kinds.py)."""

from __future__ import annotations

from django.urls import reverse

from accounts.models import User
from events.models import Event, Phase
from events.runner import roles_of
from house import staff_pages as pages
from house.selectors import series_owner


def _roles(user: User, event: Event) -> frozenset[str]:
    return roles_of(user, event.pk, event.series_id)


def _dashboard(event: Event) -> str:
    return reverse("house:dashboard", args=[event.pk])


def _series(event: Event) -> pages.Above | None:
    """An event of a series: its owner is the series' owner (docs/rules.md section 14.1)."""
    if event.series is None:
        return None
    url = reverse("seasons:series", args=[event.series_id])
    return pages.Above(name=event.series.name, url=url, owner=series_owner(event))


EVENT_STAFF = pages.StaffScope(
    kind="event",
    model=Event,
    roles=_roles,
    # Invited to "Ann's Friday (Friday 04 December 2026)".
    invitation_words=lambda event: f"{event} ({event.date:%A %d %B %Y})",
    settings_page=lambda event: reverse("house:event_edit", args=[event.pk]),
    display_page=_dashboard,
    house_page=_dashboard,
    site_staff=True,
    # A finalized event's staff change no more (docs/rules.md section 10.1).
    final=lambda event: event.phase == Phase.FINALIZED,
    # A series' events are its owner's: handed over with the series.
    hands_over=lambda event: event.series_id is None,
    above=_series,
)
