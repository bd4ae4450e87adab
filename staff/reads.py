"""What the pages and the API read of a scope's staff (an event's, a series'): its members with
their roles, the invitations not yet accepted, and the invitation a link names."""

from __future__ import annotations

import datetime
from dataclasses import dataclass

from django.db.models import Model

from accounts.models import User
from staff.invitations import invitation_link, is_expired
from staff.models import Invitation, Membership
from staff.roles import Role, order


@dataclass(frozen=True, slots=True)
class Member:
    """A member of a scope's staff and their role (staff/roles.py)."""

    user: User
    role: str


def members(scope: Model) -> list[Member]:
    """The scope's staff, the owner first, then by role and name."""
    rows = Membership.objects.of(scope).select_related("user")
    return sorted(
        (Member(row.user, row.role) for row in rows),
        key=lambda m: (order(m.role), m.user.display_name.casefold(), m.user.pk),
    )


def owner(scope: Model) -> User | None:
    held = Membership.objects.of(scope).filter(role=Role.OWNER).select_related("user").first()
    return None if held is None else held.user


@dataclass(frozen=True, slots=True)
class PendingInvitation:
    pk: int
    email: str
    role: str
    created_at: datetime.datetime
    link: str


def pending_invitations(scope: Model) -> list[PendingInvitation]:
    """The scope's invitations not yet accepted nor expired, newest first, each with its link."""
    rows = Invitation.objects.of(scope).filter(accepted_at__isnull=True)
    return [
        PendingInvitation(row.pk, row.email, row.role, row.created_at, invitation_link(row))
        for row in rows.order_by("-created_at", "-pk")
        if not is_expired(row.created_at)
    ]


def invitation(token: str) -> Invitation | None:
    """The invitation a link names (accepted or not)."""
    if not token or len(token) > 64:
        return None
    return Invitation.objects.select_related("invited_by").filter(token=token).first()
