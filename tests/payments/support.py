"""An event that asks for its entry ahead, and its players' payments, for the payments' tests."""

from __future__ import annotations

from accounts.models import User
from events import services
from ledger.lines import Line, lines_of
from payments.checkout import checkout_start
from payments.models import CheckoutSession
from tests.factories import Table, make_table, make_user


def paying_table(*, refund_policy: str = "cancellations") -> Table:
    """A $10 event, registration open, that asks for the entry ahead."""
    table = make_table(contribution=10)
    services.event_update(
        event_id=table.event.pk,
        by=table.house,
        changes={"pay_ahead": True, "refund_policy": refund_policy},
    )
    table.refresh()
    return table


def registered(table: Table, name: str | None = None) -> tuple[User, int]:
    player = make_user(name)
    table.players.append(player)
    return player, table.register(player)


def checkout(player: User, registration_id: int) -> str:
    """The player starts paying: the Checkout Session's id."""
    return checkout_start(registration_id=registration_id, by=player).session_id


def entry_lines(table: Table) -> list[Line]:
    return [line for line in lines_of(table.event) if line.action == "entry_paid"]


def refund_lines(table: Table) -> list[Line]:
    return [line for line in lines_of(table.event) if line.action == "entry_refunded"]


def state(session_id: str) -> str:
    return CheckoutSession.objects.get(session_id=session_id).state
