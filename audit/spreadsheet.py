"""CSV cells that a spreadsheet shows as text, never runs as a formula (OWASP CSV injection).

A cell that starts with `=`, `+`, `-`, `@`, a tab or a carriage return is a formula to Excel,
LibreOffice and Google Sheets: a display name like `=HYPERLINK("http://x","y")` would become a
link, or worse. Such a cell is written with a `'` in front, which spreadsheets take as "this is
text" and do not show. A cell that itself starts with `'` gets one too, so the change can always
be undone exactly: the verifier drops one leading `'` from every cell that has one and recomputes
the hashes from the original text. Pure Python, shared by the export and the verifier.
"""

from __future__ import annotations

FORMULA_STARTS = ("=", "+", "-", "@", "\t", "\r")
TEXT_MARK = "'"


def spreadsheet_cell(value: object) -> str:
    """The text of one CSV cell, marked as text when a spreadsheet would run it."""
    text = "" if value is None else str(value)
    if text.startswith((*FORMULA_STARTS, TEXT_MARK)):
        return TEXT_MARK + text
    return text


def original_text(cell: str) -> str:
    """The text that `spreadsheet_cell` was given (the inverse, for verifying a CSV export)."""
    return cell.removeprefix(TEXT_MARK)
