"""An organization's own changes: an organizer makes one (and owns it), its owner and directors
add its venues. Each runs through the engine's runner as a series' changes do: the organization
locked, the actor's role guarded by the one table (staff/roles.py), the entry chained in the
organization's own audit. Its staff are changed by the staff's one set of changes
(events/staffing.py), named by `Scope.of(organization)`."""

from __future__ import annotations

import datetime
import zoneinfo
from collections.abc import Mapping, Sequence
from typing import Any

from django.conf import settings
from django.utils.text import slugify
from django.utils.translation import gettext as _

from accounts.models import User
from events.errors import EventCapReached, Invalid, NotAllowed, OrganizationLimitReached
from events.limits import NAME_LENGTH, TIME_ZONE_LENGTH, VENUE_LENGTH, check_text
from events.runner import Change, action
from organizations import answers
from organizations.models import Organization, Venue
from staff.roles import Role

# How far back an organizer's new organizations count against the day's limit.
WINDOW = datetime.timedelta(days=1)


def _the_organization(arguments: Mapping[str, Any]) -> Sequence[int]:
    value = arguments.get("organization_id")
    return [value] if isinstance(value, int) and not isinstance(value, bool) else [0]


def _name(value: object, label: str, needed: str, length: int) -> str:
    name = check_text(value, label=label, max_length=length)
    if not name:
        raise Invalid(needed % {"length": length})
    return name


def time_zone(value: object) -> str:
    """An IANA time zone name, or the refusal."""
    zone = check_text(value or "", label=_("The time zone"), max_length=TIME_ZONE_LENGTH) or "UTC"
    try:
        zoneinfo.ZoneInfo(zone)
    except (zoneinfo.ZoneInfoNotFoundError, ValueError):
        raise Invalid(_("Unknown time zone %(time_zone)s.") % {"time_zone": repr(zone)}) from None
    return zone


def _slug(name: str) -> str:
    """A slug from the name, free among the organizations (the operator's command names it)."""
    base = slugify(name)[:50] or "organization"
    slug, n = base, 1
    while Organization.objects.filter(slug=slug).exists():
        n += 1
        slug = f"{base}-{n}"
    return slug


@action("organization_create", creates_scope=True, scope_model=Organization)
def organization_create(
    change: Change,
    *,
    by: User,
    name: str,
    idempotency_key: str | None = None,
) -> answers.OrganizationCreated:
    """A signed-in organizer makes an organization and becomes its owner; a few a day at most
    (`ORGANIZATIONS_PER_USER_PER_DAY`), counted under their account's row lock so that
    creations sent at once are counted in turn."""
    if not by.is_authenticated or not by.is_active:
        raise NotAllowed(_("Sign in to make an organization."))
    clean = _name(
        name,
        _("The organization's name"),
        _("An organization needs a name of 1 to %(length)s characters."),
        NAME_LENGTH,
    )
    User.objects.select_for_update(no_key=True).filter(pk=by.pk).exists()
    limit = settings.ORGANIZATIONS_PER_USER_PER_DAY
    made = Organization.objects.filter(created_by=by, created_at__gt=change.now - WINDOW).count()
    if limit and made >= limit:
        raise OrganizationLimitReached()
    organization = Organization.objects.create(name=clean, slug=_slug(clean), created_by=by)
    organization.staff.create(user=by, role=Role.OWNER)
    change.scope = organization
    change.act_as(Role.OWNER)
    change.audit("organization_created", details={"name": organization.name})
    change.audit("house_member_added", details={"member": by.display_name, "role": Role.OWNER})
    return answers.OrganizationCreated(organization_id=organization.pk, slug=organization.slug)


@action(
    "venue_create",
    above_of=_the_organization,
    scope_model=Organization,
    missing="organization",
)
def venue_create(
    change: Change,
    *,
    organization_id: int,
    by: User,
    name: str,
    time_zone_name: str = "UTC",
    idempotency_key: str | None = None,
) -> answers.VenueCreated:
    """The organization's owner or a director adds a venue, in its time zone."""
    change.require_house()
    clean = _name(
        name,
        _("The venue"),
        _("A venue needs a name of 1 to %(length)s characters."),
        VENUE_LENGTH,
    )
    zone = time_zone(time_zone_name)
    organization: Organization = change.scope
    if organization.venues.filter(name=clean).exists():
        raise Invalid(_("This organization already has a venue of that name."))
    venue = Venue.objects.create(organization=organization, name=clean, time_zone=zone)
    change.audit("venue_added", details={"venue": venue.pk, "name": clean, "time_zone": zone})
    return answers.VenueCreated(organization_id=organization.pk, venue_id=venue.pk)


def month_start(moment: datetime.datetime) -> datetime.datetime:
    return moment.replace(day=1, hour=0, minute=0, second=0, microsecond=0)


def refuse_past_cap(organization: Organization, now: datetime.datetime) -> None:
    """The operator's cap on the events an organization makes in a calendar month (its own, else
    the deployment's `ORGANIZATION_EVENTS_PER_MONTH`; 0: none). The caller holds its lock."""
    cap = organization.events_per_month
    if cap is None:
        cap = settings.ORGANIZATION_EVENTS_PER_MONTH
    if not cap:
        return
    made = organization.events.filter(created_at__gte=month_start(now)).count()
    if made >= cap:
        raise EventCapReached()
