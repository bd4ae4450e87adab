"""The ledger's lines as typed records: one frozen record per kind of money line in the chain.

Each record writes its audit entry's details (`to_details()`, with the version of the record) and
reads them back (`from_entry()`), raising `UnreadableLine` with a plain sentence on anything it
cannot read: a missing or unknown method is an error, never cash. The ledger writes and reads its
lines through these records (ledger/lines.py, ledger/services.py, events/check_in.py), and the
independent verifier parses the export's lines through them too (audit/verify.py): so this module
is pure Python, with no Django and no database.

Versions (docs/audit.md, "The ledger's lines"): details without a `version` are version 1, the
fields as the ledger wrote them before the version was recorded; every line written now carries
`"version": 1`. A later version is a new reading here, never a guess.
"""

from __future__ import annotations

from collections.abc import Mapping
from dataclasses import dataclass, fields
from typing import Any, ClassVar

VERSION = 1
VERSIONS = (1,)

ENTRY_PAID = "entry_paid"
PAYMENT_MARKED = "payment_marked"
ENTRY_REFUNDED = "entry_refunded"
PAYOUT_MADE = "payout_made"
SPONSOR_PAID = "sponsor_paid"
ACTIONS = (ENTRY_PAID, PAYMENT_MARKED, ENTRY_REFUNDED, PAYOUT_MADE, SPONSOR_PAID)

CASH = "cash"
CARD = "card"
ONLINE = "online"
COMP = "comp"
TRANSFER = "transfer"
ENTRY_METHODS = (CASH, CARD, ONLINE, COMP)
REFUND_METHODS = (CASH, CARD, ONLINE)
PAYOUT_METHODS = (CASH, TRANSFER)
SPONSOR_METHODS = (CASH, TRANSFER)
GROUNDS = ("cancellation", "withdrawal")


class UnreadableLine(ValueError):
    """A money line's details that cannot be read as its record, as a plain sentence."""


@dataclass(frozen=True, slots=True)
class EntryPaid:
    """An entry paid in cash, by card at the door, online (with its reference) or comped (no
    money moves: `waived` is the contribution not taken)."""

    action: ClassVar[str] = ENTRY_PAID
    method: str
    amount: int
    reference: str = ""
    waived: int = 0

    def to_details(self) -> dict[str, Any]:
        # A reference names an online payment only; what was waived, a comp only.
        return _details(
            self,
            leave_out=(
                *(() if self.method == ONLINE else ("reference",)),
                *(() if self.method == COMP else ("waived",)),
            ),
        )

    @classmethod
    def from_entry(cls, details: object) -> EntryPaid:
        read = _Reader(cls.action, details)
        return cls(
            method=read.method(ENTRY_METHODS),
            amount=read.dollars("amount"),
            reference=read.text("reference", optional=True),
            waived=read.dollars("waived", optional=True),
        )


@dataclass(frozen=True, slots=True)
class PaymentMarked:
    """House's one-tap paid flag: marked paid takes the contribution in cash; marked not paid
    takes back the player's last entry line."""

    action: ClassVar[str] = PAYMENT_MARKED
    paid: bool
    amount: int

    def to_details(self) -> dict[str, Any]:
        return _details(self)

    @classmethod
    def from_entry(cls, details: object) -> PaymentMarked:
        read = _Reader(cls.action, details)
        return cls(paid=read.flag("paid"), amount=read.dollars("amount"))


@dataclass(frozen=True, slots=True)
class EntryRefunded:
    """Money given back the way it came, for a cancellation or a withdrawal."""

    action: ClassVar[str] = ENTRY_REFUNDED
    method: str
    amount: int
    grounds: str

    def to_details(self) -> dict[str, Any]:
        return _details(self)

    @classmethod
    def from_entry(cls, details: object) -> EntryRefunded:
        read = _Reader(cls.action, details)
        method, amount = read.method(REFUND_METHODS), read.dollars("amount")
        grounds = read.text("grounds")
        if grounds not in GROUNDS:
            raise UnreadableLine(
                f"the {cls.action} line's details.grounds is {grounds!r}, not "
                f"{' or '.join(GROUNDS)}."
            )
        return cls(method=method, amount=amount, grounds=grounds)


