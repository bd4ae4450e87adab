"""The ledger's lines: the audit entries that moved money, read back from the event's chain.

A ledger line is an audit entry and nothing else (docs/decisions.md, "The ledger"): the chain is
the one record of the night's money, and every export carries it. The lines are

- `entry_paid`: an entry paid in cash, by card at the door, online (with its reference), or
  comped (with a reason: no money moves, `waived` says how much was not taken);
- `payment_marked`: House's one-tap paid flag (events/check_in.py), cash at the table: marked
  paid takes the contribution in cash, marked not paid takes back the player's last entry line
  (a mistaken mark, not a refund: the money never changed hands);
- `entry_refunded`: money given back for a cancelled entry or a withdrawal, under the event's
  refund policy;
- `payout_made`: part or all of an award handed over (method, who handed it, whether the winner
  signed the printed sheet, whether it is reportable winnings);
- `sponsor_paid`: a free-entry event's sponsor money received, in cash or by transfer, toward the
  sponsored pool (no player: the line is the sponsor's).

Each line's details are one typed, versioned record (audit/money_lines.py), written by the
services through `to_details()` and read back here through `from_entry()`: a line that cannot
be read is refused with `UnreadableLedgerLine`, never read with a default (docs/audit.md).
"""

from __future__ import annotations

from dataclasses import dataclass
from functools import partial
from typing import ClassVar

from django.utils.translation import gettext as _
from django.utils.translation import gettext_lazy

from audit.models import AuditEntry
from audit.money_lines import (
    CARD,
    CASH,
    COMP,
    ENTRY_METHODS,
    ENTRY_PAID,
    ENTRY_REFUNDED,
    ONLINE,
    PAYMENT_MARKED,
    PAYOUT_MADE,
    PAYOUT_METHODS,
    REFUND_METHODS,
    SPONSOR_METHODS,
    SPONSOR_PAID,
    TRANSFER,
    EntryPaid,
    EntryRefunded,
    MoneyLine,
    PaymentMarked,
    PayoutMade,
    SponsorPaid,
    UnreadableLine,
    read_line,
)
from events.errors import DomainError
from events.models import Event

# Each line's details are a typed record (audit/money_lines.py): written and read through it.
__all__ = [
    "CARD",
    "CASH",
    "COMP",
    "ENTRY_METHODS",
    "ENTRY_PAID",
    "ENTRY_REFUNDED",
    "ONLINE",
    "PAYMENT_MARKED",
    "PAYOUT_MADE",
    "PAYOUT_METHODS",
    "REFUND_METHODS",
    "SPONSOR_METHODS",
    "SPONSOR_PAID",
    "TRANSFER",
    "EntryPaid",
    "EntryRefunded",
    "PaymentMarked",
    "PayoutMade",
    "SponsorPaid",
]

LEDGER_ACTIONS = (ENTRY_PAID, PAYMENT_MARKED, ENTRY_REFUNDED, PAYOUT_MADE, SPONSOR_PAID)
# A deleted account's registration takes a neutral label (privacy/services.py).
RELABELLED = "player_relabelled"


class UnreadableLedgerLine(DomainError):
    """A line of the event's chain that cannot be read as its record: the cash box, the night
    report, the CSV and the API refuse to add up money they cannot read, rather than guess."""

    code: ClassVar[str] = "unreadable_ledger_line"
    status: ClassVar[int] = 500
    default_message = gettext_lazy("A line of the event's ledger cannot be read.")


# What a line is, in the cash box and the night report.
ENTRY = "entry"
VOID = "void"
REFUND = "refund"
PAYOUT = "payout"
SPONSOR = "sponsor"
# The kinds that bring money in; the others take it back or pay it out.
MONEY_IN = (ENTRY, SPONSOR)


@dataclass(frozen=True, slots=True)
class Line:
    """One ledger line. `amount` is the dollars that moved (0 for a comp), always positive or 0;
    `kind` says which way: an entry's or a sponsor's dollars come in, a void's, a refund's or a
    payout's go out."""

    seq: int
    at: str
    actor: str
    action: str
    player: str
    kind: str
    method: str
    amount: int
    note: str = ""
    waived: int = 0
    handed_by: str = ""
    acknowledged: bool = False
    reportable: bool = False

    @property
    def signed(self) -> int:
        """What the line does to the money the event holds: in is positive, out is negative."""
        return self.amount if self.kind in MONEY_IN else -self.amount


