"""Invitations to a series' staff: their link, and the email that carries it after the commit
(as an event's: events/invitations.py)."""

from __future__ import annotations

from django.urls import reverse

from events.invitations import email_invitation, is_expired, link_on_site
from seasons.models import SeriesStaffInvitation


def series_invitation_link(token: str) -> str:
    return link_on_site(reverse("seasons:series_invitation", kwargs={"token": token}))


def send_series_invitation(invitation_id: int) -> bool:
    """Email a pending invitation to its address; False when it is gone or already accepted."""
    invitation = (
        SeriesStaffInvitation.objects.select_related("series", "invited_by")
        .filter(pk=invitation_id, accepted_at__isnull=True)
        .first()
    )
    if invitation is None or is_expired(invitation.created_at):
        return False
    series = invitation.series
    email_invitation(
        to=invitation.email,
        inviter=invitation.invited_by,
        what=f"the events of {series.name}" + (f" at {series.venue}" if series.venue else ""),
        name=series.name,
        role=invitation.role,
        link=series_invitation_link(invitation.token),
    )
    return True
