"""A series as a scope of staff (staff/scopes.py) and of House's staff pages
(house/staff_pages.py): what its invitations say, who is House for it, its staff services and
its pages (its forms and words: house/staff_kinds.py)."""

from __future__ import annotations

from django.urls import reverse
from django.utils.translation import gettext as _

from house import staff_pages as pages
from seasons import services
from seasons.models import Series


def _page(series: Series) -> str:
    return reverse("seasons:series", args=[series.pk])


SERIES_STAFF = pages.StaffScope(
    kind="series",
    model=Series,
    roles=services.series_roles,
    # Invited to "the events of Thursday League at The Dock".
    invitation_words=lambda series: (
        _("the events of %(series)s at %(venue)s") % {"series": series, "venue": series.venue}
        if series.venue
        else _("the events of %(series)s") % {"series": series}
    ),
    settings_page=_page,
    display_page=_page,
    house_page=_page,
)
