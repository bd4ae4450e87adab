"""Celery tasks of the seasons app: thin wrappers over the functions that do the work."""

from __future__ import annotations

from celery import shared_task

from seasons import invitations


@shared_task(ignore_result=True)
def send_series_staff_invitation(invitation_id: int) -> bool:
    """After `series_staff_invite` commits (seasons/invitations.py)."""
    return invitations.send_series_invitation(invitation_id)