def lines_of(event: Event) -> list[Line]:
    """The event's ledger lines in chain order."""
    rows = list(
        AuditEntry.objects.filter(event=event, action__in=(*LEDGER_ACTIONS, RELABELLED))
        .order_by("seq")
        .values_list("seq", "at", "actor", "action", "player", "details", "reason")
    )
    # A deleted account's registration took a neutral label: its lines, before the relabelling,
    # follow it (from the last line back; a later line naming the old label is another
    # registration's, in a chain written before a label once left was kept from later ones).
    final: dict[str, str] = {}
    labels: list[str] = []
    for _seq, _at, _actor, action_, player, details, _reason in reversed(rows):
        if action_ == RELABELLED and player:
            final[player] = final.get(details["label"], details["label"])
        labels.append(final.get(player or "", player or ""))
    labels.reverse()
    lines: list[Line] = []
    last_entry: dict[str, Line] = {}
    for (seq, at, actor, action_, _who, details, reason), label in zip(rows, labels, strict=True):
        if action_ == RELABELLED:
            continue
        line = _line(seq, at, actor, action_, label, details, reason or "", last_entry)
        if line is None:
            continue
        if line.kind == ENTRY:
            last_entry[line.player] = line
        elif line.kind == VOID:
            last_entry.pop(line.player, None)
        lines.append(line)
    return lines


def line_after(
    lines: list[Line], player: str, record: MoneyLine, *, reason: str = ""
) -> Line | None:
    """The line `record` makes when written after `lines` (None for a mark of not paid with no
    entry line to take back), read back through its details as `lines_of` would read it."""
    last_entry: dict[str, Line] = {}
    for line in lines:
        if line.kind == ENTRY:
            last_entry[line.player] = line
        elif line.kind == VOID:
            last_entry.pop(line.player, None)
    seq = lines[-1].seq + 1 if lines else 1
    return _line(seq, "", "", record.action, player, record.to_details(), reason, last_entry)


def _line(
    seq: int,
    at: str,
    actor: str,
    action: str,
    player: str,
    details: object,
    reason: str,
    last_entry: dict[str, Line],
) -> Line | None:
    try:
        record = read_line(action, details)
    except UnreadableLine as problem:
        raise UnreadableLedgerLine(
            _(
                "Audit entry seq %(seq)s (%(action)s) cannot be read as a ledger line: "
                "%(problem)s The ledger adds up no money from a line it cannot read."
            )
            % {"seq": seq, "action": action, "problem": problem}
        ) from None
    line = partial(Line, seq, at, actor, action, player)
    if isinstance(record, PaymentMarked):
        if record.paid:
            return line(kind=ENTRY, method=CASH, amount=record.amount, note="marked paid")
        voided = last_entry.get(player)
        if voided is None:
            return None
        return line(
            kind=VOID,
            method=voided.method,
            amount=voided.amount,
            note="marked not paid",
            waived=voided.waived,
        )
    if isinstance(record, EntryPaid):
        return line(
            kind=ENTRY,
            method=record.method,
            amount=record.amount,
            note=reason if record.method == COMP else record.reference,
            waived=record.waived,
        )
    if isinstance(record, SponsorPaid):
        return line(kind=SPONSOR, method=record.method, amount=record.amount, note=record.reference)
    if isinstance(record, EntryRefunded):
        return line(
            kind=REFUND,
            method=record.method,
            amount=record.amount,
            note=f"{record.grounds}: {reason}" if reason else record.grounds,
        )
    return line(
        kind=PAYOUT,
        method=record.method,
        amount=record.amount,
        handed_by=record.handed_by,
        acknowledged=record.acknowledged,
        reportable=record.reportable,
    )


@dataclass(frozen=True, slots=True)
class Account:
    """One player's money so far: entry dollars held (paid, less voids and refunds), whether the
    entry is settled (paid or comped) and by a comp, the dollars refunded since the last entry
    line (money that changed hands: that entry is no longer a mistaken mark to void), and the
    award dollars handed over."""

    held: int = 0
    settled: bool = False
    comped: bool = False
    refunded: int = 0
    paid_out: int = 0


def accounts(lines: list[Line]) -> dict[str, Account]:
    """Each player's account, from the lines."""
    held: dict[str, int] = {}
    settled: dict[str, bool] = {}
    comped: dict[str, bool] = {}
    refunded: dict[str, int] = {}
    paid_out: dict[str, int] = {}
    for line in lines:
        if line.kind == ENTRY:
            held[line.player] = held.get(line.player, 0) + line.amount
            settled[line.player] = True
            comped[line.player] = line.method == COMP
            refunded[line.player] = 0
        elif line.kind == VOID:
            held[line.player] = held.get(line.player, 0) - line.amount
            settled[line.player] = comped[line.player] = False
        elif line.kind == REFUND:
            held[line.player] = held.get(line.player, 0) - line.amount
            refunded[line.player] = refunded.get(line.player, 0) + line.amount
        elif line.kind == PAYOUT:
            paid_out[line.player] = paid_out.get(line.player, 0) + line.amount
    players = held.keys() | paid_out.keys()
    return {
        player: Account(
            held=held.get(player, 0),
            settled=settled.get(player, False),
            comped=comped.get(player, False),
            refunded=refunded.get(player, 0),
            paid_out=paid_out.get(player, 0),
        )
        for player in players
    }
