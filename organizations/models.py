"""Organizations: the league, bar chain or association that runs events, with its venues, its
staff (staff/models.py, through `scope_relation`) and its own audit chain. Every series and
event belongs to one; a laptop's deployment has one, made for it (`home_organization_id`)."""

from __future__ import annotations

from django.conf import settings
from django.db import models

from audit.chain import GENESIS
from audit.models import ChainedEntry
from staff.models import scope_relation


class Organization(models.Model):
    """A league, a bar chain, an association: its staff hold their roles in every series and
    event of it; the deployment's operator may cap and suspend it."""

    name = models.CharField(max_length=120)
    slug = models.SlugField(max_length=60, unique=True)
    created_by = models.ForeignKey(
        settings.AUTH_USER_MODEL, on_delete=models.SET_NULL, null=True, blank=True, related_name="+"
    )
    created_at = models.DateTimeField(auto_now_add=True)
    # The operator's controls (docs/decisions.md, "Organizations"): suspended, its House is
    # refused and its public pages stay; the events it may create a month, when not the
    # deployment's default (settings.ORGANIZATION_EVENTS_PER_MONTH).
    suspended_at = models.DateTimeField(null=True, blank=True)
    events_per_month = models.PositiveIntegerField(null=True, blank=True)
    staff = scope_relation("staff.Membership", "organization")
    staff_invitations = scope_relation("staff.Invitation", "organization")
    # The head of the organization's own audit chain, as a series keeps its own.
    audit_seq = models.PositiveIntegerField(default=0)
    audit_hash = models.CharField(max_length=64, default=GENESIS)

    class Meta:
        ordering = ["name", "id"]

    def __str__(self) -> str:
        return self.name

    @property
    def suspended(self) -> bool:
        return self.suspended_at is not None


class Venue(models.Model):
    """A place where an organization's events are played, in its time zone."""

    organization = models.ForeignKey(Organization, on_delete=models.PROTECT, related_name="venues")
    name = models.CharField(max_length=120)
    time_zone = models.CharField(max_length=64, default="UTC")
    created_at = models.DateTimeField(auto_now_add=True)

    class Meta:
        ordering = ["organization_id", "name", "id"]
        constraints = [
            models.UniqueConstraint(fields=["organization", "name"], name="one_venue_per_name"),
        ]

    def __str__(self) -> str:
        return self.name


class OrganizationAuditEntry(ChainedEntry):
    """An entry of an organization's audit chain: who made it, appointed whom, handed it over,
    added which venue. Append-only in the database, as an event's and a series' entries."""

    organization = models.ForeignKey(
        Organization, on_delete=models.PROTECT, related_name="audit_entries"
    )

    class Meta:
        ordering = ["organization_id", "seq"]
        constraints = [
            models.UniqueConstraint(
                fields=["organization", "seq"], name="one_organization_entry_per_seq"
            ),
        ]
        verbose_name_plural = "organization audit entries"
