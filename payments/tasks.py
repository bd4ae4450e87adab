"""Celery tasks for payments: thin wrappers over payments.refunds and payments.services."""

from __future__ import annotations

from typing import Any

from celery import shared_task

from events import waitlist
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


def on_place_given_up(sender: Any, *, registration_id: int, why: str = "", **kwargs: Any) -> None:
    """A registration no longer holds a place (after the commit): its online entry, if any, is
    refunded where the event's refund policy allows, by a task (a slow Stripe holds no request)."""
    if refunds.paid_online(registration_id):
        refund_leaving.delay(registration_id, why)


def listen() -> None:
    """Hear the waitlist's `place_given_up` (events/waitlist.py), which names no payments, and
    the refunds owed (payments/refunds.py), which name no task."""
    waitlist.place_given_up.connect(on_place_given_up, dispatch_uid="payments-refund-on-leaving")
    refunds.refund_owed.connect(on_refund_owed, dispatch_uid="payments-refund-owed")


def on_refund_owed(sender: Any, *, session_pk: int, **kwargs: Any) -> None:
    """A refund is owed (after its commit): asked of Stripe by a task."""
    send_refund.delay(session_pk)
