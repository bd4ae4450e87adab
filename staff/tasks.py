"""Celery tasks of the staff layer: thin wrappers over the functions that do the work."""

from __future__ import annotations

from celery import shared_task

from staff import invitations


@shared_task(ignore_result=True)
def send_staff_invitation(invitation_id: int) -> bool:
    """After an invitation to a staff commits (staff/invitations.py)."""
    return invitations.send_invitation(invitation_id)
