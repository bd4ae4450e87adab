"""What the organizations keep about a person (accounts/registry.py): the organizations they
made. Their roles in an organization's staff are the staff layer's (staff/personal_data.py)."""

from __future__ import annotations

from typing import Any

from accounts.models import User
from accounts.registry import Erasure, Handler, register
from organizations.models import Organization


def export_organizations_made(user: User) -> list[dict[str, Any]]:
    return [
        {"id": row.pk, "name": row.name, "created_at": row.created_at.isoformat()}
        for row in Organization.objects.filter(created_by=user).order_by("pk")
    ]


def forget_organizations_made(erasure: Erasure) -> None:
    """An organization stays its staff's: it only loses who made it."""
    Organization.objects.filter(created_by=erasure.user).update(created_by=None)


register(
    Handler(
        name="organizations_made",
        models=(Organization,),
        export=export_organizations_made,
        erase=forget_organizations_made,
    )
)
