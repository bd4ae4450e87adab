"""`win_choice_confirm`: keep one of a win's two face-up cards; House resolves an abandoned choice
(docs/rules.md sections 5.3 and 5.4)."""

from __future__ import annotations

from functools import partial

import pytest

from cards.models import CardState
from events import services
from events.answers import WinChoiceConfirmed
from events.errors import Invalid, NotFound, NothingPending, OfferChanged, ReasonRequired
from tests.events.support import head, last, new_entries, next_position, pending_offer
from tests.factories import make_table
from tests.refusals import refused


def _won(format: str = "league"):
    """A started event whose first player won game 1 and has the two cards to choose from."""
    table = make_table(format, players=2, start=True)
    player = table.players[0]
    if format != "standard-v1":
        table.choose_start(player)
    table.report(player, 1, "win")
    offer = pending_offer(table, player)
    assert offer is not None
    return table, player, offer, list(offer.cards.order_by("slot"))


@pytest.mark.django_db
def test_it_keeps_the_selected_card_and_discards_the_other():
    """Win: two cards are dealt face up; the player selects one and confirms; the other is
    discarded."""
    table, player, offer, cards = _won()
    position = next_position(table.event)
    before = head(table.event)
    answer = table.choose_win(player, 1)
    other, kept = cards
    kept.refresh_from_db()
    other.refresh_from_db()
    assert answer == WinChoiceConfirmed(registration_id=table.rid(player), game=1, kept=kept.card)
    assert (kept.state, kept.kept_source, kept.kept_index) == (CardState.KEPT, "win", 1)
    assert (other.state, other.kept_index) == (CardState.DISCARDED, None)
    assert table.kept(player)[-1] == kept.card
    assert next_position(table.event) == position  # confirming deals nothing
    offer.refresh_from_db()
    assert offer.resolved_at is not None and not offer.resolved_by_house
    written = new_entries(table.event, before)
    assert [e.action for e in written] == ["win_choice_confirmed", "card_kept"]
    confirmed, card_kept = written
    assert confirmed.details == {
        "game": 1,
        "kept": {"card": kept.card, "shoe": "stock", "position": kept.position},
        "discarded": {"card": other.card, "shoe": "stock", "position": other.position},
        "by_house": False,
    }
    assert confirmed.reason is None
    assert card_kept.details == {
        "card": {"card": kept.card, "shoe": "stock", "position": kept.position},
        "source": "win",
        "game": 1,
    }


@pytest.mark.django_db
def test_it_lets_the_player_submit_again_after_confirming():
    """Finish a pending card selection before the next submission (then submit)."""
    table, player, _, _ = _won("standard-v1")
    table.choose_win(player, 0)
    table.report(player, 2, "loss")
    assert len(table.kept(player)) == 2


@pytest.mark.django_db
def test_it_refuses_a_choice_without_a_pending_win():
    """The player selects one (of the two face-up cards of a win) and confirms."""
    table = make_table("standard-v1", players=2, start=True)
    player = table.players[0]
    refused(NothingPending, table.event, lambda: table.choose_win(player, 0))
    table.report(player, 1, "loss")
    refused(NothingPending, table.event, lambda: table.choose_win(player, 0))


@pytest.mark.django_db
def test_it_refuses_a_win_choice_for_a_pending_starting_selection():
    """Win choices and starting selections are separate: a win choice cannot lock a start."""
    table = make_table("league", players=2, start=True)
    refused(NothingPending, table.event, lambda: table.choose_win(table.players[0], 0))


@pytest.mark.django_db
def test_it_refuses_a_card_that_was_not_offered():
    """Select one of two face-up cards."""
    table, player, _, _ = _won()
    for slot in (2, -1, True):
        refused(Invalid, table.event, partial(table.choose_win, player, slot))


@pytest.mark.django_db
def test_it_refuses_a_second_confirmation():
    """... then confirm to keep it (once)."""
    table, player, _, _ = _won()
    table.choose_win(player, 0)
    refused(NothingPending, table.event, lambda: table.choose_win(player, 1))


@pytest.mark.django_db
def test_it_refuses_another_player_choosing():
    """The player selects one (another player's choice is not theirs to make)."""
    table, player, _, _ = _won()
    other = table.players[1]
    refused(
        NotFound,
        table.event,
        lambda: services.win_choice_confirm(registration_id=table.rid(player), by=other, slot=0),
    )


@pytest.mark.django_db
def test_it_resolves_an_abandoned_choice_only_with_a_house_reason():
    """An abandoned winning choice requires a logged House selection with a reason."""
    table, player, offer, cards = _won()
    rid = table.rid(player)
    error = refused(
        ReasonRequired,
        table.event,
        lambda: services.win_choice_confirm(registration_id=rid, by=table.house, slot=1),
    )
    assert error.status == 400
    answer = services.win_choice_confirm(
        registration_id=rid, by=table.house, slot=1, reason="Player left the venue."
    )
    assert answer.kept == cards[1].card
    confirmed = last(table.event, "win_choice_confirmed")
    assert confirmed.actor == "House: House"
    assert confirmed.reason == "Player left the venue."
    assert confirmed.details["by_house"] is True
    assert last(table.event, "card_kept").details["source"] == "house"
    offer.refresh_from_db()
    assert offer.resolved_by_house
    cards[1].refresh_from_db()
    assert cards[1].kept_source == "house"


@pytest.mark.django_db
def test_a_keep_for_an_earlier_offer_is_refused():
    """A keep names the offer it answers: a tap made on game 1's two cards, sent after House
    settled them and game 2 dealt two others, keeps nothing."""
    table, player, first, _ = _won()
    services.win_choice_confirm(
        registration_id=table.rid(player), by=table.house, slot=0, reason="Player stepped out"
    )
    table.report(player, 2, "win")
    second = pending_offer(table, player)
    assert second is not None and second.pk != first.pk
    kept = table.kept(player)
    error = refused(
        OfferChanged,
        table.event,
        lambda: services.win_choice_confirm(
            registration_id=table.rid(player),
            by=player,
            slot=0,
            offer_id=first.pk,
            idempotency_key="tapped-offline-on-game-1",
        ),
    )
    assert error.code == "offer_changed"
    assert error.message == "That choice was for an earlier offer: look at your cards again."
    assert table.kept(player) == kept
    assert pending_offer(table, player) == second


@pytest.mark.django_db
def test_a_keep_that_names_its_offer_keeps_the_card():
    table, player, offer, cards = _won()
    answer = services.win_choice_confirm(
        registration_id=table.rid(player), by=player, slot=1, offer_id=offer.pk
    )
    assert answer.kept == cards[1].card
    assert table.kept(player)[-1] == cards[1].card


@pytest.mark.django_db
def test_a_keep_for_an_offer_already_settled_says_it_was_made_elsewhere():
    """With no offer pending, the choice was made in another tab or by House."""
    table, player, offer, _ = _won()
    table.choose_win(player, 0)
    refused(
        NothingPending,
        table.event,
        lambda: services.win_choice_confirm(
            registration_id=table.rid(player), by=player, slot=1, offer_id=offer.pk
        ),
    )
