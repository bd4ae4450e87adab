"""What the staff layer keeps about a person (accounts/registry.py): their roles in the staff of
events and series, the invitations to a staff they sent or that were sent to their address, and
the display links they made or revoked. Each row names its scope as `scope` (`event` or
`series`) and `id`, with the scope's name."""

from __future__ import annotations

from typing import Any

from django.db.models import Q

from accounts.models import User
from accounts.registry import Erasure, Handler, nothing, register
from staff.models import DisplayLink, Invitation, Membership, Scoped


def _scope(row: Scoped) -> dict[str, Any]:
    return {"scope": row.scope_type.model, "id": row.scope_id, "name": str(row.scope or "")}


def export_staff_roles(user: User) -> list[dict[str, Any]]:
    rows = Membership.objects.filter(user=user).select_related("scope_type")
    return [
        {**_scope(row), "role": row.role}
        for row in rows.prefetch_related("scope").order_by("scope_type__model", "scope_id")
    ]


def export_invitations(user: User) -> list[dict[str, Any]]:
    """The invitations to a staff the account sent, and those sent to its address."""
    rows = Invitation.objects.filter(Q(invited_by=user) | Q(email__iexact=user.email))
    return [
        {
            **_scope(invitation),
            "email": invitation.email,
            "role": invitation.role,
            "sent_by_you": invitation.invited_by_id == user.pk,
            "created_at": invitation.created_at.isoformat(),
            "accepted_at": invitation.accepted_at.isoformat() if invitation.accepted_at else None,
        }
        for invitation in rows.select_related("scope_type").prefetch_related("scope").order_by("pk")
    ]


def forget_invitations(erasure: Erasure) -> None:
    """The invitations the account sent lose their sender; those it accepted (done with, and
    holding its address) go. One still open to its address stays House's, for whoever holds the
    address (docs/decisions.md, "One owner for players' data")."""
    user = erasure.user
    Invitation.objects.filter(invited_by=user).update(invited_by=None)
    Invitation.objects.filter(email__iexact=user.email, accepted_at__isnull=False).delete()


def export_display_links(user: User) -> list[dict[str, Any]]:
    """The display links the account made or revoked (never their token: only its hash is kept)."""
    rows = DisplayLink.objects.filter(Q(created_by=user) | Q(revoked_by=user))
    return [
        {
            **_scope(link),
            "label": link.label,
            "made_by_you": link.created_by_id == user.pk,
            "revoked_by_you": link.revoked_by_id == user.pk,
            "created_at": link.created_at.isoformat(),
            "revoked_at": link.revoked_at.isoformat() if link.revoked_at else None,
        }
        for link in rows.select_related("scope_type").prefetch_related("scope").order_by("pk")
    ]


def forget_display_links(erasure: Erasure) -> None:
    DisplayLink.objects.filter(created_by=erasure.user).update(created_by=None)
    DisplayLink.objects.filter(revoked_by=erasure.user).update(revoked_by=None)


register(
    Handler(name="staff_roles", models=(Membership,), export=export_staff_roles, erase=nothing)
)
register(
    Handler(
        name="staff_invitations",
        models=(Invitation,),
        export=export_invitations,
        erase=forget_invitations,
    )
)
register(
    Handler(
        name="display_links",
        models=(DisplayLink,),
        export=export_display_links,
        erase=forget_display_links,
    )
)
