"""What the accounts keep about a person (accounts/registry.py): the account itself, its email
addresses, its sessions, its groups and permissions, and the admin's log of what it changed."""

from __future__ import annotations

from typing import Any

from allauth.account.models import EmailAddress
from django.contrib.admin.models import LogEntry
from django.contrib.sessions.models import Session
from django.utils import timezone

from accounts.models import User
from accounts.registry import Erasure, Handler, Stage, register


def export(user: User) -> dict[str, Any]:
    return {
        "id": user.pk,
        "email": user.email,
        "display_name": user.display_name,
        "date_joined": user.date_joined.isoformat(),
        "last_login": user.last_login.isoformat() if user.last_login else None,
        "four_colour_deck": user.four_colour_deck,
        "language": user.language,
        "browser_language": user.browser_language,
        "email_addresses": [
            {"email": address.email, "verified": address.verified, "primary": address.primary}
            for address in EmailAddress.objects.filter(user=user).order_by("pk")
        ],
        "groups": sorted(user.groups.values_list("name", flat=True)),
        "admin_changes": LogEntry.objects.filter(user=user).count(),
    }


def erase(erasure: Erasure) -> None:
    """End the account's sessions; its addresses, groups, permissions and admin log go with the
    account row."""
    user_id = str(erasure.user.pk)
    sessions = [
        session.pk
        for session in Session.objects.filter(expire_date__gt=timezone.now())
        if session.get_decoded().get("_auth_user_id") == user_id
    ]
    Session.objects.filter(pk__in=sessions).delete()
    erasure.sessions = len(sessions)


register(
    Handler(
        name="account",
        models=(
            User,
            EmailAddress,
            LogEntry,
            User.groups.through,
            User.user_permissions.through,
        ),
        export=export,
        erase=erase,
        stage=Stage.FOLLOW,
    )
)
