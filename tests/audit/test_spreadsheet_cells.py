"""One CSV cell escaper for every CSV we write (audit/spreadsheet.py): a cell a spreadsheet would
run as a formula, look-alikes included once NFKC-normalised (a fullwidth equals sign), is marked
as text in the night report, the season table and the audit alike; numbers stay numbers."""

from __future__ import annotations

import csv
import io
import re
from pathlib import Path

import pytest
from django.test import Client
from django.urls import reverse

from accounts.models import User
from audit.spreadsheet import original_text, runs_as_formula, spreadsheet_cell
from audit.verify import verify_csv
from ledger import services as ledger
from tests.factories import make_table, make_user

ROOT = Path(__file__).resolve().parents[2]
LOOK_ALIKES = [
    '\uff1dHYPERLINK("http://x","y")',  # fullwidth equals
    "\uff0b1+cmd",  # fullwidth plus
    "\uff0d2+3",  # fullwidth hyphen-minus
    "\uff20SUM(1+1)",  # fullwidth commercial at
    "\ufe66cmd",  # small equals sign
    "\u207a1",  # superscript plus
    "\u208c1",  # subscript equals
]


@pytest.mark.parametrize("text", LOOK_ALIKES)
def test_a_look_alike_formula_start_is_marked_after_normalisation(text: str) -> None:
    cell = spreadsheet_cell(text)
    assert cell == "'" + text
    assert original_text(cell) == text


@pytest.mark.parametrize("text", ["plain", "Ann", "12", "\uff21nn", "2026-12-05T02:00:00"])
def test_a_plain_cell_is_left_as_it_is(text: str) -> None:
    assert spreadsheet_cell(text) == text


def test_every_csv_we_write_goes_through_the_one_escaper() -> None:
    writers = []
    for path in ROOT.rglob("*.py"):
        relative = path.relative_to(ROOT)
        if relative.parts[0] in {".venv", "tests", "var", "staticfiles"}:
            continue
        if re.search(r"csv\.(writer|DictWriter)\(", path.read_text()):
            writers.append(str(relative))
    assert writers == ["audit/spreadsheet.py"]


def _rows(text: str) -> list[list[str]]:
    return list(csv.reader(io.StringIO(text, newline="")))


def _formula_cells(rows: list[list[str]]) -> list[str]:
    """Cells a spreadsheet would run; a whole negative number is a number, not a formula."""
    return [
        cell
        for row in rows
        for cell in row
        if runs_as_formula(cell) and not re.fullmatch(r"-\d+", cell)
    ]


@pytest.mark.django_db
def test_the_night_csv_marks_a_look_alike_reference_and_a_look_alike_name() -> None:
    table = make_table(players=2, contribution=10)
    ann, bob = table.players
    User.objects.filter(pk=ann.pk).update(display_name=LOOK_ALIKES[1])
    for player, reference in ((ann, LOOK_ALIKES[0]), (bob, LOOK_ALIKES[4])):
        ledger.entry_payment(
            event_id=table.event.pk,
            registration_id=table.rid(player),
            by=table.house,
            method="online",
            reference=reference,
        )
    client = Client()
    client.force_login(table.house)
    response = client.get(reverse("ledger:night_csv", kwargs={"event_id": table.event.pk}))
    rows = _rows(response.content.decode())
    cells = {cell for row in rows for cell in row}
    assert {"'" + LOOK_ALIKES[0], "'" + LOOK_ALIKES[4]} <= cells
    assert _formula_cells(rows) == []


@pytest.mark.django_db
def test_the_audit_csv_marks_a_look_alike_name_and_still_verifies() -> None:
    table = make_table(players=1)
    player = make_user(LOOK_ALIKES[3])
    table.players.append(player)
    table.register(player)
    client = Client()
    client.force_login(table.house)
    text = client.get(reverse("house:audit_csv", args=[table.event.pk])).content.decode()
    rows = _rows(text)
    assert "'" + LOOK_ALIKES[3] in {cell for row in rows for cell in row}
    assert _formula_cells(rows) == []
    verdict = verify_csv(text)
    assert verdict.ok, verdict.problem
