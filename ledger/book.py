"""The one writer of the ledger's lines and of the `paid` flag they settle.

`write_line` puts a money line in the change's audit and sets the registration's `paid` flag from
what the lines then say: the entry is settled by an entry line not taken back, and either comped
or with money still held (a refund in full unsettles it). No other code writes `paid`
(docs/decisions.md, "The ledger alone sets paid"; tests/ledger/test_paid_writer.py holds that).
"""

from __future__ import annotations

from audit.money_lines import MoneyLine
from events.models import Registration
from events.runner import Change
from ledger.lines import Account, accounts, line_after, lines_of


def settled(account: Account) -> bool:
    """Whether the lines settle the entry: `Registration.paid`."""
    return account.settled and (account.comped or account.held > 0)


def write_line(
    change: Change, registration: Registration, record: MoneyLine, *, reason: str | None = None
) -> Account:
    """Write `record` as the registration's next line of the event's ledger and set its `paid`
    flag from the lines with it; the player's account after the line.

    One line per change: the lines already in the event's chain, then this one (a line still
    waiting in the same change would not be read)."""
    lines = lines_of(change.event)
    added = line_after(lines, registration.label, record, reason=reason or "")
    account = accounts([*lines, *([added] if added is not None else [])]).get(
        registration.label, Account()
    )
    change.audit(
        record.action, player=registration.label, details=record.to_details(), reason=reason
    )
    paid = settled(account)
    if registration.paid != paid:
        registration.paid = paid
        registration.save(update_fields=["paid"])
    change.know(registration)
    return account
