"""The ledger alone sets `paid` (docs/decisions.md, "The ledger alone sets paid"): one function of
the ledger (`ledger.book.write_line`) writes an entry's line and sets the registration's `paid`
flag from what the lines then say; no other code of the project writes the flag.

Writes are read from the source with `ast`: an assignment to `.paid`, `setattr(..., "paid", ...)`,
and `paid=` or a "paid" field name in a call that saves (`update`, `create`, `save(update_fields=
[...])`, `bulk_update`, ...). Reads (`filter(paid=True)`, `values("paid")`) and records that are
not the registration (`PaymentMarked(paid=...)`) are not writes."""

from __future__ import annotations

import ast
from collections.abc import Iterator
from pathlib import Path

import pytest

from events import services
from ledger import services as ledger
from ledger.book import settled
from ledger.lines import Account, accounts, lines_of
from tests.factories import Table, make_table, make_user

ROOT = Path(__file__).resolve().parents[2]
SKIPPED = {"tests", "var", "node_modules"}
# The one writer of the flag: (file, function).
WRITER = ("ledger/book.py", "write_line")
# Calls that save what they are given: a `paid` keyword or a "paid" field name in them writes it.
SAVING = {
    "Registration",
    "bulk_create",
    "bulk_update",
    "create",
    "get_or_create",
    "save",
    "update",
    "update_or_create",
}


def _name(call: ast.Call) -> str:
    func = call.func
    if isinstance(func, ast.Attribute):
        return func.attr
    return func.id if isinstance(func, ast.Name) else ""


def _names_paid(node: ast.AST) -> bool:
    """Whether "paid" is a field name in a list, tuple or set, or a key of a dict, under node."""
    for inner in ast.walk(node):
        if isinstance(inner, ast.List | ast.Tuple | ast.Set):
            items: list[ast.expr | None] = list(inner.elts)
        elif isinstance(inner, ast.Dict):
            items = list(inner.keys)
        else:
            continue
        if any(isinstance(item, ast.Constant) and item.value == "paid" for item in items):
            return True
    return False


def _writes(node: ast.AST) -> bool:
    if isinstance(node, ast.Assign | ast.AugAssign | ast.AnnAssign):
        targets = node.targets if isinstance(node, ast.Assign) else [node.target]
        return any(
            isinstance(target, ast.Attribute) and target.attr == "paid"
            for outer in targets
            for target in ast.walk(outer)
        )
    if not isinstance(node, ast.Call):
        return False
    name = _name(node)
    if name == "setattr":
        return any(isinstance(arg, ast.Constant) and arg.value == "paid" for arg in node.args)
    if name not in SAVING:
        return False
    if any(keyword.arg == "paid" for keyword in node.keywords):
        return True
    return any(_names_paid(arg) for arg in [*node.args, *(k.value for k in node.keywords)])


def paid_writes(source: str, filename: str) -> Iterator[tuple[str, int]]:
    """(enclosing function, line) of each write of `paid` in the source."""

    def visit(node: ast.AST, function: str) -> Iterator[tuple[str, int]]:
        if isinstance(node, ast.FunctionDef | ast.AsyncFunctionDef):
            function = node.name
        if _writes(node):
            yield function, getattr(node, "lineno", 0)
        for child in ast.iter_child_nodes(node):
            yield from visit(child, function)

    yield from visit(ast.parse(source, filename=filename), "")


def project_files() -> list[Path]:
    return sorted(
        path
        for path in ROOT.rglob("*.py")
        if not any(
            part in SKIPPED or part.startswith(".") for part in path.relative_to(ROOT).parts[:-1]
        )
    )


def test_the_ledgers_one_function_is_the_only_code_that_writes_paid():
    files = project_files()
    assert len(files) > 200 and ROOT / "events" / "check_in.py" in files
    found = {
        (str(path.relative_to(ROOT)), function, line)
        for path in files
        for function, line in paid_writes(path.read_text(), str(path))
    }
    outside = sorted(write for write in found if write[:2] != WRITER)
    assert outside == [], f"`paid` is written outside {WRITER[0]}:{WRITER[1]}: {outside}"
    # The scan sees the writer's own writes: the assignment and its save.
    assert len([write for write in found if write[:2] == WRITER]) == 2


def test_the_scan_finds_every_way_of_writing_paid_and_no_read():
    writes = """
def f(registration, rows, model):
    registration.paid = True
    registration.save(update_fields=["status", "paid"])
    model.objects.filter(pk=1).update(paid=False)
    model.objects.bulk_update(rows, ("paid",))
    model.objects.update_or_create(pk=1, defaults={"paid": True})
    setattr(registration, "paid", True)
    Registration(event=None, paid=True)
"""
    reads = """
def g(model, PaymentMarked):
    model.objects.filter(paid=True).exists()
    model.objects.values("pk", "paid")
    PaymentMarked(paid=True, amount=10)
    model.objects.create(entry_mode="paid")
    ok = registration.paid == True
"""
    assert [line for _, line in paid_writes(writes, "writes")] == [3, 4, 5, 6, 7, 8, 9]
    assert list(paid_writes(reads, "reads")) == []


def paid_as_the_lines_say(table: Table, player) -> tuple[bool, bool]:
    registration = table.registration(player)
    account = accounts(lines_of(table.refresh())).get(registration.label, Account())
    return registration.paid, settled(account)


@pytest.mark.django_db
def test_paid_is_what_the_ledgers_lines_say_after_every_line():
    table = make_table(players=1, contribution=10)
    ann, bob, cy = make_user("Ann"), make_user("Bob"), make_user("Cy")
    for player in (ann, bob, cy):
        table.register(player)

    def pay(player, method: str, **extra: str) -> None:
        ledger.entry_payment(
            event_id=table.event.pk,
            registration_id=table.rid(player),
            by=table.house,
            method=method,
            **extra,
        )

    def refund(player, amount: int) -> None:
        ledger.entry_refund(
            event_id=table.event.pk,
            registration_id=table.rid(player),
            by=table.house,
            amount=amount,
            method="cash",
            reason="Cannot come after all",
        )

    def mark(player, paid: bool) -> None:
        services.payment_mark(registration_id=table.rid(player), by=table.house, paid=paid)

    def cancel(player) -> None:
        services.registration_cancel(registration_id=table.rid(player), by=table.house)

    steps = [
        (lambda: mark(ann, True), ann, True),
        (lambda: mark(ann, False), ann, False),
        (lambda: pay(ann, "card"), ann, True),
        (lambda: pay(bob, "comp", reason="Sponsor's guest"), bob, True),
        (lambda: mark(bob, False), bob, False),
        (lambda: pay(cy, "cash"), cy, True),
        (lambda: cancel(cy), cy, True),
        (lambda: refund(cy, 4), cy, True),
        (lambda: refund(cy, 6), cy, False),
    ]
    for step, player, expected in steps:
        step()
        assert paid_as_the_lines_say(table, player) == (expected, expected)
