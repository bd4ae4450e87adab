"""CSV cells that a spreadsheet shows as text, never runs as a formula (OWASP CSV injection).

A cell that starts with `=`, `+`, `-`, `@`, a tab or a carriage return is a formula to Excel,
LibreOffice and Google Sheets: a display name like `=HYPERLINK("http://x","y")` would become a
link, or worse. Such a cell is written with a `'` in front, which spreadsheets take as "this is
text" and do not show. A cell that itself starts with `'` gets one too, so the change can always
be undone exactly: the verifier drops one leading `'` from every cell that has one and recomputes
the hashes from the original text. Pure Python, shared by the export and the verifier.

A look-alike counts as what it looks like: spreadsheets fold a fullwidth equals or plus sign
(and other compatibility forms) to `=` or `+`, so the start is compared after NFKC
normalisation. Every CSV we write goes through `SpreadsheetWriter` (its text cells marked, its
numbers left as numbers) or, for the audit, whose every cell is text, `spreadsheet_cell` itself.
"""

from __future__ import annotations

import csv
import unicodedata
from collections.abc import Iterable
from typing import Any

FORMULA_STARTS = ("=", "+", "-", "@", "\t", "\r")
TEXT_MARK = "'"


def runs_as_formula(text: str) -> bool:
    """Whether a spreadsheet would take a cell starting so as a formula (look-alikes included)."""
    return unicodedata.normalize("NFKC", text[:8]).startswith(FORMULA_STARTS)


def spreadsheet_cell(value: object) -> str:
    """The text of one CSV cell, marked as text when a spreadsheet would run it."""
    text = "" if value is None else str(value)
    if text.startswith(TEXT_MARK) or runs_as_formula(text):
        return TEXT_MARK + text
    return text


def spreadsheet_row(values: Iterable[object]) -> list[object]:
    """A row's cells: each text marked when it would run, numbers (a negative amount) kept."""
    return [_number_or_cell(value) for value in values]


def _number_or_cell(value: object) -> object:
    if isinstance(value, int | float) and not isinstance(value, bool):
        return value
    return spreadsheet_cell(value)


class SpreadsheetWriter:
    """`csv.writer`, with every text cell spreadsheet-safe: how each CSV export is written."""

    def __init__(self, out: Any, **options: Any) -> None:
        self._writer = csv.writer(out, **options)

    def writerow(self, row: Iterable[object]) -> None:
        self._writer.writerow(spreadsheet_row(row))


def original_text(cell: str) -> str:
    """The text that `spreadsheet_cell` was given (the inverse, for verifying a CSV export)."""
    return cell.removeprefix(TEXT_MARK)
