"""The engine's hand-written statements (`events.store`): typed rows, and one definition of a
player's progress that agrees with the ORM's reading of the same rows."""

from __future__ import annotations

import pytest
from django.utils import timezone

from cards.models import CardState, DealtCard, Offer, OfferKind, Shoe
from events import services, store
from events.models import GameResult, Outcome, Registration, Review
from events.progress import Progress, progress_of, progress_of_many
from tests.factories import Table, make_table

pytestmark = pytest.mark.django_db


def counted_by_the_orm(registration: Registration) -> store.ProgressRow:
    """The same counts, read through the models and their queryset methods."""
    return store.ProgressRow(
        results=GameResult.objects.filter(registration=registration).count(),
        kept=DealtCard.objects.filter(registration=registration, state=CardState.KEPT).count(),
        starting_resolved=Offer.objects.filter(
            registration=registration, kind=OfferKind.STARTING, resolved_at__isnull=False
        ).exists(),
        pending_offer=Offer.objects.pending().filter(registration=registration).exists(),
        open_reviews=Review.objects.open().filter(registration=registration).count(),
    )


def varied(players: int = 6) -> Table:
    """A started League event whose players stand at different places."""
    table = make_table("league", players=players, start=True)
    bob, cal, dee = table.players[1:4]
    table.choose_start(bob)
    table.report(bob, 1, "win")  # a win choice pending
    table.choose_start(cal)
    table.report(cal, 1, "loss")
    table.report(cal, 2, "loss")
    services.review_open(registration_id=table.rid(cal), by=table.house, reason="Row 2")
    table.play_out(dee, "lwllww")  # complete, wild revealed
    # The sixth leaves: their starting offer is voided, neither pending nor resolved.
    services.player_withdraw(
        registration_id=table.rid(table.players[5]), by=table.house, reason="Ill"
    )
    return table  # ann: the starting selection pending; the fifth has not started either


def test_every_players_progress_agrees_with_the_orm() -> None:
    table = varied()
    registrations = list(Registration.objects.filter(event=table.event))

    many = store.progress_of_many(event_id=table.event.pk)

    assert set(many) == {r.pk for r in registrations}
    for registration in registrations:
        expected = counted_by_the_orm(registration)
        assert many[registration.pk] == expected
        assert store.progress_of(registration_id=registration.pk) == expected
        found = store.player_with_progress(event_id=table.event.pk, registration_id=registration.pk)
        assert found is not None and found.registration == registration
        assert found.progress == expected
    # The rows differ from player to player, so the comparison above means something.
    assert len({many[r.pk] for r in registrations}) == 5


def test_the_progress_rows_are_typed_and_progress_follows_from_them() -> None:
    table = varied()
    dee = table.registration(table.players[3])
    row = store.progress_of(registration_id=dee.pk)

    assert isinstance(row, store.ProgressRow)
    assert row == store.ProgressRow(
        results=6, kept=7, starting_resolved=True, pending_offer=False, open_reviews=0
    )
    progress = Progress.of(row, table.event.rules)
    assert progress.complete_for(table.event.rules)
    assert progress_of(dee) == progress
    assert progress_of_many(table.event, [dee]) == {dee.pk: progress}


def test_a_players_progress_is_not_confirmed_while_the_starting_offer_waits() -> None:
    table = varied()
    ann = table.registration(table.players[0])

    progress = progress_of(ann)

    assert not progress.starting_confirmed and progress.pending_offer
    assert store.progress_of(registration_id=ann.pk).starting_resolved is False