@dataclass(frozen=True, slots=True)
class PayoutMade:
    """Part or all of an award handed over: how, by whom, whether the winner signed the sheet,
    whether it is reportable winnings."""

    action: ClassVar[str] = PAYOUT_MADE
    method: str
    amount: int
    award: int
    handed_by: str
    acknowledged: bool
    reportable: bool

    def to_details(self) -> dict[str, Any]:
        return _details(self)

    @classmethod
    def from_entry(cls, details: object) -> PayoutMade:
        read = _Reader(cls.action, details)
        return cls(
            method=read.method(PAYOUT_METHODS),
            amount=read.dollars("amount"),
            award=read.dollars("award"),
            handed_by=read.text("handed_by"),
            acknowledged=read.flag("acknowledged"),
            reportable=read.flag("reportable"),
        )


@dataclass(frozen=True, slots=True)
class SponsorPaid:
    """A free-entry event's sponsor money received, in cash or by transfer."""

    action: ClassVar[str] = SPONSOR_PAID
    method: str
    amount: int
    reference: str = ""

    def to_details(self) -> dict[str, Any]:
        return _details(self, leave_out=() if self.reference else ("reference",))

    @classmethod
    def from_entry(cls, details: object) -> SponsorPaid:
        read = _Reader(cls.action, details)
        return cls(
            method=read.method(SPONSOR_METHODS),
            amount=read.dollars("amount"),
            reference=read.text("reference", optional=True),
        )


MoneyLine = EntryPaid | PaymentMarked | EntryRefunded | PayoutMade | SponsorPaid
RECORDS: dict[str, type[MoneyLine]] = {
    record.action: record
    for record in (EntryPaid, PaymentMarked, EntryRefunded, PayoutMade, SponsorPaid)
}


def read_line(action: str, details: object) -> MoneyLine:
    """The record of a money line's details; UnreadableLine when they cannot be read."""
    record = RECORDS.get(action)
    if record is None:
        raise UnreadableLine(f"{action!r} is not a kind of ledger line.")
    return record.from_entry(details)


def _details(line: object, *, leave_out: tuple[str, ...] = ()) -> dict[str, Any]:
    """A line's details as written: its version, then every field but those `leave_out` names."""
    return {
        "version": VERSION,
        **{
            field.name: getattr(line, field.name)
            for field in fields(line)  # type: ignore[arg-type]
            if field.name not in leave_out
        },
    }


class _Reader:
    """Reads one line's details field by field; each problem is a plain sentence."""

    def __init__(self, action: str, details: object) -> None:
        if not isinstance(details, Mapping):
            raise UnreadableLine(f"the details of a {action} line are not a JSON object.")
        self.action = action
        self.details = details
        version = details.get("version", 1)
        if isinstance(version, bool) or version not in VERSIONS:
            raise UnreadableLine(
                f"the {action} line is of version {version!r}; this reader knows version "
                f"{', '.join(map(str, VERSIONS))}."
            )

    def _missing(self, key: str) -> UnreadableLine:
        return UnreadableLine(f"the {self.action} line has no details.{key}.")

    def method(self, methods: tuple[str, ...]) -> str:
        if "method" not in self.details:
            raise UnreadableLine(
                f"the {self.action} line has no details.method: it must say how the money "
                f"moved ({', '.join(methods)}), and none is taken for cash."
            )
        method = self.details["method"]
        if method not in methods:
            raise UnreadableLine(
                f"the {self.action} line's method is {method!r}, not one of {', '.join(methods)}."
            )
        return str(method)

    def dollars(self, key: str, *, optional: bool = False) -> int:
        if key not in self.details:
            if optional:
                return 0
            raise self._missing(key)
        value = self.details[key]
        if isinstance(value, bool) or not isinstance(value, int) or value < 0:
            raise UnreadableLine(
                f"the {self.action} line's details.{key} is {value!r}, not a whole number of "
                "dollars."
            )
        return value

    def text(self, key: str, *, optional: bool = False) -> str:
        if key not in self.details:
            if optional:
                return ""
            raise self._missing(key)
        value = self.details[key]
        if not isinstance(value, str):
            raise UnreadableLine(f"the {self.action} line's details.{key} is {value!r}, not text.")
        return value

    def flag(self, key: str) -> bool:
        if key not in self.details:
            raise self._missing(key)
        value = self.details[key]
        if not isinstance(value, bool):
            raise UnreadableLine(
                f"the {self.action} line's details.{key} is {value!r}, not true or false."
            )
        return value
