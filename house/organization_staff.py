"""An organization as a scope of staff (staff/scopes.py) and of House's staff pages
(house/staff_pages.py): what its invitations say, who is House for it, its pages (its forms and
words: house/staff_kinds.py)."""

from __future__ import annotations

from django.urls import reverse
from django.utils.translation import gettext as _

from accounts.models import User
from events.runner import scope_roles
from house import staff_pages as pages
from organizations.models import Organization


def _roles(user: User, organization: Organization) -> frozenset[str]:
    return scope_roles(user, organization.pk, Organization)


def _page(organization: Organization) -> str:
    return reverse("organizations:organization", args=[organization.pk])


ORGANIZATION_STAFF = pages.StaffScope(
    kind="organization",
    model=Organization,
    roles=_roles,
    # Invited to "the series and events of Harbour Cornhole League".
    invitation_words=lambda organization: (
        _("the series and events of %(organization)s") % {"organization": organization}
    ),
    settings_page=_page,
    display_page=_page,
    house_page=_page,
)
