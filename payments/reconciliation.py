"""The night report's "Online payments": each payment Stripe recorded for the event beside the
ledger's lines for it, and what does not match (ledger/report.py installs it as its reader)."""

from __future__ import annotations

from events.models import Event
from events.runner import SYSTEM
from ledger.lines import ENTRY, ONLINE, REFUND, Line
from ledger.report import OnlinePayment
from payments.models import CheckoutSession, PaymentState

# The states Stripe took money in, and those it gave the money back.
TAKEN = (PaymentState.PAID, PaymentState.REFUND_PENDING, PaymentState.REFUNDED)


def online_payments(event: Event, lines: list[Line]) -> tuple[OnlinePayment, ...]:
    """Every Checkout Session of the event that Stripe said was paid (and any online entry line
    with no payment behind it: House's own, or a mismatch), each with its lines and any
    mismatch."""
    sessions = list(
        CheckoutSession.objects.filter(event=event)
        .exclude(state=PaymentState.OPEN)
        .select_related("registration")
        .order_by("id")
    )
    entry_lines = {
        line.note: line for line in lines if line.kind == ENTRY and line.method == ONLINE
    }
    refund_lines = [line for line in lines if line.kind == REFUND and line.method == ONLINE]
    found: list[OnlinePayment] = []
    for row in sessions:
        pi = row.payment_intent
        entry = entry_lines.pop(pi, None) if pi else None
        refund = next((line for line in refund_lines if pi and pi in line.note), None)
        found.append(
            OnlinePayment(
                session=row.session_id,
                payment=pi,
                player=row.registration.label if row.registration else "",
                cents=row.amount,
                currency=row.currency,
                state=row.get_state_display(),
                why=row.why,
                entry_line=entry.seq if entry else None,
                refund_line=refund.seq if refund else None,
                problem=_problem(row.state, entry, refund),
            )
        )
    for reference, line in entry_lines.items():
        # House may record an entry paid online some other way, with its reference: that is
        # not Stripe's to confirm. A line the system wrote always has a Stripe payment behind it.
        by_house = line.actor != SYSTEM
        found.append(
            OnlinePayment(
                session="",
                payment=reference,
                player=line.player,
                cents=line.amount * 100,
                currency="",
                state="Recorded by House, not through Stripe"
                if by_house
                else "No Stripe payment on record",
                why="",
                entry_line=line.seq,
                refund_line=None,
                problem=""
                if by_house
                else "An online entry line with no payment Stripe confirmed.",
            )
        )
    return tuple(found)


def _problem(state: str, entry: Line | None, refund: Line | None) -> str:
    if state in TAKEN and entry is None:
        return "Stripe took the payment, but the ledger has no entry line for it."
    if state == PaymentState.REFUNDED and refund is None:
        return "Stripe refunded it, but the ledger has no refund line."
    if state not in TAKEN and entry is not None:
        return "The ledger has an entry line for a payment that was refused."
    if state == PaymentState.REFUSED:
        return "Refused: its refund is not confirmed by Stripe yet."
    return ""
