"""An event as a scope of staff (staff/scopes.py) and of House's staff pages
(house/staff_pages.py): what its invitations say, who is House for it, its staff services and
its pages (its forms and words: house/staff_kinds.py)."""

from __future__ import annotations

from django.urls import reverse
from django.utils import formats
from django.utils.translation import pgettext

from accounts.models import User
from events.models import Event, Phase
from events.runner import roles_of, scope_above
from house import staff_pages as pages
from staff.reads import owner


def _roles(user: User, event: Event) -> frozenset[str]:
    return roles_of(user, event.pk)


def _dashboard(event: Event) -> str:
    return reverse("house:dashboard", args=[event.pk])


def _invitation_words(event: Event) -> str:
    """Invited to "Ann's Friday (Friday 04 December 2026)", the date in the reader's language."""
    date_format = pgettext("invitation date", "l d F Y")
    return f"{event} ({formats.date_format(event.date, date_format)})"


def _series(event: Event) -> pages.Above | None:
    """An event of a series: its owner is the series' owner (docs/rules.md section 14.1)."""
    series = scope_above(event.pk)
    if series is None:
        return None
    url = reverse("seasons:series", args=[series.pk])
    return pages.Above(name=str(series), url=url, owner=owner(series))


EVENT_STAFF = pages.StaffScope(
    kind="event",
    model=Event,
    roles=_roles,
    invitation_words=_invitation_words,
    settings_page=lambda event: reverse("house:event_edit", args=[event.pk]),
    display_page=_dashboard,
    house_page=_dashboard,
    site_staff=True,
    # A finalized event's staff change no more (docs/rules.md section 10.1).
    final=lambda event: event.phase == Phase.FINALIZED,
    # A series' events are its owner's: handed over with the series.
    hands_over=lambda event: scope_above(event.pk) is None,
    above=_series,
)
