"""The organization as the scope above series and events: its staff hold their roles in each of
its series and events, and a change of the organization itself (its staff, its venues) runs
through the engine's runner as a series' does: the organization locked, its staff's roles
guarded, its own audit chained. Installed with `events.runner.use_scope_above`."""

from __future__ import annotations

from datetime import datetime
from typing import Any

from django.db.models import Model, QuerySet

from accounts import revocation
from accounts.models import User
from audit.writer import PendingEntry, chain
from events.models import Event
from events.runner import Change
from organizations.models import Organization, OrganizationAuditEntry


class OrganizationScope:
    """An organization, the roles its staff hold, and its audit chain
    (`events.runner.ScopeAbove`)."""

    noun = "organization"
    rank = 2

    @property
    def model(self) -> type[Organization]:
        return Organization

    def exists(self, scope_id: int) -> bool:
        return Organization.objects.filter(pk=scope_id).exists()

    def of_event(self, event_id: int) -> Organization | None:
        return Organization.objects.filter(events=event_id).first()

    def place(self, event: Event, scope_id: int) -> None:
        Event.objects.filter(pk=event.pk).update(organization_id=scope_id)

    def containing(self, model: type[Model], scope_id: int) -> QuerySet[Any, Any]:
        """The organization an event, a series or an organization is in, as a column of ids."""
        if model is Organization:
            return Organization.objects.filter(pk=scope_id).values("pk")
        return model._default_manager.filter(pk=scope_id).values("organization_id")

    def events(self, scope_id: int) -> QuerySet[Any, Any]:
        return Event.objects.filter(organization_id=scope_id).values("pk")

    def refused(self, model: type[Model], scope_id: int) -> QuerySet[Any, Any]:
        """The suspended organization holding it: its House is refused, its public pages kept."""
        return Organization.objects.filter(
            pk__in=self.containing(model, scope_id), suspended_at__isnull=False
        ).values("pk")

    def lock(self, scope_id: int) -> Organization | None:
        """An organization is locked before any series or event of it, no key update."""
        return Organization.objects.select_for_update(no_key=True).filter(pk=scope_id).first()

    def record(self, scope: Any, entries: list[PendingEntry], moment: datetime) -> None:
        organization: Organization = scope
        rows = chain(
            organization,
            entries,
            moment,
            model=OrganizationAuditEntry,
            owner_field="organization",
        )
        OrganizationAuditEntry.objects.bulk_create(rows)
        Organization.objects.filter(pk=organization.pk).update(
            audit_seq=organization.audit_seq, audit_hash=organization.audit_hash
        )

    def member_left(
        self, change: Change, member: User, scope_id: int, leaving_as: str | None
    ) -> None:
        """Their roles in the organization's series and events went with the membership (they
        are read through it); their open sockets check their access after the commit."""
        change.after_commit(lambda: revocation.revoke(member.pk))

    def shown_event(self, scope_id: int) -> Event | None:
        return None  # an organization has no display links of its own
