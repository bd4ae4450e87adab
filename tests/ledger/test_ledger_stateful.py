"""Random sequences of the night's money (hypothesis stateful): entries paid in cash, by card,
online and comped, the one-tap paid mark and its "not paid", refunds, cancellations, a withdrawal,
payouts of the final awards, and a sponsor's money in a free-entry event.

The machine keeps its own books, player by player, from the actions the services accepted, and
checks after every step that the ledger agrees (docs/decisions.md, "The ledger" and "The night's
money, exact"): expected cash is cash in less cash out, no refund is more than what was paid and
not yet given back, "not paid" never follows a refund of the entry, collected is the money in and
never a comp, the night report balances, and verify_audit recomputes the same money. A refused
action (a DomainError) changes nothing.

Each example builds its own event through the services, so examples share the test database.
"""

from __future__ import annotations

import os
from collections.abc import Callable
from dataclasses import dataclass
from typing import Any, ClassVar

import pytest
from hypothesis import HealthCheck, settings
from hypothesis import strategies as st
from hypothesis.stateful import (
    RuleBasedStateMachine,
    initialize,
    invariant,
    precondition,
    rule,
    run_state_machine_as_test,
)

from accounts.models import User
from audit.export import audit_document
from audit.verify import verify
from events import services
from events.check_in import collected
from events.errors import DomainError
from events.models import Registration, RegistrationStatus
from ledger import services as ledger
from ledger.cash_box import cash_box
from ledger.lines import accounts, lines_of
from ledger.report import night_csv, night_report
from tests.factories import make_table, make_user
from tests.refusals import snapshot

pytestmark = pytest.mark.django_db

REASON = "Had to leave for work"
# A player: the one the previous rule acted on (-1, so one player's money moves several times in a
# row), or one by index.
WHO = st.one_of(st.just(-1), st.just(-1), st.integers(min_value=0, max_value=3))
# Around a $10 entry: parts of it, all of it, more than it.
DOLLARS = st.integers(min_value=1, max_value=14)


@dataclass
class Books:
    """One player's money as the machine keeps it."""

    held: int = 0
    last_entry: tuple[int, str] | None = None  # (dollars, method) of the entry a void takes back
    refunded_since_entry: int = 0
    paid_out: int = 0


