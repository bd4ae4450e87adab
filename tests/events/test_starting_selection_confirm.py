"""`starting_selection_confirm`: the face-down starting offers, their confirmation and the cards
not kept (docs/rules.md sections 2.6 and 4)."""

from __future__ import annotations

from functools import partial

import pytest

from cards.models import CardState, DealtCard, Offer
from events import services
from events.answers import as_json
from events.errors import (
    Invalid,
    NotFound,
    NothingPending,
    ReasonRequired,
    StartingSelectionPending,
    WrongCount,
    WrongState,
)
from tests.events.support import entries, last, next_position, offer_cards, pending_offer
from tests.factories import make_table, make_user
from tests.refusals import refused


def _cards_in(details: object) -> list[dict]:
    """Every dealt card written anywhere in an entry's details."""
    found: list[dict] = []
    if isinstance(details, dict):
        if "position" in details:
            found.append(details)
        for value in details.values():
            found.extend(_cards_in(value))
    elif isinstance(details, list):
        for value in details:
            found.extend(_cards_in(value))
    return found


def pending_offer_or_last(table, player) -> Offer:
    return Offer.objects.filter(registration=table.registration(player), kind="starting").get()


@pytest.mark.django_db
def test_it_deals_the_starting_offers_at_the_start_in_check_in_order():
    """Offers are dealt at the start to the players then checked in, in check-in order."""
    table = make_table("league")
    ann, bob, cy = make_user("Ann"), make_user("Bob"), make_user("Cy")
    for player in (ann, bob, cy):
        table.register(player)
    for player in (cy, ann, bob):  # check-in order differs from registration order
        table.check_in(player)
    table.start()
    positions = {
        player: [c.position for c in offer_cards(pending_offer(table, player))]  # type: ignore[arg-type]
        for player in (ann, bob, cy)
    }
    assert positions == {cy: [0, 1, 2], ann: [3, 4, 5], bob: [6, 7, 8]}
    dealing = entries(table.event, "starting_offer_dealt")
    assert [entry.player for entry in dealing] == ["Cy", "Ann", "Bob"]
    assert dealing[0].details == {
        "cards": [{"shoe": "stock", "position": p} for p in (0, 1, 2)],
    }


@pytest.mark.django_db
def test_it_deals_a_late_participant_offer_at_check_in():
    """... and to a late participant at their check-in."""
    table = make_table("switch", players=2, start=True)
    first = table.players[0]
    table.choose_start(first)
    table.report(first, 1, "loss")  # dealt position 10
    late = table.join("Lou")
    offer = pending_offer(table, late)
    assert offer is not None
    assert offer.kind == "starting"
    assert [c.position for c in offer_cards(offer)] == [11, 12, 13, 14, 15]
    assert all(c.face_down for c in offer_cards(offer))
    entry = last(table.event, "starting_offer_dealt")
    assert entry.player == "Lou"
    assert entry.details == {"cards": [{"shoe": "stock", "position": p} for p in range(11, 16)]}


@pytest.mark.django_db
def test_it_shows_no_face_down_card_before_the_confirmation():
    """A face-down offer's dealing entry records only {"shoe": "stock", "position": n}; no
    response or audit entry shows their identity before the player confirms."""
    table = make_table("switch", players=2)
    answer = services.event_start(event_id=table.event.pk, by=table.house)
    assert set(as_json(answer)) == {"event_id", "decks", "supported_places", "commitment"}
    cards = DealtCard.objects.filter(registration__event=table.event)
    assert cards.count() == 10
    assert all(card.face_down for card in cards)
    for entry in entries(table.event):
        for card in _cards_in(entry.details):
            assert set(card) == {"shoe", "position"}, f"{entry.action} shows a face-down card"


@pytest.mark.django_db
@pytest.mark.parametrize(
    ("format", "wrong"),
    [("league", ([], [0, 1], [0, 1, 2])), ("switch", ([0], [0, 1], [0, 1, 2, 3]))],
    ids=["league", "switch"],
)
def test_it_locks_exactly_the_required_count(format, wrong):
    """Confirm to lock exactly the required count (League: one of three; Switch: three of five)."""
    table = make_table(format, players=2, start=True)
    player = table.players[0]
    for slots in wrong:
        error = refused(WrongCount, table.event, partial(table.choose_start, player, slots))
        assert error.status == 400
    assert pending_offer(table, player) is not None  # still pending, never re-dealt


@pytest.mark.django_db
def test_it_refuses_starting_cards_that_were_not_offered():
    """Tap to select or deselect, Confirm to lock (only offered cards, each once)."""
    table = make_table("switch", players=2, start=True)
    for slots in ([0, 0, 1], [-1, 0, 1], [0, 1, True]):
        refused(Invalid, table.event, partial(table.choose_start, table.players[0], slots))
    # A slot past this offer is a card another format offers: a refusal for the event's state.
    error = refused(
        WrongState, table.event, partial(table.choose_start, table.players[0], [0, 1, 5])
    )
    assert error.status == 409
    assert "numbered 0 to 4" in error.message
    assert pending_offer(table, table.players[0]) is not None


