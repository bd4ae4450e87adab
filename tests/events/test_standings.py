"""Running standings and final eligibility (docs/rules.md sections 6.6 and 6.7)."""

from __future__ import annotations

import pytest

from events import services
from events.progress import eligible, provisional_standings
from scoring.evaluator import evaluate_high, evaluate_low
from tests.events.support import REASON, play
from tests.factories import make_table


def _ranked(table) -> set[int]:
    standings = provisional_standings(table.event)
    high = {place.player for place in standings.high}
    assert {place.player for place in standings.low} == high
    return high


@pytest.mark.django_db
def test_it_starts_the_standings_with_the_first_kept_card():
    """Provisional High and Low standings begin with the first kept card."""
    table = make_table("league", players=2, start=True)
    first, second = table.players
    assert _ranked(table) == set()
    table.choose_start(first)
    assert _ranked(table) == {table.rid(first)}
    play(table, second, "")
    assert _ranked(table) == {table.rid(first), table.rid(second)}


@pytest.mark.django_db
def test_it_leaves_pending_choices_out_of_the_standings():
    """Pending card choices are excluded until a card is kept."""
    table = make_table("standard-v1", players=2, start=True)
    first, second = table.players
    play(table, first, "w")
    play(table, second, "l")
    assert _ranked(table) == {table.rid(second)}  # the first player holds no kept card yet
    table.choose_win(first, 0)
    standings = provisional_standings(table.event)
    place = next(p for p in standings.high if p.player == table.rid(first))
    assert place.value == evaluate_high(table.kept(first))


@pytest.mark.django_db
def test_it_leaves_paused_and_withdrawn_players_out_of_the_standings():
    """Withdrawn players and players paused for review are excluded from standings and awards."""
    table = make_table("league", players=3, start=True)
    paused, withdrawn, playing = table.players
    for player in table.players:
        play(table, player, "l")
    services.review_open(registration_id=table.rid(paused), by=table.house, reason=REASON)
    services.player_withdraw(registration_id=table.rid(withdrawn), by=withdrawn)
    assert _ranked(table) == {table.rid(playing)}


@pytest.mark.django_db
def test_it_applies_the_wild_only_after_the_reveal():
    """Wilds begin applying only after the indicator is revealed."""
    table = make_table("standard-v1", players=2, start=True)
    player = table.players[0]
    table.play_out(player)
    cards = table.kept(player)

    def value():
        standings = provisional_standings(table.event)
        return next(p.value for p in standings.high if p.player == table.rid(player))

    assert value() == evaluate_high(cards)
    services.wild_reveal(registration_id=table.rid(player), by=table.house)
    wild = table.registration(player).wild_rank
    assert value() == evaluate_high(cards, wild)
    low = next(
        p.value for p in provisional_standings(table.event).low if p.player == table.rid(player)
    )
    assert low == evaluate_low(cards)  # Low uses printed cards only


@pytest.mark.django_db
def test_it_ranks_provisional_places_by_competition_ranking():
    """Players tie when their values are equal; ties share a place (place = 1 + the number of
    players strictly better)."""
    table = make_table("league", players=3, start=True)
    for player in table.players:
        play(table, player, "ll")
    standings = provisional_standings(table.event)
    highs = {p.player: p.value for p in standings.high}
    for place in standings.high:
        assert place.place == 1 + sum(1 for v in highs.values() if v > place.value)
    lows = {p.player: p.value for p in standings.low}
    for place in standings.low:
        assert place.place == 1 + sum(1 for v in lows.values() if v < place.value)


@pytest.mark.django_db
def test_it_requires_everything_for_final_eligibility():
    """Final eligibility requires all required accepted games, seven kept cards, and a revealed
    House Wild; not withdrawn, not paused."""
    table = make_table("switch", players=4, start=True)
    complete, paused, withdrawn, short = table.players
    for player in (complete, paused, withdrawn):
        table.play_out(player)
    play(table, short, "lll")
    services.review_open(registration_id=table.rid(paused), by=table.house, reason=REASON)
    services.player_withdraw(registration_id=table.rid(withdrawn), by=withdrawn)
    assert [r.pk for r in eligible(table.event)] == [table.rid(complete)]
