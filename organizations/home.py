"""The laptop's organization: every event and series made without naming one belongs to it, so
one laptop runs one organization with nothing to configure (docs/decisions.md,
"Organizations")."""

from __future__ import annotations

HOME_SLUG = "home"
HOME_NAME = "Our venue"


def home_organization_id() -> int:
    """The laptop's organization, made the first time a row needs one."""
    from organizations.models import Organization

    home, _ = Organization.objects.get_or_create(slug=HOME_SLUG, defaults={"name": HOME_NAME})
    return int(home.pk)
