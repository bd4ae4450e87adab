"""Every House entry names the staff role House acted in (`actor_role`, docs/audit.md); entries
and exports from before roles still verify."""

from __future__ import annotations

import copy
import csv
import io
import json
from typing import Any

import pytest

from audit.verify import CSV_COLUMNS_WITHOUT_ROLES, CSV_HEAD_COLUMNS, verify, verify_csv
from events import services
from staff.scopes import Scope
from tests.api.support import Api
from tests.audit.test_actor_kind import rechain
from tests.factories import make_table, make_user

pytestmark = pytest.mark.django_db


def _night() -> tuple[Any, dict[str, Any]]:
    table = make_table(players=2)
    cashier = make_user("Cash")
    services.house_member_add(
        scope=Scope.of(table.event), by=table.house, member=cashier, role="cashier"
    )
    services.payment_mark(registration_id=table.rid(table.players[0]), by=cashier, paid=True)
    document = Api(table.house).get(f"/api/events/{table.event.pk}/audit/").json()
    return table, document


def test_house_entries_name_the_role_and_no_other_entry_does() -> None:
    _, document = _night()
    entries = document["entries"]
    assert verify(document).ok
    for entry in entries:
        assert ("actor_role" in entry) == (entry["actor_kind"] == "house"), entry
    assert entries[0]["action"] == "event_created" and entries[0]["actor_role"] == "owner"
    paid = [e for e in entries if e["action"] == "payment_marked"]
    assert [(e["actor"], e["actor_role"]) for e in paid] == [("House: Cash", "cashier")]


def test_an_export_from_before_roles_still_verifies_as_json_and_as_csv() -> None:
    _, document = _night()
    before = copy.deepcopy(document)
    for entry in before["entries"]:
        entry.pop("actor_role", None)
    rechain(before)
    before.pop("head", None)  # the head signed the chain as it is now
    assert verify(before).ok, verify(before).problem

    text = io.StringIO()
    writer = csv.writer(text)
    writer.writerow(CSV_COLUMNS_WITHOUT_ROLES + CSV_HEAD_COLUMNS)
    for entry in before["entries"]:
        row = [
            json.dumps(entry[c]) if c == "details" else ("" if entry[c] is None else entry[c])
            for c in CSV_COLUMNS_WITHOUT_ROLES
        ]
        writer.writerow([*row, "", ""])
    verdict = verify_csv(text.getvalue())
    assert verdict.ok, verdict.problem


def test_the_verifier_refuses_a_role_forged_or_moved() -> None:
    _, document = _night()
    house = next(i for i, e in enumerate(document["entries"]) if e["actor_kind"] == "house")
    player = next(i for i, e in enumerate(document["entries"]) if e["actor_kind"] == "player")

    edited = copy.deepcopy(document)
    edited["entries"][house]["actor_role"] = "director"
    assert "hash does not match" in (verify(edited).problem or "")

    for index, role in ((house, "boss"), (player, "owner")):
        edited = copy.deepcopy(document)
        edited["entries"][index]["actor_role"] = role
        rechain(edited)
        edited.pop("head", None)
        problem = verify(edited).problem or ""
        assert f"Entry seq {index + 1}: actor_role {role!r}" in problem, problem