class LedgerMachine(RuleBasedStateMachine):
    sponsored_pool: ClassVar[int] = 0  # 0: a paid event of $10 entries

    def __init__(self) -> None:
        super().__init__()
        contribution = 0 if self.sponsored_pool else 10
        table = make_table(players=0, contribution=contribution)
        self.table = table
        self.event = table.event
        self.house: User = table.house
        changes: dict[str, Any] = {"refund_policy": "withdrawals"}
        if self.sponsored_pool:
            changes |= {"entry_mode": "sponsored", "sponsored_pool": self.sponsored_pool}
        services.event_update(event_id=self.event.pk, by=self.house, changes=changes)
        self.contribution = contribution
        # Two checked in, who will play; two only registered, whom a cancellation may reach.
        for _ in range(2):
            table.join()
        for _ in range(2):
            player = make_user()
            table.players.append(player)
            table.register(player)
        self.people: list[User] = list(table.players)
        self.labels = [table.registration(p).label for p in self.people]
        self.rids = [table.rid(p) for p in self.people]
        self.books = {label: Books() for label in self.labels}
        self.cash = 0
        self.sponsor_in = 0
        self.finalized = False
        self.awards: dict[str, int] = {}
        self.last = 2  # the first who may cancel
        self.steps = 0

    def who(self, who: int) -> int:
        if who >= 0:
            self.last = who
        return self.last

    # Trying an action ---------------------------------------------------------------------------

    def attempt(self, call: Callable[[], object]) -> bool:
        """Whether the service accepted the call; a refusal must change nothing."""
        self.steps += 1
        before = snapshot(self.event)
        try:
            call()
        except DomainError:
            assert snapshot(self.event) == before, "a refused action changed the event"
            return False
        return True

    def lines_written(self, call: Callable[[], object]) -> int | None:
        """How many ledger lines an accepted call wrote; None when it was refused."""
        before = len(lines_of(self.event))
        if not self.attempt(call):
            return None
        return len(lines_of(self.event)) - before

    def cancel(self, who: int) -> None:
        """House cancels a registration (one checked in is refused: it stays)."""
        self.attempt(
            lambda: services.registration_cancel(registration_id=self.rids[who], by=self.house)
        )

    def enter(self, label: str, amount: int, method: str) -> None:
        books = self.books[label]
        books.held += amount
        books.last_entry = (amount, method)
        books.refunded_since_entry = 0
        self.cash += amount if method == "cash" else 0

    # The rules ----------------------------------------------------------------------------------

    @initialize(
        entries=st.lists(
            st.sampled_from(["mark", "cash", "card", "online", "comp", "none"]),
            min_size=4,
            max_size=4,
        ),
        leaving=st.lists(st.sampled_from(["cancelled", "stays"]), min_size=2, max_size=2),
    )
    def the_door(self, entries: list[str], leaving: list[str]) -> None:
        """The door before play: each entry taken one way or not at all; two who only registered
        cancel or stay."""
        for who, how in enumerate(entries):
            if how == "mark":
                self.mark(who, True)
            elif how != "none":
                self.pay(who, how)
        for who, how in zip((2, 3), leaving, strict=True):
            if how == "cancelled":
                self.cancel(who)
        self.last = 2

    @rule(who=WHO, method=st.sampled_from(["cash", "card", "online", "comp", "cheque"]))
    def pay(self, who: int, method: str) -> None:
        who = self.who(who)
        extra = {"reference": "pi_42"} if method == "online" else {}
        extra |= {"reason": "Sponsor's guest"} if method == "comp" else {}
        written = self.lines_written(
            lambda: ledger.entry_payment(
                event_id=self.event.pk,
                registration_id=self.rids[who],
                by=self.house,
                method=method,
                **extra,
            )
        )
        if written:
            self.enter(self.labels[who], 0 if method == "comp" else self.contribution, method)

    @rule(who=WHO, paid=st.booleans())
    def mark(self, who: int, paid: bool) -> None:
        who = self.who(who)
        label = self.labels[who]
        books = self.books[label]
        refunded = books.refunded_since_entry
        written = self.lines_written(
            lambda: services.payment_mark(registration_id=self.rids[who], by=self.house, paid=paid)
        )
        if not written:
            return
        if paid:
            self.enter(label, self.contribution, "cash")
            return
        assert refunded == 0, "a void took back an entry part of which was refunded"
        assert books.last_entry is not None, "a void with no entry to take back"
        amount, method = books.last_entry
        books.held -= amount
        self.cash -= amount if method == "cash" else 0
        books.last_entry = None

    @rule(
        who=WHO,
        amount=DOLLARS,
        method=st.sampled_from(["cash", "card", "online"]),
        cancelled_first=st.booleans(),
    )
    def refund(self, who: int, amount: int, method: str, cancelled_first: bool) -> None:
        """A refund, perhaps of a registration House cancels first (checked in: refused)."""
        who = self.who(who)
        if cancelled_first:
            self.cancel(who)
        books = self.books[self.labels[who]]
        held = books.held
        written = self.lines_written(
            lambda: ledger.entry_refund(
                event_id=self.event.pk,
                registration_id=self.rids[who],
                by=self.house,
                amount=amount,
                method=method,
                reason=REASON,
            )
        )
        if not written:
            return
        assert amount <= held, f"a refund of ${amount} with ${held} paid in and not given back"
        books.held -= amount
        books.refunded_since_entry += amount
        self.cash -= amount if method == "cash" else 0

    # Late in the night, so the money before it has time to move.
    @precondition(lambda self: not self.finalized and self.steps >= 8)
    @rule(withdraw=st.booleans())
    def finalize(self, withdraw: bool) -> None:
        """Start, play every game (one player withdrawing, perhaps), confirm, finalize."""
        checked_in = [
            i
            for i, rid in enumerate(self.rids)
            if Registration.objects.get(pk=rid).status == RegistrationStatus.CHECKED_IN
        ]
        self.table.start()
        if withdraw:
            services.player_withdraw(
                registration_id=self.rids[checked_in[-1]], by=self.house, reason=REASON
            )
            checked_in = checked_in[:-1]  # one plays on alone
        for i in checked_in:
            self.table.play_out(self.people[i])
        if self.table.refresh().registration_open:
            services.registration_close(event_id=self.event.pk, by=self.house)
        services.pool_confirm(event_id=self.event.pk, by=self.house)
        services.event_finalize(event_id=self.event.pk, by=self.house)
        self.finalized = True
        self.awards = {
            label: award or 0
            for label, award in Registration.objects.filter(
                event=self.event, award__gt=0
            ).values_list("label", "award")
        }

    @rule(who=WHO, amount=DOLLARS, method=st.sampled_from(["cash", "transfer"]))
    def payout(self, who: int, amount: int, method: str) -> None:
        who = self.who(who)
        books = self.books[self.labels[who]]
        written = self.lines_written(
            lambda: ledger.payout_record(
                event_id=self.event.pk,
                registration_id=self.rids[who],
                by=self.house,
                amount=amount,
                method=method,
                acknowledged=True,
            )
        )
        if not written:
            return
        assert self.finalized
        assert books.paid_out + amount <= self.awards.get(self.labels[who], 0)
        books.paid_out += amount
        self.cash -= amount if method == "cash" else 0

    @rule(
        amount=st.integers(min_value=1, max_value=80), method=st.sampled_from(["cash", "transfer"])
    )
    def sponsor(self, amount: int, method: str) -> None:
        written = self.lines_written(
            lambda: ledger.sponsor_payment(
                event_id=self.event.pk, by=self.house, amount=amount, method=method
            )
        )
        if not written:
            return
        self.sponsor_in += amount
        assert self.sponsor_in <= self.sponsored_pool
        self.cash += amount if method == "cash" else 0

    # What must always hold ----------------------------------------------------------------------

    @invariant()
    def expected_cash_is_cash_in_less_cash_out(self) -> None:
        box = cash_box(self.event)
        assert box.expected_cash == self.cash
        assert box.short == (self.cash < 0)
        assert box.sponsor_in == self.sponsor_in

    @invariant()
    def each_player_holds_what_they_paid_and_were_not_given_back(self) -> None:
        ledger_books = accounts(lines_of(self.event))
        for label, books in self.books.items():
            account = ledger_books.get(label)
            held = account.held if account else 0
            assert held == books.held >= 0, label
            assert (account.paid_out if account else 0) == books.paid_out, label

    @invariant()
    def collected_is_the_money_in_and_never_a_comp(self) -> None:
        box = cash_box(self.event)
        money_in = sum(books.held for books in self.books.values())
        assert box.collected == collected(self.event) == money_in
        settled_with_money = sum(
            1
            for books in self.books.values()
            if books.last_entry is not None and books.last_entry[1] != "comp" and books.held > 0
        )
        assert box.entries_paid == settled_with_money

    @invariant()
    def the_night_report_and_the_audit_agree(self) -> None:
        report = night_report(self.event)
        assert report.balanced
        rows = night_csv(report).splitlines()[1:]
        net = next(row for row in rows if ",total,net," in row)
        assert int(net.rsplit(",total,net,", 1)[1].split(",")[0]) == report.net
        verdict = verify(audit_document(self.event))
        assert verdict.ok, verdict.problem
        ledger_line = [line for line in verdict.checked if line.startswith("ledger:")]
        if lines_of(self.event):
            assert ledger_line and ledger_line[0].endswith(
                f"${self.cash}" if self.cash >= 0 else f"\u2212${-self.cash} (short)"
            )


class SponsoredMachine(LedgerMachine):
    sponsored_pool = 60


SETTINGS = settings(
    max_examples=int(os.environ.get("STATEFUL_EXAMPLES", "12")),
    stateful_step_count=16,
    deadline=None,
    derandomize="STATEFUL_EXAMPLES" not in os.environ,
    suppress_health_check=[HealthCheck.too_slow, HealthCheck.filter_too_much],
)


@pytest.mark.parametrize("machine", [LedgerMachine, SponsoredMachine], ids=["paid", "sponsored"])
def test_random_money_keeps_the_box_exact_and_every_refusal_changes_nothing(
    machine: type[LedgerMachine],
) -> None:
    run_state_machine_as_test(machine, settings=SETTINGS)
