"""Celery tasks for payments: thin wrappers over payments.refunds and payments.services."""

from __future__ import annotations

from celery import shared_task

from payments import refunds


@shared_task(acks_late=True, ignore_result=True)
def send_refund(session_pk: int) -> bool:
    """Ask Stripe for one refund owed (after the commit that made it owed)."""
    return refunds.send(session_pk)


@shared_task(acks_late=True, ignore_result=True)
def send_refunds() -> int:
    """The beat's sweep: every refund owed that Stripe has not taken yet is asked again."""
    return sum(refunds.send(pk) for pk in refunds.owed_unsent())


@shared_task(acks_late=True, ignore_result=True)
def refund_leaving(registration_id: int, why: str) -> bool:
    """A player who paid online gave up their place: the refund, where the policy allows it."""
    from payments.services import online_refund_request

    return online_refund_request(registration_id=registration_id, why=why, by=None).requested
