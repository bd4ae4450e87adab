"""docs/rules.md sections 1.3 and 1.4: the three formats and their numbers."""

from __future__ import annotations

import datetime

import pytest

from cards.models import CardState, DealtCard, Offer
from events import services
from events.errors import HandLocked, Invalid, OutOfOrder, WrongPhase
from events.formats import FORMATS, Format
from events.models import Event, GameResult
from tests.events.support import actions, last
from tests.factories import make_table, make_user
from tests.refusals import refused


@pytest.mark.django_db
@pytest.mark.parametrize(
    ("format", "offered", "keep"), [("league", 3, 1), ("switch", 5, 3)], ids=["league", "switch"]
)
def test_it_offers_the_starting_cards_of_the_format(format, offered, keep):
    """League: choose one of three face-down cards. Switch: choose three of five face-down cards."""
    table = make_table(format, players=2, start=True)
    for player in table.players:
        (offer,) = Offer.objects.filter(registration=table.registration(player))
        assert offer.kind == "starting"
        assert offer.keep == keep
        assert offer.face_down
        cards = list(offer.cards.all())
        assert len(cards) == offered
        assert all(card.face_down and card.state == CardState.OFFERED for card in cards)


@pytest.mark.django_db
def test_it_gives_standard_v1_no_starting_selection():
    """Events created under Standard v1 retain six earned cards, no starting selection, six
    games."""
    table = make_table("standard-v1", players=2, start=True)
    assert not Offer.objects.filter(registration__event=table.event).exists()
    assert "starting_offer_dealt" not in actions(table.event)
    answer = table.report(table.players[0], 1, "loss")
    assert answer.game == 1
    assert len(table.kept(table.players[0])) == 1


@pytest.mark.django_db
@pytest.mark.parametrize(
    ("format", "games", "kept", "after_last"),
    [
        ("league", 6, 7, HandLocked),  # the wild is revealed: cards are locked
        ("switch", 4, 7, HandLocked),
        ("standard-v1", 6, 6, OutOfOrder),
    ],
    ids=["league", "switch", "standard-v1"],
)
def test_it_earns_one_card_from_each_game_of_the_format(format, games, kept, after_last):
    """League: earn one card from each of six league games; Switch: from each of four qualifying
    games; Standard v1: six games, six cards. All players (League, Switch) finish with seven
    playable cards."""
    table = make_table(format, players=2, start=True)
    player = table.players[0]
    table.play_out(player, "wlwlwl")
    registration = table.registration(player)
    assert GameResult.objects.filter(registration=registration).count() == games
    assert len(table.kept(player)) == kept
    indicators = DealtCard.objects.filter(registration=registration, state=CardState.INDICATOR)
    assert indicators.count() == (0 if format == "standard-v1" else 1)  # not an eighth card
    # Bracket games, and any game past the last, are not entered.
    error = refused(after_last, table.event, lambda: table.report(player, games + 1, "loss"))
    assert error.status == 409


@pytest.mark.django_db
@pytest.mark.parametrize(
    ("format", "reserve"),
    [("league", 15), ("switch", 13), ("standard-v1", 12)],
    ids=["league", "switch", "standard-v1"],
)
def test_it_reserves_the_format_cards_per_place(format, reserve):
    """League reserves 15 drawn cards per place; Switch reserves 13; Standard v1 12
    (docs/rules.md section 1.3)."""
    table = make_table(format, players=2, start=True)
    assert last(table.event, "event_started").details["reserve_per_place"] == reserve


@pytest.mark.django_db
def test_it_knows_only_the_three_machine_names():
    """Their machine names (commands, exports, API) are league, switch and standard-v1."""
    house = make_user("House", staff=True)
    for name in ("League", "holdem", "standard", "six-card", ""):
        with pytest.raises(Invalid):
            services.event_create(
                by=house, name="Night", date=datetime.date(2026, 12, 3), format=name
            )
    assert not Event.objects.exists()
    for name in ("league", "switch", "standard-v1"):
        services.event_create(by=house, name="Night", date=datetime.date(2026, 12, 3), format=name)
    assert sorted(Event.objects.values_list("format", flat=True)) == [
        "league",
        "standard-v1",
        "switch",
    ]


@pytest.mark.django_db
def test_it_lets_house_change_the_format_until_the_start():
    """Formats are chosen per event, editable until the start."""
    table = make_table("league", players=2)
    services.event_update(event_id=table.event.pk, by=table.house, changes={"format": "switch"})
    assert last(table.event, "event_updated").details == {
        "changes": {"format": ["league", "switch"]}
    }
    table.start()
    table.refresh()
    assert table.event.format == "switch"
    offer = Offer.objects.filter(registration=table.registration(table.players[0])).get()
    assert (offer.keep, offer.cards.count()) == (3, 5)
    refused(
        WrongPhase,
        table.event,
        lambda: services.event_update(
            event_id=table.event.pk, by=table.house, changes={"format": "standard-v1"}
        ),
    )


@pytest.mark.parametrize(
    ("name", "reserve", "kept"),
    [("league", 15, 7), ("switch", 13, 7), ("standard-v1", 12, 6)],
)
def test_the_reserve_and_the_hand_derive_from_the_shape(name, reserve, kept):
    """Reserve = starting offer + games x the larger of a Win's offer and a Loss's deal."""
    rules = FORMATS[name]
    assert rules.reserve == rules.offered + rules.games * max(rules.win_offered, rules.loss_dealt)
    assert (rules.reserve, rules.kept) == (reserve, kept)


@pytest.mark.parametrize(
    ("shape", "problem"),
    [
        ({"offered": 3, "starting": 4}, "keeps 4 of 3 starting cards"),
        ({"offered": 3, "starting": 0}, "a starting offer keeps at least one card"),
        ({"games": 0}, "plays at least one game"),
        ({"win_offered": 1, "win_kept": 2, "loss_dealt": 2}, "a Win keeps 2 of 1"),
        ({"loss_dealt": 2}, "a Loss deals as many cards as a Win keeps"),
        ({"win_kept": 2, "loss_dealt": 2, "win_offered": 3}, "a Win keeps one card"),
    ],
)
def test_a_shape_that_breaks_the_rules_is_refused(shape, problem):
    """Every complete hand has one size, and a Win's choice keeps some of what it offers."""
    given = {"offered": 3, "starting": 1, "games": 6, **shape}
    with pytest.raises(ValueError, match=problem):
        Format(name="odd", label="Odd", automatic_reveal=True, **given)
