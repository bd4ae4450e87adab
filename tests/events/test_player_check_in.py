"""`player_check_in`: House checks players in, late entries included (docs/rules.md sections 9.3
and 9.4)."""

from __future__ import annotations

import pytest

from cards.models import Offer
from events import services
from events.errors import (
    LateEntryClosed,
    NoSupportedPlace,
    NotAllowed,
    NotCheckedIn,
    NotFound,
)
from tests.events.support import last
from tests.factories import make_table, make_user
from tests.refusals import refused


@pytest.mark.django_db
def test_it_lets_house_check_players_in():
    """Check in with House before playing. House checks them in."""
    table = make_table("league")
    ann = make_user("Ann")
    table.register(ann)
    services.player_check_in(registration_id=table.rid(ann), by=table.house)
    registration = table.registration(ann)
    assert registration.status == "checked_in"
    assert registration.checked_in_at is not None
    assert not registration.late
    entry = last(table.event, "player_checked_in")
    assert (entry.actor, entry.player) == ("House: House", "Ann")
    assert entry.details["late"] is False
    assert entry.details["added_by_house"] is False


@pytest.mark.django_db
def test_it_refuses_players_checking_in_without_house():
    """House checks them in (a player cannot check themself or another player in)."""
    table = make_table("league")
    ann, bob = make_user("Ann"), make_user("Bob")
    table.register(ann)
    table.register(bob)
    refused(
        NotAllowed,
        table.event,
        lambda: services.player_check_in(registration_id=table.rid(ann), by=ann),
    )
    # Another player's registration is not theirs to see at all.
    refused(
        NotFound,
        table.event,
        lambda: services.player_check_in(registration_id=table.rid(ann), by=bob),
    )


@pytest.mark.django_db
def test_it_lets_only_checked_in_players_play():
    """Only checked-in players play."""
    table = make_table("league", players=2)
    waiting = make_user("Wes")
    table.register(waiting)
    table.start()
    assert not Offer.objects.filter(registration=table.registration(waiting)).exists()
    refused(NotCheckedIn, table.event, lambda: table.report(waiting, 1, "loss"))
    refused(NotCheckedIn, table.event, lambda: table.choose_start(waiting))


@pytest.mark.django_db
def test_it_admits_a_late_entry_with_a_house_check_in():
    """Late entry after start: House check-in, a remaining supported place, and no accepted
    Round 2 result from anyone in the event."""
    table = make_table("league", players=2, start=True)
    table.choose_start(table.players[0])
    table.report(table.players[0], 1, "loss")  # a Round 1 result does not close late entry
    late = make_user("Lou")
    table.register(late)
    services.player_check_in(registration_id=table.rid(late), by=table.house)
    registration = table.registration(late)
    assert registration.status == "checked_in"
    assert registration.late
    assert last(table.event, "player_checked_in").details["late"] is True
    assert Offer.objects.filter(registration=registration, kind="starting").count() == 1


@pytest.mark.django_db
def test_it_refuses_a_late_entry_after_a_round_2_result():
    """Late entry requires ... no Round 2 results yet."""
    table = make_table("league", players=3, start=True)
    first = table.players[0]
    table.choose_start(first)
    table.report(first, 1, "loss")
    table.report(first, 2, "loss")
    late = make_user("Lou")
    table.register(late)  # registration is still open: two players have no first result
    error = refused(
        LateEntryClosed,
        table.event,
        lambda: services.player_check_in(registration_id=table.rid(late), by=table.house),
    )
    assert error.status == 409
    refused(
        LateEntryClosed,
        table.event,
        lambda: services.participant_add(
            event_id=table.event.pk, by=table.house, player=make_user("Max")
        ),
    )


@pytest.mark.django_db
def test_it_refuses_a_late_entry_without_a_remaining_supported_place():
    """Late entry requires House check-in, a remaining supported place ..."""
    # League, 2 players, no extra deck: 1 deck, floor(52 / 15) = 3 supported places.
    table = make_table("league", players=2, start=True, extra_decks=0)
    assert table.event.supported_places == 3
    table.join("Third")
    fourth = make_user("Fourth")
    table.register(fourth)
    refused(
        NoSupportedPlace,
        table.event,
        lambda: services.player_check_in(registration_id=table.rid(fourth), by=table.house),
    )
    refused(
        NoSupportedPlace,
        table.event,
        lambda: services.participant_add(event_id=table.event.pk, by=table.house, player=fourth),
    )
