"""The cash box as House sees it, live: what the ledger's lines add up to, beside the pool.

Expected cash in the box is cash in, less cash refunds and cash payouts. The ledger's figure for
the pool is the entry money the event holds (cash, card and online, less voids and refunds); the
difference with the pool is named: comped entries, participants with no entry line, House's
adjustments, and what is left over.
"""

from __future__ import annotations

from dataclasses import dataclass

from django.db.models import Sum

from audit.models import AuditEntry
from events.models import Event, Phase, RegistrationStatus
from events.play_rules import PARTICIPANTS
from events.reads.common import pool_summary
from ledger.lines import (
    CARD,
    CASH,
    COMP,
    ENTRY,
    LEDGER_ACTIONS,
    ONLINE,
    PAYOUT,
    REFUND,
    VOID,
    Line,
    accounts,
    lines_of,
)


@dataclass(frozen=True, slots=True)
class Difference:
    """One named part of the difference between the ledger's figure and the pool."""

    what: str
    amount: int


@dataclass(frozen=True, slots=True)
class CashBox:
    lines: int
    cash_in: int
    card_in: int
    online_in: int
    comps: int
    comped: int
    refunds_cash: int
    refunds_other: int
    payouts_cash: int
    payouts_other: int
    expected_cash: int
    ledger_pool: int
    sponsored: int
    pool: int
    pool_confirmed: bool
    difference: int
    differences: tuple[Difference, ...]
    awards: int
    paid_out: int
    owed: int
    reportable: tuple[str, ...]

    @property
    def collected(self) -> int:
        """The entry money the lines hold: paid in, less voids and refunds (comps take none)."""
        return self.ledger_pool - self.sponsored

    @property
    def refunds(self) -> int:
        return self.refunds_cash + self.refunds_other

    @property
    def payouts(self) -> int:
        return self.payouts_cash + self.payouts_other


def _sum(lines: list[Line], kind: str, *methods: str) -> int:
    return sum(
        line.amount
        for line in lines
        if line.kind == kind and (not methods or line.method in methods)
    )


def expected_cash(event: Event) -> int:
    """Cash in, less cash refunds and cash payouts, as the lines stand."""
    lines = lines_of(event)
    return (
        _sum(lines, ENTRY, CASH)
        - _sum(lines, VOID, CASH)
        - _sum(lines, REFUND, CASH)
        - _sum(lines, PAYOUT, CASH)
    )


def cash_box(event: Event, lines: list[Line] | None = None) -> CashBox:
    """The cash box of one event, from its ledger lines (read here unless given)."""
    lines = lines_of(event) if lines is None else lines
    by_method = {
        method: _sum(lines, ENTRY, method) - _sum(lines, VOID, method)
        for method in (CASH, CARD, ONLINE, COMP)
    }
    comped_lines = [line for line in lines if line.method == COMP]
    comps = sum(1 if line.kind == ENTRY else -1 for line in comped_lines)
    comped = sum(line.waived if line.kind == ENTRY else -line.waived for line in comped_lines)
    refunds_cash = _sum(lines, REFUND, CASH)
    refunds_other = _sum(lines, REFUND) - refunds_cash
    payouts_cash = _sum(lines, PAYOUT, CASH)
    payouts_other = _sum(lines, PAYOUT) - payouts_cash
    taken = by_method[CASH] + by_method[CARD] + by_method[ONLINE]
    ledger_pool = (
        taken - refunds_cash - refunds_other + (event.sponsored_pool if event.sponsored else 0)
    )
    summary = pool_summary(event)
    pool = summary.pool
    differences: list[Difference] = []
    if comped:
        differences.append(
            Difference(f"{comps} comped entr{'y' if comps == 1 else 'ies'}", -comped)
        )
    books = accounts(lines)
    participants = set(
        event.registrations.filter(status__in=PARTICIPANTS).values_list("label", flat=True)
    )
    unsettled = [label for label in participants if not (label in books and books[label].settled)]
    if unsettled and event.contribution:
        differences.append(
            Difference(
                f"{len(unsettled)} participant{'' if len(unsettled) == 1 else 's'} with no entry "
                "line",
                -event.contribution * len(unsettled),
            )
        )
    refunded = sum(
        line.amount for line in lines if line.kind == REFUND and line.player in participants
    )
    if refunded:
        differences.append(Difference("refunds to participants (withdrawals)", -refunded))
    kept = sum(account.held for label, account in books.items() if label not in participants)
    if kept:
        differences.append(Difference("entry money held for cancelled registrations", kept))
    adjusted = sum(a.amount for a in summary.adjustments)
    if adjusted:
        differences.append(Difference("House's adjustments to the pool", -adjusted))
    difference = ledger_pool - pool
    named = sum(part.amount for part in differences)
    if difference != named:
        differences.append(Difference("not explained by the lines", difference - named))
    finalized = event.phase == Phase.FINALIZED
    awards = (
        event.registrations.filter(award__gt=0)
        .exclude(status=RegistrationStatus.CANCELLED)
        .aggregate(total=Sum("award"))["total"]
        or 0
        if finalized
        else 0
    )
    paid_out = payouts_cash + payouts_other
    return CashBox(
        lines=len(lines),
        cash_in=by_method[CASH],
        card_in=by_method[CARD],
        online_in=by_method[ONLINE],
        comps=comps,
        comped=comped,
        refunds_cash=refunds_cash,
        refunds_other=refunds_other,
        payouts_cash=payouts_cash,
        payouts_other=payouts_other,
        expected_cash=by_method[CASH] - refunds_cash - payouts_cash,
        ledger_pool=ledger_pool,
        sponsored=event.sponsored_pool if event.sponsored else 0,
        pool=pool,
        pool_confirmed=summary.confirmed,
        difference=difference,
        differences=tuple(differences),
        awards=awards,
        paid_out=paid_out,
        owed=max(awards - paid_out, 0),
        reportable=tuple(dict.fromkeys(line.player for line in lines if line.reportable)),
    )


def has_lines(event: Event) -> bool:
    return AuditEntry.objects.filter(event=event, action__in=LEDGER_ACTIONS).exists()
