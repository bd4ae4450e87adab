"""A dealt card links to the game result that dealt it: a loss card, a win's two cards."""

from __future__ import annotations

import importlib

import pytest
from django.db import connection

from cards.models import CardState, DealtCard, Offer, OfferKind, pending_offer
from events import services
from events.models import GameResult, Review
from tests.factories import make_table

pytestmark = pytest.mark.django_db


def test_it_links_loss_and_win_cards_to_their_result_and_no_other_card() -> None:
    table = make_table("league", players=2, start=True)
    ann = table.players[0]
    table.choose_start(ann)
    table.report(ann, 1, "loss")
    offered = table.report(ann, 2, "win").offered
    table.choose_win(ann, slot=1)
    registration = table.registration(ann)
    loss, win = GameResult.objects.filter(registration=registration).order_by("game")

    assert list(loss.dealt_cards.values_list("state", flat=True)) == [CardState.KEPT]
    assert [c.card for c in win.dealt_cards.order_by("slot")] == offered
    assert {c.state for c in win.dealt_cards.all()} == {CardState.KEPT, CardState.DISCARDED}
    starting = DealtCard.objects.filter(registration=registration, offer__kind=OfferKind.STARTING)
    assert starting.count() == 3 and not starting.filter(result__isnull=False).exists()


def test_the_wild_indicator_belongs_to_no_result() -> None:
    table = make_table("league", players=2, start=True)
    ann = table.players[0]
    table.play_out(ann)

    cards = DealtCard.objects.filter(registration=table.registration(ann))

    assert cards.get(state=CardState.INDICATOR).result_id is None
    assert cards.filter(result__game=6).count() == 1


def test_pending_offers_and_open_reviews_are_named_once() -> None:
    table = make_table("league", players=3, start=True)
    ann, bob, cal = table.players
    table.choose_start(ann)
    table.report(ann, 1, "win")  # pending win choice
    table.choose_start(bob)  # resolved starting offer
    services.player_withdraw(registration_id=table.rid(cal), by=table.house, reason="Left")

    pending = Offer.objects.pending()

    assert list(pending.values_list("registration_id", "kind")) == [(table.rid(ann), "win")]
    assert {o.pk for o in Offer.objects.all() if o.pending} == {o.pk for o in pending}
    assert set(DealtCard.objects.filter(pending_offer(via="offer__"))) == set(
        DealtCard.objects.filter(offer__in=pending)
    )

    services.review_open(registration_id=table.rid(bob), by=table.house, reason="Row 1")
    first = Review.objects.get()
    services.review_resolve(review_id=first.pk, by=table.house, reason="Fine")
    services.review_open(registration_id=table.rid(bob), by=table.house, reason="Row 2")

    assert [r.reason for r in Review.objects.open()] == ["Row 2"]
    assert [r.reason for r in table.registration(bob).reviews.open()] == ["Row 2"]


def test_the_migration_links_cards_dealt_before_the_link_existed() -> None:
    """The migration's backfill finds a win's cards through their offer and a loss card through
    the audit entry that recorded it kept."""
    link = importlib.import_module("cards.migrations.0003_dealt_card_result").LINK_DEALT_CARDS
    table = make_table("league", players=2, start=True)
    ann, bob = table.players
    for player in (ann, bob):
        table.choose_start(player)
        table.report(player, 1, "loss")
        table.report(player, 2, "win")
        table.choose_win(player, slot=0)
    linked = dict(DealtCard.objects.values_list("pk", "result_id"))
    assert sum(result is not None for result in linked.values()) == 6
    DealtCard.objects.update(result=None)

    with connection.cursor() as cursor:
        cursor.execute(link)

    assert dict(DealtCard.objects.values_list("pk", "result_id")) == linked
