"""`player_withdraw`: House withdraws a player, or a player leaves early
(docs/rules.md section 8.4)."""

from __future__ import annotations

import pytest

from cards.models import CardState, DealtCard
from events import answers, services
from events.errors import (
    NoSupportedPlace,
    NotFound,
    PlayerIsWithdrawn,
    ReasonRequired,
    WithdrawnCannotReturn,
)
from events.models import RegistrationStatus
from events.progress import provisional_standings
from tests.events.support import last, offer_cards, pending_offer, play
from tests.factories import make_table, make_user
from tests.refusals import refused


@pytest.mark.django_db
def test_it_lets_house_withdraw_a_player_with_a_reason():
    """House withdraws a player with a reason."""
    table = make_table("league", players=2, start=True)
    player = table.players[0]
    rid = table.rid(player)
    error = refused(
        ReasonRequired,
        table.event,
        lambda: services.player_withdraw(registration_id=rid, by=table.house, reason="  "),
    )
    assert error.status == 400
    answer = services.player_withdraw(registration_id=rid, by=table.house, reason="Injured.")
    assert answer == answers.PlayerWithdrawn(
        registration_id=rid, status=RegistrationStatus.WITHDRAWN
    )
    registration = table.registration(player)
    assert (registration.status, registration.withdrawn_at is not None) == ("withdrawn", True)
    entry = last(table.event, "player_withdrawn")
    assert (entry.actor, entry.player, entry.reason) == (
        "House: House",
        registration.label,
        "Injured.",
    )
    assert entry.details["by"] == "house"


@pytest.mark.django_db
def test_it_lets_a_player_withdraw_themself():
    """Leaving early is a self-withdrawal: the player is no longer eligible for either prize."""
    table = make_table("league", players=2, start=True)
    player = table.players[0]
    services.player_withdraw(registration_id=table.rid(player), by=player)
    assert table.registration(player).status == "withdrawn"
    entry = last(table.event, "player_withdrawn")
    assert entry.actor == table.registration(player).label
    assert entry.details["by"] == "self"


@pytest.mark.django_db
def test_it_refuses_a_player_withdrawing_someone_else():
    """A player withdraws themself (only themself)."""
    table = make_table("league", players=2, start=True)
    first, second = table.players
    refused(
        NotFound,
        table.event,
        lambda: services.player_withdraw(registration_id=table.rid(first), by=second),
    )


@pytest.mark.django_db
def test_it_voids_a_pending_starting_offer_and_reveals_it_in_the_entry():
    """It voids the player's pending offer: those cards are discarded, and face-down ones are
    revealed in the withdrawal's audit entry."""
    table = make_table("switch", players=2, start=True)
    player = table.players[0]
    offer = pending_offer(table, player)
    assert offer is not None
    services.player_withdraw(registration_id=table.rid(player), by=player)
    cards = offer_cards(offer)
    assert all(c.state == CardState.DISCARDED and not c.face_down for c in cards)
    offer.refresh_from_db()
    assert offer.voided_at is not None and offer.resolved_at is None
    assert last(table.event, "player_withdrawn").details["voided"] == [
        {"card": c.card, "shoe": "stock", "position": c.position} for c in cards
    ]
    assert table.kept(player) == []


@pytest.mark.django_db
def test_it_voids_a_pending_win_choice():
    """It voids the player's pending ... choice: those cards are discarded."""
    table = make_table("league", players=2, start=True)
    player = table.players[0]
    play(table, player, "lw")
    offer = pending_offer(table, player)
    assert offer is not None
    kept = table.kept(player)
    services.player_withdraw(registration_id=table.rid(player), by=table.house, reason="Left.")
    cards = offer_cards(offer)
    assert [c.state for c in cards] == [CardState.DISCARDED, CardState.DISCARDED]
    assert last(table.event, "player_withdrawn").details == {
        "by": "house",
        "voided": [{"card": c.card, "shoe": "stock", "position": c.position} for c in cards],
    }
    assert table.kept(player) == kept  # kept cards stay where they are
    assert pending_offer(table, player) is None


