"""Invitations to an event's staff: the link an invitation is accepted at, and its email.

The invitation keeps the email and a random token (events.models.StaffInvitation); the email
carries the link, and House's settings page shows the same link to hand over where no mail goes
(a venue laptop sends none: docs/decisions.md, "Roles")."""

from __future__ import annotations

from django.conf import settings
from django.core.mail import send_mail
from django.urls import reverse

from events.models import StaffInvitation
from events.staff import Role


def invitation_path(token: str) -> str:
    return reverse("house:invitation", kwargs={"token": token})


def invitation_link(token: str) -> str:
    """The invitation's address on this site (`SITE_URL`)."""
    return str(settings.SITE_URL).rstrip("/") + invitation_path(token)


def send_invitation(invitation_id: int) -> bool:
    """Email a pending invitation to its address; False when it is gone or already accepted."""
    invitation = (
        StaffInvitation.objects.select_related("event", "invited_by")
        .filter(pk=invitation_id, accepted_at__isnull=True)
        .first()
    )
    if invitation is None:
        return False
    event = invitation.event
    inviter = invitation.invited_by.display_name if invitation.invited_by else "House"
    role = Role(invitation.role).label.lower()
    send_mail(
        subject=f"Join the staff of {event.name} as {role}",
        message=(
            f"{inviter} invites you to run {event.name} ({event.date:%A %d %B %Y}) as {role}.\n\n"
            f"Sign in with this email address and accept the invitation here:\n"
            f"{invitation_link(invitation.token)}\n\n"
            "If you did not expect this, ignore this email: nothing happens until you accept.\n"
        ),
        from_email=None,
        recipient_list=[invitation.email],
    )
    return True
