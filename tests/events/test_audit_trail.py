"""docs/rules.md section 10.3, as far as single actions go: one chained entry per state change, its
fields, who acted, and what an entry may never hold."""

from __future__ import annotations

import json
import re

import pytest
from django.db import DatabaseError, transaction

from audit.models import AuditEntry
from cards.models import CardState, DealtCard
from events import services
from tests.events.support import (
    GENESIS,
    REASON,
    actions,
    chain_hash,
    entries,
    head,
    last,
    new_entries,
    play,
)
from tests.factories import make_table


def _busy_table():
    """A small event that has seen most kinds of change."""
    table = make_table("league", players=3, start=True)
    first, second, third = table.players
    play(table, first, "wl")
    play(table, second, "lw")
    services.result_correct(
        registration_id=table.rid(first), by=table.house, game=1, outcome="loss", reason=REASON
    )
    services.player_withdraw(registration_id=table.rid(third), by=third)
    return table


ISO_UTC = re.compile(r"^\d{4}-\d{2}-\d{2}T\d{2}:\d{2}:\d{2}(\.\d{1,6})?Z$")


@pytest.mark.django_db
def test_it_chains_every_entry_to_the_one_before():
    """seq (1, 2, 3 ... per event), prev_hash, hash = sha256 hex of prev_hash + the canonical
    JSON (sorted keys, no spaces) of the entry without hash. The first entry's prev_hash is 64
    zeros."""
    table = _busy_table()
    written = entries(table.event)
    assert [e.seq for e in written] == list(range(1, len(written) + 1))
    previous = GENESIS
    for entry in written:
        assert entry.prev_hash == previous
        assert entry.hash == chain_hash(entry)
        previous = entry.hash
    other = make_table("switch")
    assert entries(other.event)[0].seq == 1  # per event
    assert entries(other.event)[0].prev_hash == GENESIS


@pytest.mark.django_db
def test_it_stamps_each_entry_in_iso_8601_utc():
    """at (ISO 8601 UTC), stored as the exact string that was hashed."""
    table = _busy_table()
    for entry in entries(table.event):
        assert ISO_UTC.match(entry.at), entry.at
    stamps = [e.at for e in entries(table.event)]
    assert stamps == sorted(stamps)


@pytest.mark.django_db
def test_it_names_who_acted():
    """actor (display name or "House: <name>" or "system"); player (the player's public label,
    unique within the event, or null)."""
    table = make_table("league")
    ann, ann2 = table.join("Ann"), table.join("Ann")
    table.start()
    table.choose_start(ann2)
    services.starting_selection_confirm(
        registration_id=table.rid(ann), by=table.house, slots=[0], reason="Phone died."
    )
    for player in (ann, ann2):
        play(table, player, "l")
    confirmations = entries(table.event, "starting_selection_confirmed")
    assert [(e.actor, e.player) for e in confirmations] == [
        ("Ann", "Ann #2"),  # the display name acts; the label names the player
        ("House: House", "Ann"),
    ]
    closed = last(table.event, "registration_closed")
    assert (closed.actor, closed.player) == ("system", None)
    assert last(table.event, "event_started").player is None


@pytest.mark.django_db
def test_it_records_the_house_reason_and_no_reason_for_players():
    """reason (text or null)."""
    table = _busy_table()
    for entry in entries(table.event):
        if entry.action in ("result_corrected", "review_opened"):
            assert entry.reason == REASON
        elif not entry.actor.startswith("House: "):
            assert entry.reason is None, entry.action


@pytest.mark.django_db
def test_it_writes_all_entries_of_a_change_in_its_transaction():
    """Every state change writes one audit entry in the same database transaction."""
    table = make_table("league", players=2, start=True)
    player = table.players[0]
    table.choose_start(player)
    before = head(table.event)
    table.report(player, 1, "loss")
    written = new_entries(table.event, before)
    assert [e.action for e in written] == ["result_submitted", "card_kept"]
    assert len({e.at for e in written}) == 1


@pytest.mark.django_db
def test_it_refuses_to_update_or_delete_an_entry():
    """Audit rows are append-only: the database refuses UPDATE and DELETE on them."""
    table = make_table("league", players=2, start=True)
    entry = entries(table.event)[0]
    with pytest.raises(DatabaseError), transaction.atomic():
        AuditEntry.objects.filter(pk=entry.pk).update(actor="someone else")
    with pytest.raises(DatabaseError), transaction.atomic():
        AuditEntry.objects.filter(pk=entry.pk).delete()
    assert AuditEntry.objects.get(pk=entry.pk).actor == entry.actor


