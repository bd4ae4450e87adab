"""The laptop's organization: every event and series made without naming one belongs to it, so
one laptop runs one organization with nothing to configure (docs/decisions.md,
"Organizations")."""

from __future__ import annotations

from django.apps import apps

HOME_SLUG = "home"
HOME_NAME = "Our venue"


def home_organization_id() -> int:
    """The laptop's organization, made the first time a row needs one. Named by its label: the
    engine's models take this default without importing the organizations' models."""
    organization = apps.get_model("organizations", "Organization")
    home, _ = organization.objects.get_or_create(slug=HOME_SLUG, defaults={"name": HOME_NAME})
    return int(home.pk)