@pytest.mark.django_db
def test_it_reveals_every_offered_card_together_on_confirm():
    """Confirm to lock your selection and reveal all offered starting cards together."""
    table = make_table("switch", players=2, start=True)
    player = table.players[0]
    offer = pending_offer(table, player)
    assert offer is not None
    cards = offer_cards(offer)
    answer = table.choose_start(player, [0, 2, 4])
    assert answer.kept == [cards[0].card, cards[2].card, cards[4].card]
    assert answer.not_kept == [cards[1].card, cards[3].card]
    assert not any(c.face_down for c in offer_cards(offer))
    entry = last(table.event, "starting_selection_confirmed")
    assert entry.actor == entry.player == table.registration(player).label
    assert entry.details == {
        "kept": [
            {"card": c.card, "shoe": "stock", "position": c.position}
            for c in (cards[0], cards[2], cards[4])
        ],
        "not_kept": [
            {"card": c.card, "shoe": "stock", "position": c.position} for c in (cards[1], cards[3])
        ],
    }
    assert entry.reason is None


@pytest.mark.django_db
def test_it_marks_the_unselected_cards_not_kept():
    """The two unselected cards are marked Not kept ... They remain discarded."""
    table = make_table("league", players=2, start=True)
    player = table.players[0]
    offer = pending_offer(table, player)
    assert offer is not None
    table.choose_start(player, [1])
    cards = offer_cards(offer)
    assert [c.state for c in cards] == [CardState.NOT_KEPT, CardState.KEPT, CardState.NOT_KEPT]
    assert [c.kept_index for c in cards] == [None, 0, None]
    assert cards[1].kept_source == "start"
    assert table.kept(player) == [cards[1].card]
    offer.refresh_from_db()
    assert offer.resolved_at is not None


@pytest.mark.django_db
def test_it_keeps_each_starting_card_with_its_own_entry():
    """card_kept, one entry for every card that enters a player's hand (source "start")."""
    table = make_table("switch", players=2, start=True)
    player = table.players[0]
    table.choose_start(player, [4, 1, 3])
    kept = [c for c in offer_cards(pending_offer_or_last(table, player)) if c.state == "kept"]
    written = entries(table.event, "card_kept")
    assert [e.details for e in written] == [
        {
            "card": {"card": c.card, "shoe": "stock", "position": c.position},
            "source": "start",
            "game": None,
        }
        for c in sorted(kept, key=lambda c: c.kept_index or 0)
    ]
    assert [c.kept_index for c in sorted(kept, key=lambda c: c.slot)] == [0, 1, 2]


@pytest.mark.django_db
def test_it_never_returns_not_kept_cards_to_the_draw_pool():
    """They remain discarded and never return to the draw pool."""
    table = make_table("league", players=2, start=True)
    player = table.players[0]
    table.choose_start(player)
    assert next_position(table.event) == 6  # confirming deals and returns nothing
    not_kept = set(
        DealtCard.objects.filter(
            registration=table.registration(player), state=CardState.NOT_KEPT
        ).values_list("position", flat=True)
    )
    for game in range(1, 4):
        table.report(player, game, "loss")
    later = DealtCard.objects.filter(registration__event=table.event, position__gte=6)
    assert sorted(later.values_list("position", flat=True)) == [6, 7, 8]
    assert not_kept.isdisjoint(later.values_list("position", flat=True))
    assert (
        DealtCard.objects.filter(position__in=not_kept, registration__event=table.event)
        .exclude(state=CardState.NOT_KEPT)
        .count()
        == 0
    )


@pytest.mark.django_db
def test_it_refuses_a_second_confirmation():
    """Confirm to lock your selection (once locked, it stays)."""
    table = make_table("league", players=2, start=True)
    player = table.players[0]
    table.choose_start(player, [0])
    error = refused(NothingPending, table.event, lambda: table.choose_start(player, [1]))
    assert error.status == 409


@pytest.mark.django_db
def test_it_refuses_results_before_the_starting_selection():
    """Finish selecting your starting cards before submitting game results."""
    table = make_table("switch", players=2, start=True)
    error = refused(
        StartingSelectionPending, table.event, lambda: table.report(table.players[0], 1, "loss")
    )
    assert error.status == 409


@pytest.mark.django_db
def test_it_refuses_choosing_another_players_starting_cards():
    """The player confirms their own selection (another player's place is not found)."""
    table = make_table("league", players=2, start=True)
    first, second = table.players
    refused(
        NotFound,
        table.event,
        lambda: services.starting_selection_confirm(
            registration_id=table.rid(first), by=second, slots=[0]
        ),
    )


@pytest.mark.django_db
def test_it_lets_house_confirm_a_selection_with_a_reason():
    """House may ... make a choice for a player; a reason is required."""
    table = make_table("league", players=2, start=True)
    player = table.players[0]
    rid = table.rid(player)
    refused(
        ReasonRequired,
        table.event,
        lambda: services.starting_selection_confirm(
            registration_id=rid, by=table.house, slots=[2], reason=" "
        ),
    )
    services.starting_selection_confirm(
        registration_id=rid, by=table.house, slots=[2], reason="Phone battery died."
    )
    confirmed = last(table.event, "starting_selection_confirmed")
    assert (confirmed.actor, confirmed.reason) == ("House: House", "Phone battery died.")
    kept = last(table.event, "card_kept")
    assert kept.details["source"] == "house"
    card = DealtCard.objects.get(registration_id=rid, state=CardState.KEPT)
    assert (card.slot, card.kept_source) == (2, "house")


@pytest.mark.django_db
def test_it_lets_a_late_arrival_complete_the_starting_selection():
    """Late arrivals must complete all required games and selections."""
    table = make_table("league", players=2, start=True)
    late = table.join("Lou")
    refused(StartingSelectionPending, table.event, lambda: table.report(late, 1, "loss"))
    table.play_out(late)
    assert len(table.kept(late)) == 7
    assert table.registration(late).wild_rank != ""
