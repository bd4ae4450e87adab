"""What the API's organization writes take (the bounds every way in shares: events/limits.py)."""

from __future__ import annotations

from events import limits
from events.request_bodies import Body, Text


class OrganizationCreate(Body):
    name = Text(max_length=limits.NAME_LENGTH)


class VenueCreate(Body):
    name = Text(max_length=limits.VENUE_LENGTH)
    time_zone_name = Text(
        default="UTC", max_length=limits.TIME_ZONE_LENGTH, help_text="The venue's IANA time zone."
    )