@pytest.mark.django_db
def test_it_makes_a_withdrawal_final():
    """Withdrawal is final."""
    table = make_table("league", players=2, start=True)
    player = table.players[0]
    rid = table.rid(player)
    services.player_withdraw(registration_id=rid, by=player)
    refused(
        PlayerIsWithdrawn,
        table.event,
        lambda: services.player_withdraw(registration_id=rid, by=table.house, reason="Again."),
    )
    refused(PlayerIsWithdrawn, table.event, lambda: table.choose_start(player))
    refused(PlayerIsWithdrawn, table.event, lambda: table.report(player, 1, "loss"))


@pytest.mark.django_db
@pytest.mark.parametrize("phase", ["open", "started"])
def test_withdrawn_players_cannot_return(phase):
    """Withdrawal is final: checking the player in again, House adding them as a late
    participant, registering again and checking in with the venue's code are each refused with
    their own code, not "already checked in", and change nothing."""
    table = make_table("league", players=3, start=phase == "started")
    player = table.players[0]
    rid = table.rid(player)
    services.player_withdraw(registration_id=rid, by=player)
    code = services.self_check_in_switch(event_id=table.event.pk, by=table.house, enabled=True).code
    assert code is not None
    returns = {
        "check-in": lambda: services.player_check_in(registration_id=rid, by=table.house),
        "late addition": lambda: services.participant_add(
            event_id=table.event.pk, by=table.house, player=player
        ),
        "registration": lambda: services.player_register(event_id=table.event.pk, by=player),
        "self check-in": lambda: services.self_check_in(
            event_id=table.event.pk, by=player, code=code, register=True
        ),
    }
    for way, call in returns.items():
        error = refused(WithdrawnCannotReturn, table.event, call)
        assert error.code == "withdrawn_cannot_return", way
        assert error.status == 409
        assert "withdrawn players cannot return" in error.message, way
        assert "already" not in error.message, way
    assert table.registration(player).status == RegistrationStatus.WITHDRAWN


@pytest.mark.django_db
def test_it_takes_a_withdrawn_player_out_of_the_standings():
    """A withdrawn player is out of standings and awards."""
    table = make_table("league", players=2, start=True)
    first, second = table.players
    play(table, first, "l")
    play(table, second, "l")
    assert {p.player for p in provisional_standings(table.event).high} == {
        table.rid(first),
        table.rid(second),
    }
    services.player_withdraw(registration_id=table.rid(first), by=first)
    standings = provisional_standings(table.event)
    assert [p.player for p in standings.high] == [table.rid(second)]
    assert [p.player for p in standings.low] == [table.rid(second)]


@pytest.mark.django_db
def test_it_keeps_the_contribution_of_a_withdrawn_player_in_the_pool():
    """A withdrawn player's contribution stays in the pool (withdrawals included)."""
    table = make_table("league", players=3, start=True, contribution=10)
    player = table.players[0]
    services.player_withdraw(registration_id=table.rid(player), by=player)
    services.registration_close(event_id=table.event.pk, by=table.house)
    answer = services.pool_confirm(event_id=table.event.pk, by=table.house)
    assert (answer.base, answer.pool) == (30, 30)
    assert last(table.event, "pool_confirmed").details["participants"] == 3


@pytest.mark.django_db
def test_it_keeps_a_withdrawn_player_in_a_supported_place():
    """A withdrawn player still occupies a supported place."""
    # League, 2 players, no extra deck: floor(52 / 15) = 3 supported places.
    table = make_table("league", players=2, start=True, extra_decks=0)
    third = table.join("Third")
    services.player_withdraw(registration_id=table.rid(third), by=third)
    fourth = make_user("Fourth")
    table.register(fourth)
    refused(
        NoSupportedPlace,
        table.event,
        lambda: services.player_check_in(registration_id=table.rid(fourth), by=table.house),
    )


@pytest.mark.django_db
def test_it_leaves_the_withdrawn_players_cards_as_they_are():
    """The original draws remain in the action history (a withdrawal moves no kept card)."""
    table = make_table("league", players=2, start=True)
    player = table.players[0]
    play(table, player, "ll")
    kept = list(
        DealtCard.objects.filter(registration=table.registration(player), state="kept").values()
    )
    services.player_withdraw(registration_id=table.rid(player), by=player)
    assert (
        list(
            DealtCard.objects.filter(registration=table.registration(player), state="kept").values()
        )
        == kept
    )
    assert last(table.event, "player_withdrawn").details["voided"] == []
