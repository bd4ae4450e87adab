"""The wild reveal: automatic in League and Switch, `wild_reveal` by House one player at a time in
Standard v1 (docs/rules.md section 3)."""

from __future__ import annotations

from functools import partial

import pytest

from cards.models import CardState, DealtCard, Shoe, Shuffle
from events import services
from events.answers import WildRevealed
from events.errors import (
    HandLocked,
    NotAllowed,
    NotComplete,
    PlayerIsWithdrawn,
    PlayerPaused,
    WrongPhase,
)
from tests.events.support import (
    REASON,
    entries,
    head,
    last,
    new_entries,
    next_position,
    play,
    reference_shoe,
)
from tests.factories import make_table
from tests.refusals import refused


@pytest.mark.django_db
@pytest.mark.parametrize("format", ["league", "switch"])
def test_it_reveals_the_wild_automatically_when_the_hand_is_complete(format):
    """Your wild reveals automatically after the system verifies your starting selection, every
    required accepted game, all card choices and seven kept cards."""
    table = make_table(format, players=2, start=True)
    player = table.players[0]
    table.play_out(player)
    registration = table.registration(player)
    indicator = DealtCard.objects.get(registration=registration, state=CardState.INDICATOR)
    assert indicator.shoe.kind == "house"
    assert indicator.position == 0
    assert indicator.kept_index is None  # it is not an eighth playable card
    assert len(table.kept(player)) == 7
    assert registration.wild_rank == indicator.card[0]
    revealed = last(table.event, "wild_revealed")
    assert registration.revealed_at is not None
    revealed_at = registration.revealed_at.isoformat(timespec="microseconds")
    assert revealed_at.replace("+00:00", "Z") == revealed.at
    assert revealed.actor == "system"
    assert revealed.player == registration.label
    assert revealed.details == {
        "indicator": {"card": indicator.card, "shoe": "house", "position": 0},
        "wild_rank": indicator.card[0],
    }
    seed = bytes(Shuffle.objects.get(event=table.event).seed)
    house = Shoe.objects.get(event=table.event, kind="house")
    assert indicator.card == reference_shoe(house.decks, seed, b"house")[0]


@pytest.mark.django_db
def test_it_does_not_wait_for_other_players_or_a_house_button():
    """You do not wait for other players or a House reveal button."""
    table = make_table("switch", players=3, start=True)
    first = table.players[0]
    table.play_out(first)
    assert table.registration(first).wild_rank
    assert [table.registration(p).wild_rank for p in table.players[1:]] == ["", ""]


@pytest.mark.django_db
def test_it_does_not_reveal_before_the_last_card_is_kept():
    """... all card choices and seven kept cards (a pending choice on the last game waits)."""
    table = make_table("switch", players=2, start=True)
    player = table.players[0]
    play(table, player, "lllw")
    assert "wild_revealed" not in [e.action for e in entries(table.event)]
    assert not table.registration(player).wild_rank
    before = head(table.event)
    table.choose_win(player, 0)
    written = new_entries(table.event, before)
    assert [e.action for e in written] == ["win_choice_confirmed", "card_kept", "wild_revealed"]
    assert len({e.at for e in written}) == 1  # in the same transaction as the last kept card


@pytest.mark.django_db
def test_it_does_not_reveal_while_a_review_is_pending():
    """A pending review must be resolved first."""
    table = make_table("switch", players=2, start=True)
    player = table.players[0]
    play(table, player, "lllw")
    review = services.review_open(registration_id=table.rid(player), by=table.house, reason=REASON)
    table.choose_win(player, 1)  # complete, but paused
    assert len(table.kept(player)) == 7
    assert not table.registration(player).wild_rank
    assert next_position(table.event, "house") == 0
    services.review_resolve(review_id=review.review_id, by=table.house, reason="Checked.")
    assert table.registration(player).wild_rank
    assert last(table.event, "wild_revealed").actor == "system"


@pytest.mark.django_db
def test_it_deals_a_separate_indicator_to_each_player_in_order():
    """Each player receives a separate indicator from the House deck; indicators are dealt from
    its position 0 upward, one per player, at reveal."""
    table = make_table("switch", players=3, start=True)
    second, third, first = table.players[1], table.players[2], table.players[0]
    for player in (second, third, first):
        table.play_out(player)
    seed = bytes(Shuffle.objects.get(event=table.event).seed)
    house = reference_shoe(1, seed, b"house")
    for position, player in enumerate((second, third, first)):
        indicator = DealtCard.objects.get(
            registration=table.registration(player), state=CardState.INDICATOR
        )
        assert (indicator.shoe.kind, indicator.position) == ("house", position)
        assert indicator.card == house[position]
        assert table.registration(player).wild_rank == house[position][0]
    assert next_position(table.event, "house") == 3


