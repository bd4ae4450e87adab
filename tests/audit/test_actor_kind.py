"""The audit records who acted as a structured `actor_kind` that no display name can fake."""

from __future__ import annotations

import copy
from typing import Any

import pytest

from accounts.models import User
from audit.chain import entry_hash
from audit.verify import verify
from tests.api.support import Api
from tests.factories import make_table, make_user

pytestmark = pytest.mark.django_db


def impostor(name: str) -> User:
    """An account whose stored name reads as the system or House (set before the name rules, or
    straight into the database): the forms refuse such names today."""
    user = make_user("Ann")
    User.objects.filter(pk=user.pk).update(display_name=name)
    user.refresh_from_db()
    return user


def entries(table: Any) -> list[dict[str, Any]]:
    document = Api(table.house).get(f"/api/events/{table.event.pk}/audit/").json()
    return list(document["entries"])


def test_a_player_named_like_house_or_the_system_is_recorded_as_a_player() -> None:
    table = make_table(players=1)
    fake_house, fake_system = impostor("House: Dealer"), impostor("system")
    for user in (fake_house, fake_system):
        assert Api(user).post(f"/api/events/{table.event.pk}/register/").status_code == 201
    written = entries(table)
    registered = [e for e in written if e["action"] == "player_registered"][-2:]
    assert [(e["actor"], e["actor_kind"]) for e in registered] == [
        ("House: Dealer", "player"),
        ("system", "player"),
    ]
    # House's own entries say so, whatever House is called.
    house = [e for e in written if e["action"] == "player_checked_in"]
    assert {(e["actor"], e["actor_kind"]) for e in house} == {("House: House", "house")}


def test_the_system_closing_registration_is_recorded_as_the_system() -> None:
    table = make_table(players=2, start=True)
    for player in table.players:
        table.choose_start(player)
        table.report(player, 1, "loss")
    closed = [e for e in entries(table) if e["action"] == "registration_closed"]
    assert [(e["actor"], e["actor_kind"]) for e in closed] == [("system", "system")]


def test_every_entry_has_a_kind_and_the_chain_covers_it() -> None:
    table = make_table(players=2, start=True)
    written = entries(table)
    assert {e["actor_kind"] for e in written} <= {"system", "house", "player"}
    for entry in written:
        without_hash = {key: value for key, value in entry.items() if key != "hash"}
        assert entry_hash(without_hash) == entry["hash"]


def rechain(document: dict[str, Any]) -> None:
    prev = "0" * 64
    for entry in document["entries"]:
        entry["prev_hash"] = prev
        entry.pop("hash")
        entry["hash"] = prev = entry_hash(entry)


def test_the_verifier_refuses_a_kind_changed_after_the_fact() -> None:
    table = make_table(players=1)
    player = impostor("House: Dealer")
    Api(player).post(f"/api/events/{table.event.pk}/register/")
    document = Api(table.house).get(f"/api/events/{table.event.pk}/audit/").json()
    assert verify(document).ok
    registered = next(
        e for e in document["entries"] if e["actor"] == "House: Dealer" and e["actor_kind"]
    )

    edited = copy.deepcopy(document)
    index = document["entries"].index(registered)
    edited["entries"][index]["actor_kind"] = "house"
    assert "hash does not match" in (verify(edited).problem or "")

    # Re-chained, a House kind still needs a "House: <name>" actor; a system kind "system".
    for kind, actor in (("house", "Ann"), ("system", "Ann"), ("admin", "House: Dealer")):
        edited = copy.deepcopy(document)
        edited["entries"][index].update(actor_kind=kind, actor=actor)
        rechain(edited)
        verdict = verify(edited)
        assert not verdict.ok
        assert f"Entry seq {registered['seq']}" in (verdict.problem or "")

    # Dropping the kind from one entry, once entries carry kinds, is refused too.
    edited = copy.deepcopy(document)
    del edited["entries"][index]["actor_kind"]
    rechain(edited)
    assert "has no actor_kind" in (verify(edited).problem or "")