@pytest.mark.django_db
def test_it_never_writes_an_email_or_password():
    """The public audit never holds an email, password, session ..."""
    table = _busy_table()
    text = json.dumps([e.as_dict() for e in entries(table.event)])
    for user in [table.house, *table.players]:
        assert user.email not in text
        assert user.password not in text
    assert "@" not in text


@pytest.mark.django_db
def test_it_writes_every_dealt_card_with_its_shoe_and_position():
    """Every dealt card appears in some entry's details as {"card": "As", "shoe": "stock" |
    "house", "position": 17}."""
    table = make_table("switch", players=3, start=True)
    first, second, third = table.players
    table.play_out(first, "wlwl")
    play(table, second, "lw")
    services.player_withdraw(registration_id=table.rid(third), by=third)  # reveals the offer
    written: list[dict] = []

    def collect(value: object) -> None:
        if isinstance(value, dict):
            if {"card", "shoe", "position"} <= set(value):
                written.append({k: value[k] for k in ("card", "shoe", "position")})
            for inner in value.values():
                collect(inner)
        elif isinstance(value, list):
            for inner in value:
                collect(inner)

    for entry in entries(table.event):
        collect(entry.details)
    dealt = DealtCard.objects.filter(shoe__event=table.event).select_related("shoe")
    # Offers 5 x 3; first: two wins, two losses; second: a loss and a pending win; one indicator.
    assert dealt.count() == 5 * 3 + (2 * 2 + 2) + (1 + 2) + 1
    for card in dealt:
        assert {"card": card.card, "shoe": card.shoe.kind, "position": card.position} in written


@pytest.mark.django_db
def test_it_writes_card_kept_for_every_card_that_enters_a_hand():
    """card_kept, one entry for every card that enters a player's hand (details: card, source
    "start" | "loss" | "win" | "house")."""
    table = make_table("league", players=2, start=True)
    first, second = table.players
    table.play_out(first, "wlllwl")
    services.starting_selection_confirm(
        registration_id=table.rid(second), by=table.house, slots=[1], reason="Helped."
    )
    play(table, second, "w")
    services.win_choice_confirm(
        registration_id=table.rid(second), by=table.house, slot=1, reason="Walked off."
    )
    kept = DealtCard.objects.filter(registration__event=table.event, state=CardState.KEPT).order_by(
        "pk"
    )
    written = entries(table.event, "card_kept")
    assert len(written) == kept.count() == 7 + 2
    by_position = {e.details["card"]["position"]: e for e in written}
    for card in kept:
        entry = by_position[card.position]
        assert entry.details["card"] == {
            "card": card.card,
            "shoe": "stock",
            "position": card.position,
        }
        assert entry.details["source"] == card.kept_source
        assert entry.player == card.registration.label
    sources = [e.details["source"] for e in written]
    assert sources[:7] == ["start", "win", "loss", "loss", "loss", "win", "loss"]
    assert sources[7:] == ["house", "house"]


@pytest.mark.django_db
def test_it_describes_the_start_for_the_verifier():
    """event_started (details: decks, house_decks, reserve_per_place, supported_places,
    commitment)."""
    table = make_table("switch", players=2, start=True)
    details = last(table.event, "event_started").details
    assert {"decks", "house_decks", "reserve_per_place", "supported_places", "commitment"} <= set(
        details
    )
    assert re.fullmatch(r"[0-9a-f]{64}", details["commitment"])
    assert all(isinstance(details[k], int) for k in ("decks", "house_decks", "supported_places"))


@pytest.mark.django_db
def test_it_records_every_lifecycle_step_in_the_audit():
    """Every state change writes one audit entry in the same database transaction."""
    table = make_table("league", players=2, start=True)
    assert actions(table.event) == [
        "event_created",
        "house_member_added",
        "registration_opened",
        "player_registered",
        "player_checked_in",
        "player_registered",
        "player_checked_in",
        "event_started",
        "starting_offer_dealt",
        "starting_offer_dealt",
    ]
