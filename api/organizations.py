"""The REST API of organizations: an organizer makes one (rate limited per account), its owner
and directors add its venues; events are made in one through `POST /api/events/` with its
`organization_id`. Each endpoint calls one service (organizations.services)."""

from __future__ import annotations

from api.endpoints import ApiView, Section
from organizations import request_bodies as body
from organizations import services

ORGANIZATIONS = Section(["Organizations"])


class OrganizationList(ApiView):
    post = ORGANIZATIONS.write(
        services.organization_create,
        summary="Make an organization (any signed-in user)",
        description="Its maker becomes its owner. A few a day per account "
        "(409 organization_limit_reached).",
        body=body.OrganizationCreate,
        status=201,
    )


class Venues(ApiView):
    post = ORGANIZATIONS.write(
        services.venue_create,
        summary="Add a venue to an organization (its owner or a director)",
        body=body.VenueCreate,
        status=201,
    )