def test_a_deal_returns_typed_rows_and_the_progress_after_what_it_wrote() -> None:
    table = varied()
    cal = table.registration(table.players[2])
    before = store.progress_of(registration_id=cal.pk)

    dealt = store.deal(
        event_id=table.event.pk,
        shoe="stock",
        count=2,
        registration_id=cal.pk,
        state=CardState.OFFERED,
        dealt_at=timezone.now(),
        result=store.NewResult(game=3, outcome="win", opponent="", score="", assisted=False),
        offer=store.NewOffer(kind="win", keep=1, face_down=False, reminder_due_at=None),
    )

    assert dealt is not None
    assert [type(card) for card in dealt.cards] == [store.DealtRow, store.DealtRow]
    assert [card.slot for card in dealt.cards] == [0, 1]
    assert dealt.cards[1].position == dealt.cards[0].position + 1
    # Read in the statement that wrote them, yet counting the result and the offer it wrote.
    assert dealt.progress == store.progress_of(registration_id=cal.pk)
    assert dealt.progress == counted_by_the_orm(cal)
    assert dealt.progress.results == before.results + 1 and dealt.progress.pending_offer
    assert dealt.result_id is not None and dealt.offer_id is not None
    result = GameResult.objects.get(pk=dealt.result_id)
    assert (result.registration_id, result.game, result.outcome) == (cal.pk, 3, Outcome.WIN)
    offer = Offer.objects.get(pk=dealt.offer_id)
    assert offer.result_id == result.pk and offer.pending
    stored = DealtCard.objects.filter(pk__in=[card.id for card in dealt.cards])
    assert {(card.offer_id, card.result_id) for card in stored} == {(offer.pk, result.pk)}
    assert [card.card for card in stored.order_by("slot")] == [c.card for c in dealt.cards]


def test_a_deal_straight_into_the_hand_counts_the_kept_card() -> None:
    table = varied()
    cal = table.registration(table.players[2])
    before = store.progress_of(registration_id=cal.pk)

    dealt = store.deal(
        event_id=table.event.pk,
        shoe="stock",
        count=1,
        registration_id=cal.pk,
        state=CardState.KEPT,
        dealt_at=timezone.now(),
        kept_index=before.kept,
        kept_source="loss",
        result=store.NewResult(game=3, outcome="loss", opponent="", score="", assisted=False),
    )

    assert dealt is not None and dealt.offer_id is None
    assert dealt.progress == before._replace(results=before.results + 1, kept=before.kept + 1)
    assert dealt.progress == store.progress_of(registration_id=cal.pk)


def test_a_deal_past_the_end_of_the_shoe_deals_and_writes_nothing() -> None:
    table = varied()
    cal = table.registration(table.players[2])
    shoe = Shoe.objects.get(event=table.event, kind="stock")
    results, cards = GameResult.objects.count(), DealtCard.objects.count()

    dealt = store.deal(
        event_id=table.event.pk,
        shoe="stock",
        count=shoe.size - shoe.next_position + 1,
        registration_id=cal.pk,
        state=CardState.OFFERED,
        dealt_at=timezone.now(),
        result=store.NewResult(game=3, outcome="win", opponent="", score="", assisted=False),
        offer=store.NewOffer(kind="win", keep=1, face_down=False, reminder_due_at=None),
    )

    assert dealt is None
    assert (GameResult.objects.count(), DealtCard.objects.count()) == (results, cards)
    assert not Offer.objects.pending().filter(registration=cal).exists()
    assert Shoe.objects.get(pk=shoe.pk).next_position == shoe.next_position


def test_the_pending_choice_is_read_with_its_cards_in_slot_order() -> None:
    table = varied()
    bob = table.registration(table.players[1])

    choice = store.pending_choice(registration_id=bob.pk)

    assert choice is not None
    offer = Offer.objects.pending().get(registration=bob)
    assert (choice.id, choice.kind, choice.keep, choice.game) == (offer.pk, "win", 1, 1)
    assert choice.in_hand == 1
    assert [card.slot for card in choice.cards] == [0, 1]
    assert all(isinstance(card, DealtCard) for card in choice.cards)
    assert store.pending_choice(registration_id=table.rid(table.players[3])) is None


def test_only_checked_in_players_without_a_first_result_hold_registration_open() -> None:
    table = varied()
    assert store.waiting_for_a_first_result(event_id=table.event.pk)  # ann and the fifth

    for player in (table.players[0], table.players[4]):
        table.choose_start(player)
        table.report(player, 1, "loss")

    assert not store.waiting_for_a_first_result(event_id=table.event.pk)