@pytest.mark.django_db
def test_it_locks_the_cards_and_wild_after_the_reveal():
    """Your cards and wild are then locked."""
    table = make_table("switch", players=2, start=True)
    player = table.players[0]
    table.play_out(player, "lllw")
    rid = table.rid(player)
    refused(HandLocked, table.event, lambda: table.report(player, 5, "loss"))
    refused(HandLocked, table.event, lambda: table.choose_win(player, 0))
    refused(HandLocked, table.event, lambda: table.choose_start(player))
    refused(
        HandLocked,
        table.event,
        lambda: services.result_submit(
            registration_id=rid, by=table.house, game=5, outcome="loss", reason=REASON
        ),
    )
    refused(
        WrongPhase,  # no House reveal in League: and never a second wild
        table.event,
        lambda: services.wild_reveal(registration_id=rid, by=table.house),
    )


@pytest.mark.django_db
def test_it_never_reveals_a_withdrawn_players_wild():
    """... not withdrawn (League/Switch reveal automatically only for active players)."""
    table = make_table("switch", players=2, start=True)
    player = table.players[0]
    play(table, player, "lllw")
    services.player_withdraw(registration_id=table.rid(player), by=player)
    assert not table.registration(player).wild_rank
    assert next_position(table.event, "house") == 0


@pytest.mark.django_db
def test_it_leaves_standard_v1_wilds_to_house():
    """Standard v1: House reveals each complete, unpaused, non-withdrawn player individually."""
    table = make_table("standard-v1", players=2, start=True)
    first, second = table.players
    table.play_out(first)
    table.play_out(second)
    assert "wild_revealed" not in [e.action for e in entries(table.event)]
    answer = services.wild_reveal(registration_id=table.rid(second), by=table.house)
    registration = table.registration(second)
    assert answer == WildRevealed(registration_id=registration.pk, wild_rank=registration.wild_rank)
    revealed = last(table.event, "wild_revealed")
    assert (revealed.actor, revealed.player) == ("House: House", registration.label)
    assert revealed.details["indicator"]["position"] == 0
    assert revealed.details["indicator"]["shoe"] == "house"
    assert revealed.details["wild_rank"] == revealed.details["indicator"]["card"][0]
    assert not table.registration(first).wild_rank  # one player at a time


@pytest.mark.django_db
def test_it_refuses_a_standard_v1_reveal_for_an_incomplete_hand():
    """House reveals each complete ... player."""
    table = make_table("standard-v1", players=2, start=True)
    player, idle = table.players
    for game in range(1, 6):
        table.report(player, game, "loss")
    table.report(player, 6, "win")  # six results, but the last card is still to choose
    for who in (player, idle):
        error = refused(
            NotComplete,
            table.event,
            partial(services.wild_reveal, registration_id=table.rid(who), by=table.house),
        )
        assert error.status == 409


@pytest.mark.django_db
def test_it_refuses_a_standard_v1_reveal_while_the_player_is_paused():
    """House reveals each complete, unpaused ... player."""
    table = make_table("standard-v1", players=2, start=True)
    player = table.players[0]
    table.play_out(player)
    services.review_open(registration_id=table.rid(player), by=table.house, reason=REASON)
    refused(
        PlayerPaused,
        table.event,
        lambda: services.wild_reveal(registration_id=table.rid(player), by=table.house),
    )


@pytest.mark.django_db
def test_it_refuses_a_standard_v1_reveal_for_a_withdrawn_player():
    """House reveals each complete, unpaused, non-withdrawn player."""
    table = make_table("standard-v1", players=2, start=True)
    player = table.players[0]
    table.play_out(player)
    services.player_withdraw(registration_id=table.rid(player), by=player)
    refused(
        PlayerIsWithdrawn,
        table.event,
        lambda: services.wild_reveal(registration_id=table.rid(player), by=table.house),
    )


@pytest.mark.django_db
def test_it_reveals_a_standard_v1_wild_once():
    """After the reveal the player's cards and wild are locked."""
    table = make_table("standard-v1", players=2, start=True)
    player = table.players[0]
    table.play_out(player)
    services.wild_reveal(registration_id=table.rid(player), by=table.house)
    refused(
        HandLocked,
        table.event,
        lambda: services.wild_reveal(registration_id=table.rid(player), by=table.house),
    )
    refused(HandLocked, table.event, lambda: table.report(player, 7, "loss"))


@pytest.mark.django_db
def test_it_lets_only_house_reveal_a_standard_v1_wild():
    """Standard v1: House reveals (a player cannot reveal their own wild)."""
    table = make_table("standard-v1", players=2, start=True)
    player = table.players[0]
    table.play_out(player)
    refused(
        NotAllowed,
        table.event,
        lambda: services.wild_reveal(registration_id=table.rid(player), by=player),
    )
