"""The deployment operator's controls over an organization (site staff, through Django admin and
`manage.py organizations`): suspend it, resume it, cap the events it makes a month. Its staff's
open sockets check their access again after the commit."""

from __future__ import annotations

from django.db import transaction
from django.utils import timezone

from accounts import revocation
from organizations.models import Organization
from staff.models import Membership


def _locked(slug: str) -> Organization:
    return Organization.objects.select_for_update(no_key=True).get(slug=slug)


def _tell_staff(organization: Organization) -> None:
    members = list(Membership.objects.of(organization).values_list("user_id", flat=True))

    def tell() -> None:
        for user_id in members:
            revocation.revoke(user_id)

    transaction.on_commit(tell)


def suspend(*, slug: str) -> None:
    """Its House pages, API and sockets are refused; its public pages stay."""
    with transaction.atomic(durable=True):
        organization = _locked(slug)
        if organization.suspended_at is None:
            organization.suspended_at = timezone.now()
            organization.save(update_fields=["suspended_at"])
            _tell_staff(organization)


def resume(*, slug: str) -> None:
    with transaction.atomic(durable=True):
        organization = _locked(slug)
        if organization.suspended_at is not None:
            organization.suspended_at = None
            organization.save(update_fields=["suspended_at"])


def cap(*, slug: str, events_per_month: int | None) -> None:
    """Its own monthly cap on new events; None: the deployment's default."""
    with transaction.atomic(durable=True):
        organization = _locked(slug)
        organization.events_per_month = events_per_month
        organization.save(update_fields=["events_per_month"])
