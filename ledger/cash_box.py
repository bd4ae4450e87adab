"""The cash box as House sees it, live: what the ledger's lines add up to, beside the pool.

Expected cash in the box is cash in (entries and a sponsor's money), less cash refunds and cash
payouts: what the box holds, to the dollar, and never below $0 without House being told. The
ledger's figure for the pool is the entry money the event holds (cash, card and online, less voids
and refunds) with the sponsor's money received; the difference with the pool is named: comped
entries, participants with no entry line, sponsor's money not yet recorded, House's adjustments,
and what is left over. Collected is the entry money held: a comp collects nothing and is counted
apart.
"""

from __future__ import annotations

from dataclasses import dataclass

from django.db.models import Sum
from django.utils.translation import gettext as _
from django.utils.translation import ngettext

from audit.models import AuditEntry
from audit.money_lines import PaymentMarked
from events.check_in import EntryMoney
from events.models import Event, Phase, Registration, RegistrationStatus
from events.play_rules import PARTICIPANTS
from events.reads.common import pool_summary
from events.runner import Change
from ledger.book import write_line
from ledger.lines import (
    CARD,
    CASH,
    COMP,
    ENTRY,
    LEDGER_ACTIONS,
    ONLINE,
    PAYOUT,
    REFUND,
    SPONSOR,
    VOID,
    Account,
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
    # Players whose entry is settled with money still held (not a comp, not refunded in full), so
    # "paid" never counts a comp.
    entries_paid: int
    # The players whose entry is settled by a comp.
    comped_players: tuple[str, ...]
    refunds_cash: int
    refunds_other: int
    payouts_cash: int
    payouts_other: int
    expected_cash: int
    ledger_pool: int
    sponsored: int
    sponsor_cash: int
    sponsor_other: int
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
        return self.cash_in + self.card_in + self.online_in - self.refunds

    @property
    def sponsor_in(self) -> int:
        """The sponsor's money received, in cash or by transfer."""
        return self.sponsor_cash + self.sponsor_other

    @property
    def short(self) -> bool:
        """More cash went out than came in: the box cannot hold what the lines say."""
        return self.expected_cash < 0

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


def cash_of(lines: list[Line]) -> int:
    """What the box holds: every cash line's signed dollars (in: entries and a sponsor's money;
    out: voids, refunds and payouts)."""
    return sum(line.signed for line in lines if line.method == CASH)


def collected_of(lines: list[Line]) -> int:
    """The entry money the lines hold: entries paid in, less voids and refunds; a comp's line
    brings $0, so a comp is never collected."""
    return sum(line.signed for line in lines if line.kind in (ENTRY, VOID, REFUND))


def expected_cash(event: Event) -> int:
    """Cash in, less cash refunds and cash payouts, as the lines stand."""
    return cash_of(lines_of(event))


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
    sponsor_cash = _sum(lines, SPONSOR, CASH)
    sponsor_other = _sum(lines, SPONSOR) - sponsor_cash
    sponsored = event.sponsored_pool if event.sponsored else 0
    ledger_pool = taken - refunds_cash - refunds_other + sponsor_cash + sponsor_other
    summary = pool_summary(event)
    pool = summary.pool
    differences: list[Difference] = []
    if comped:
        differences.append(
            Difference(
                ngettext("%(count)s comped entry", "%(count)s comped entries", comps)
                % {"count": comps},
                -comped,
            )
        )
    if sponsor_cash + sponsor_other != sponsored:
        differences.append(
            Difference(
                _("sponsor's money not yet recorded"), sponsor_cash + sponsor_other - sponsored
            )
        )
    books = accounts(lines)
    participants = set(
        event.registrations.filter(status__in=PARTICIPANTS).values_list("label", flat=True)
    )
    unsettled = [label for label in participants if not (label in books and books[label].settled)]
    if unsettled and event.contribution:
        differences.append(
            Difference(
                ngettext(
                    "%(count)s participant with no entry line",
                    "%(count)s participants with no entry line",
                    len(unsettled),
                )
                % {"count": len(unsettled)},
                -event.contribution * len(unsettled),
            )
        )
    refunded = sum(
        line.amount for line in lines if line.kind == REFUND and line.player in participants
    )
    if refunded:
        differences.append(Difference(_("refunds to participants (withdrawals)"), -refunded))
    kept = sum(account.held for label, account in books.items() if label not in participants)
    if kept:
        differences.append(Difference(_("entry money held for cancelled registrations"), kept))
    adjusted = sum(a.amount for a in summary.adjustments)
    if adjusted:
        differences.append(Difference(_("House's adjustments to the pool"), -adjusted))
    difference = ledger_pool - pool
    named = sum(part.amount for part in differences)
    if difference != named:
        differences.append(Difference(_("not explained by the lines"), difference - named))
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
        entries_paid=sum(
            1
            for account in books.values()
            if account.settled and not account.comped and account.held > 0
        ),
        comped_players=tuple(
            sorted(label for label, account in books.items() if account.settled and account.comped)
        ),
        refunds_cash=refunds_cash,
        refunds_other=refunds_other,
        payouts_cash=payouts_cash,
        payouts_other=payouts_other,
        expected_cash=cash_of(lines),
        ledger_pool=ledger_pool,
        sponsored=sponsored,
        sponsor_cash=sponsor_cash,
        sponsor_other=sponsor_other,
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


class NightLedger:
    """The ledger as the engine's paid flag asks it (`events.check_in.Ledger`)."""

    def entry_money(self, event: Event, registration: Registration | None) -> EntryMoney:
        lines = lines_of(event)
        label = registration.label if registration is not None else None
        account = accounts(lines).get(label, Account()) if label is not None else Account()
        return EntryMoney(
            collected=collected_of(lines), held=account.held, refunded=account.refunded
        )

    def write_line(self, change: Change, registration: Registration, line: PaymentMarked) -> None:
        write_line(change, registration, line)
