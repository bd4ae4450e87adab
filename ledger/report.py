"""The night report: every ledger line in order, in the venue's time, and the totals that
balance to the dollar: the cash box, the entries against the pool, the payouts against the
awards. The page, its print layout and the CSV are made from the same `NightReport`."""

from __future__ import annotations

import io
import zoneinfo
from collections.abc import Callable
from dataclasses import dataclass
from datetime import datetime

from django.utils.translation import pgettext_lazy

from audit.spreadsheet import SpreadsheetWriter
from events.models import Event
from ledger.cash_box import CashBox, cash_box
from ledger.lines import Line, lines_of

# The page's words for a line's kind and method (the CSV keeps the ledger's own English codes).
KIND_WORDS = {
    "entry": pgettext_lazy("a ledger line", "entry"),
    "void": pgettext_lazy("a ledger line", "void"),
    "refund": pgettext_lazy("a ledger line", "refund"),
    "payout": pgettext_lazy("a ledger line", "payout"),
    "sponsor": pgettext_lazy("a ledger line", "sponsor"),
}
METHOD_WORDS = {
    "cash": pgettext_lazy("a way of paying", "cash"),
    "card": pgettext_lazy("a way of paying", "card"),
    "online": pgettext_lazy("a way of paying", "online"),
    "comp": pgettext_lazy("a way of paying", "comp"),
    "transfer": pgettext_lazy("a way of paying", "transfer"),
}


def method_words(method: str) -> str:
    """A way of paying as the page names it ('cash', 'efectivo', 'comptant')."""
    return str(METHOD_WORDS.get(method, method))


def method_choices(methods: tuple[str, ...]) -> list[tuple[str, str]]:
    """A form's ways of paying: each code and its words."""
    return [(method, method_words(method)) for method in methods]


@dataclass(frozen=True, slots=True)
class ReportLine:
    seq: int
    at: datetime
    player: str
    kind: str
    method: str
    signed: int
    note: str
    by: str
    handed_by: str
    acknowledged: bool
    reportable: bool

    @property
    def kind_words(self) -> str:
        """The line's kind as the page names it, in the active language."""
        return str(KIND_WORDS.get(self.kind, self.kind))

    @property
    def method_words(self) -> str:
        """The line's way of paying as the page names it, in the active language."""
        return method_words(self.method)


@dataclass(frozen=True, slots=True)
class OnlinePayment:
    """One payment Stripe recorded for the event, beside the ledger's lines for it: its entry
    line and refund line (their seq), and what does not match, in plain words ("" when all do)."""

    session: str
    payment: str
    player: str
    cents: int
    currency: str
    state: str
    why: str
    entry_line: int | None
    refund_line: int | None
    problem: str

    @property
    def amount_shown(self) -> str:
        """What Stripe says was paid: "$10.00 USD" (cents are Stripe's unit; the ledger's
        dollars are whole)."""
        whole, cents = divmod(self.cents, 100)
        return f"${whole}.{cents:02d} {self.currency.upper()}"


# The reader of the event's online payments, installed by the layer that takes them (payments/):
# the ledger names none of it. None installed: the report has no such section.
_online_readers: list[Callable[[Event, list[Line]], tuple[OnlinePayment, ...]]] = []


def use_online_payments(reader: Callable[[Event, list[Line]], tuple[OnlinePayment, ...]]) -> None:
    _online_readers[:] = [reader]


@dataclass(frozen=True, slots=True)
class NightReport:
    event: Event
    lines: tuple[ReportLine, ...]
    box: CashBox
    # The lines' signed dollars added up, by method: what each way of paying holds at the end.
    held_by_method: tuple[tuple[str, int], ...]
    net: int
    # The online payments beside Stripe's records (empty without any).
    online: tuple[OnlinePayment, ...] = ()

    @property
    def balanced(self) -> bool:
        """The lines add up to the totals: cash to the box, every method to the net."""
        cash = dict(self.held_by_method).get("cash", 0)
        return cash == self.box.expected_cash and self.net == sum(
            amount for _, amount in self.held_by_method
        )


def _report_line(line: Line, zone: zoneinfo.ZoneInfo) -> ReportLine:
    at = datetime.fromisoformat(line.at.replace("Z", "+00:00")).astimezone(zone)
    return ReportLine(
        seq=line.seq,
        at=at,
        player=line.player,
        kind=line.kind,
        method=line.method,
        signed=line.signed,
        note=line.note,
        by=line.actor,
        handed_by=line.handed_by,
        acknowledged=line.acknowledged,
        reportable=line.reportable,
    )


def night_report(event: Event) -> NightReport:
    lines = lines_of(event)
    zone = zoneinfo.ZoneInfo(event.time_zone)
    held: dict[str, int] = {}
    for line in lines:
        held[line.method] = held.get(line.method, 0) + line.signed
    return NightReport(
        event=event,
        lines=tuple(_report_line(line, zone) for line in lines),
        box=cash_box(event, lines),
        held_by_method=tuple(sorted(held.items())),
        net=sum(line.signed for line in lines),
        online=_online_readers[0](event, lines) if _online_readers else (),
    )


# The CSV's column headers and codes stay English whatever the reader's language: it is read by
# spreadsheets and scripts (docs/decisions.md, "Languages").
CSV_HEADER = (
    "seq",
    "time",
    "player",
    "line",
    "method",
    "dollars",
    "note",
    "recorded_by",
    "handed_by",
    "acknowledged",
    "reportable",
    # The online payments' rows (`line` "online payment"), as the page's section shows them.
    "stripe_payment",
    "stripe_paid",
    "stripe_state",
    "entry_line",
    "refund_line",
    "check",
)
# A ledger line's or a total's row leaves the online payments' columns empty.
_NO_PAYMENT = ["", "", "", "", "", ""]


def night_csv(report: NightReport) -> str:
    """The report as CSV: one row per line (dollars signed: in positive, out negative), then the
    totals; the dollars column adds up to the net row. Then one row per online payment beside
    Stripe's records (no dollars of its own: its money is in the lines it names)."""
    out = io.StringIO()
    writer = SpreadsheetWriter(out, lineterminator="\r\n")
    writer.writerow(CSV_HEADER)
    for line in report.lines:
        writer.writerow(
            [
                line.seq,
                line.at.isoformat(timespec="seconds"),
                line.player,
                line.kind,
                line.method,
                line.signed,
                line.note,
                line.by,
                line.handed_by,
                "yes" if line.acknowledged else "",
                "yes" if line.reportable else "",
                *_NO_PAYMENT,
            ]
        )
    box = report.box
    totals = [
        ("net", report.net),
        ("expected cash in the box", box.expected_cash),
        ("card", box.card_in),
        ("online", box.online_in),
        ("collected (entry money held)", box.collected),
        ("comped (waived, not collected)", box.comped),
        ("sponsor's money", box.sponsor_in),
        ("refunds", box.refunds),
        ("payouts", box.payouts),
        ("ledger's figure for the pool", box.ledger_pool),
        ("pool", box.pool),
        ("difference", box.difference),
    ]
    for name, amount in totals:
        writer.writerow(["", "", "", "total", name, amount, "", "", "", "", "", *_NO_PAYMENT])
    for payment in report.online:
        writer.writerow(
            [
                "",
                "",
                payment.player or "(no such registration)",
                "online payment",
                "online",
                "",
                payment.why,
                "Stripe",
                "",
                "",
                "",
                payment.payment or payment.session,
                payment.amount_shown,
                payment.state,
                payment.entry_line or "",
                payment.refund_line or "",
                payment.problem or "matches",
            ]
        )
    return out.getvalue()
