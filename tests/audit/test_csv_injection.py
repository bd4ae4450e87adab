"""The audit CSV opens safely in a spreadsheet, and still verifies.

A player picks a display name that a spreadsheet would run as a formula; House downloads the
audit CSV from the dashboard and from the API. No cell may start with a formula character, and
the verifier, given the CSV as downloaded, recomputes every hash from the original text.
"""

from __future__ import annotations

import csv
import io
import json

import pytest
from django.core.management import call_command
from django.core.management.base import CommandError
from django.test import Client

from accounts.models import User
from audit.spreadsheet import original_text, spreadsheet_cell
from audit.verify import verify_csv
from tests.api.support import Api
from tests.factories import make_table, make_user
from tests.house.support import house_client, url

pytestmark = pytest.mark.django_db

NAMES = [
    '=HYPERLINK("http://x","y")',
    "+1+cmd|' /C calc'!A0",
    "-2+3",
    "@SUM(1+1)",
    "\tTabbed",
    "\rReturned",
    "'quoted already",
]
FORMULA_STARTS = ("=", "+", "-", "@", "\t", "\r")


@pytest.fixture
def hostile_table(settings):
    table = make_table("league")
    User.objects.filter(pk=table.house.pk).update(display_name="=cmd|'/C calc'!A0")
    for name in NAMES:
        player = make_user(name)
        table.players.append(player)
        table.register(player)
        table.check_in(player)
    table.start()
    return table


def rows_of(text: str) -> list[list[str]]:
    return list(csv.reader(io.StringIO(text, newline="")))


def downloads(table) -> dict[str, str]:
    page = house_client(Client(), table).get(url("audit_csv", table.event.pk))
    api = Api(table.house).get(f"/api/events/{table.event.pk}/audit/", format="csv")
    assert page.status_code == api.status_code == 200
    return {"page": page.content.decode(), "api": api.content.decode()}


def test_no_cell_starts_with_a_formula_character(hostile_table) -> None:
    for source, text in downloads(hostile_table).items():
        rows = rows_of(text)
        players = {row[rows[0].index("player")] for row in rows[1:]}
        assert "'" + NAMES[0] in players, source
        for row in rows:
            for cell in row:
                assert not cell.startswith(FORMULA_STARTS), (source, cell)


def test_the_downloaded_csv_verifies(hostile_table) -> None:
    for text in downloads(hostile_table).values():
        verdict = verify_csv(text)
        assert verdict.ok, verdict.problem
        assert verdict.checked[0].startswith("chain: ")


def test_the_csv_holds_the_same_entries_as_the_json(hostile_table) -> None:
    document = Api(hostile_table.house).get(f"/api/events/{hostile_table.event.pk}/audit/").json()
    header, *rows = rows_of(downloads(hostile_table)["api"])
    assert len(rows) == len(document["entries"])
    for row, entry in zip(rows, document["entries"], strict=True):
        cells = dict(zip(header, (original_text(cell) for cell in row), strict=True))
        assert json.loads(cells["details"]) == entry["details"]
        for column in ("at", "actor", "action", "player", "reason", "hash"):
            assert cells[column] == (entry[column] or ""), column


def test_a_changed_name_in_the_csv_is_caught(hostile_table) -> None:
    text = downloads(hostile_table)["api"]
    forged = text.replace("'" + NAMES[0].replace('"', '""'), "Someone Else", 1)
    assert forged != text
    verdict = verify_csv(forged)
    assert not verdict.ok
    assert "its hash does not match its contents" in (verdict.problem or "")


def test_the_command_verifies_a_csv_file(hostile_table, tmp_path) -> None:
    text = downloads(hostile_table)["api"]
    good, bad = tmp_path / "audit.csv", tmp_path / "forged.csv"
    good.write_text(text, newline="")
    bad.write_text(text.replace("event_started", "event_startex"), newline="")
    out = io.StringIO()
    call_command("verify_audit", str(good), stdout=out)
    assert "OK: the chain verifies" in out.getvalue()
    with pytest.raises(CommandError, match="hash does not match"):
        call_command("verify_audit", str(bad), stdout=io.StringIO())


@pytest.mark.parametrize("text", [*NAMES, "", "plain", "''", "=", "'", "'='"])
def test_marking_a_cell_can_always_be_undone(text: str) -> None:
    cell = spreadsheet_cell(text)
    assert not cell.startswith(FORMULA_STARTS)
    assert original_text(cell) == text
