"""What each organization service answers: frozen dataclasses, as events.answers are (the API
derives its schema from them)."""

from __future__ import annotations

from dataclasses import dataclass

from events.answers import Answer


@dataclass(frozen=True)
class OrganizationCreated(Answer):
    """The new organization; its creator is its owner."""

    organization_id: int
    slug: str


@dataclass(frozen=True)
class VenueCreated(Answer):
    organization_id: int
    venue_id: int


ORGANIZATION_ANSWERS: tuple[type[Answer], ...] = (OrganizationCreated, VenueCreated)
