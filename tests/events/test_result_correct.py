"""`result_correct`: House corrects a result; no card moves and the player is paused for review
(docs/rules.md section 8.2)."""

from __future__ import annotations

from functools import partial
from typing import Any

import pytest

from cards.models import DealtCard, Offer
from events import services
from events.errors import (
    Invalid,
    NotAllowed,
    NotFound,
    PlayerPaused,
    ReasonRequired,
)
from events.models import GameResult, Review
from tests.events.support import (
    REASON,
    correct,
    entries,
    head,
    last,
    new_entries,
    pending_offer,
    play,
)
from tests.factories import make_table
from tests.refusals import refused


def _cards(table) -> list[Any]:
    return list(DealtCard.objects.filter(shoe__event=table.event).order_by("pk").values())


@pytest.mark.django_db
def test_it_corrects_loss_to_win_without_dealing_or_offering_a_card():
    """A correction never deals, removes or re-offers a card ... Loss -> Win gives no choice."""
    table = make_table("league", players=2, start=True)
    player = table.players[0]
    play(table, player, "ll")
    cards, kept = _cards(table), table.kept(player)
    offers = Offer.objects.filter(registration__event=table.event).count()
    before = head(table.event)
    answer = correct(table, player, 2, "win")
    assert _cards(table) == cards  # nothing dealt, removed, or changed
    assert table.kept(player) == kept
    assert Offer.objects.filter(registration__event=table.event).count() == offers
    assert pending_offer(table, player) is None
    result = GameResult.objects.get(registration=table.registration(player), game=2)
    assert (result.outcome, result.original_outcome) == ("win", "loss")
    written = new_entries(table.event, before)
    assert [e.action for e in written] == ["result_corrected", "review_opened"]
    corrected, opened = written
    assert corrected.details == {"game": 2, "from": "loss", "to": "win"}
    assert (corrected.actor, corrected.reason) == ("House: House", REASON)
    assert opened.details == {"review": answer.review_id, "game": 2}
    assert opened.reason == REASON


@pytest.mark.django_db
def test_it_corrects_win_to_loss_without_removing_the_kept_card():
    """Exposed cards are never redrawn after a result correction; kept cards never change."""
    table = make_table("league", players=2, start=True)
    player = table.players[0]
    play(table, player, "wl")
    cards, kept = _cards(table), table.kept(player)
    correct(table, player, 1, "loss")
    assert _cards(table) == cards
    assert table.kept(player) == kept


@pytest.mark.django_db
def test_it_pauses_the_corrected_player_for_review():
    """House corrects the win/loss record and pauses the affected player for review."""
    table = make_table("league", players=2, start=True)
    player = table.players[0]
    play(table, player, "l")
    correct(table, player, 1, "win")
    assert table.registration(player).paused
    review = Review.objects.get(registration=table.registration(player))
    assert (review.corrected_from, review.corrected_to, review.reason) == ("loss", "win", REASON)
    assert review.resolved_at is None
    error = refused(PlayerPaused, table.event, lambda: table.report(player, 2, "loss"))
    assert error.status == 409


@pytest.mark.django_db
def test_it_requires_a_reason_for_a_correction():
    """House corrects a result (Win <-> Loss) with a reason."""
    table = make_table("league", players=2, start=True)
    player = table.players[0]
    play(table, player, "l")
    error = refused(ReasonRequired, table.event, lambda: correct(table, player, 1, "win", "  "))
    assert error.status == 400


@pytest.mark.django_db
def test_it_refuses_a_correction_that_changes_nothing_or_has_no_result():
    """House corrects a result (Win <-> Loss): there must be a result, and it must change."""
    table = make_table("league", players=2, start=True)
    player = table.players[0]
    play(table, player, "l")
    refused(Invalid, table.event, lambda: correct(table, player, 1, "loss"))
    refused(NotFound, table.event, lambda: correct(table, player, 2, "win"))


@pytest.mark.django_db
def test_it_lets_only_house_correct_a_result():
    """House corrects a result."""
    table = make_table("league", players=2, start=True)
    player, other = table.players
    play(table, player, "l")
    for by in (player, other):
        refused(
            (NotAllowed, NotFound),
            table.event,
            partial(
                services.result_correct,
                registration_id=table.rid(player),
                by=by,
                game=1,
                outcome="win",
                reason=REASON,
            ),
        )


@pytest.mark.django_db
def test_it_keeps_a_pending_choice_after_win_to_loss_for_the_player():
    """After Win -> Loss with a choice still pending, that choice stays and is still resolved
    (by the player ...)."""
    table = make_table("league", players=2, start=True)
    player = table.players[0]
    play(table, player, "lw")
    offer = pending_offer(table, player)
    assert offer is not None
    correct(table, player, 2, "loss")
    assert pending_offer(table, player) == offer
    assert table.registration(player).paused
    answer = table.choose_win(player, 1)
    assert answer.game == 2
    kept = DealtCard.objects.get(offer=offer, state="kept")
    assert (kept.slot, kept.kept_source) == (1, "win")
    assert len(table.kept(player)) == 3


@pytest.mark.django_db
def test_it_keeps_a_pending_choice_after_win_to_loss_for_house():
    """After Win -> Loss with a choice still pending, that choice stays and is still resolved
    (... or by House with a reason)."""
    table = make_table("league", players=2, start=True)
    player = table.players[0]
    play(table, player, "w")
    correct(table, player, 1, "loss")
    refused(
        ReasonRequired,
        table.event,
        lambda: services.win_choice_confirm(
            registration_id=table.rid(player), by=table.house, slot=0
        ),
    )
    services.win_choice_confirm(
        registration_id=table.rid(player), by=table.house, slot=0, reason="Abandoned."
    )
    assert last(table.event, "card_kept").details["source"] == "house"
    assert pending_offer(table, player) is None


@pytest.mark.django_db
def test_it_keeps_the_wild_when_correcting_after_the_reveal():
    """A correction after the reveal pauses the player but keeps the wild."""
    table = make_table("switch", players=2, start=True)
    player = table.players[0]
    table.play_out(player, "lwll")
    wild = table.registration(player).wild_rank
    assert wild
    cards = _cards(table)
    answer = correct(table, player, 2, "loss")
    registration = table.registration(player)
    assert registration.paused
    assert registration.wild_rank == wild
    services.review_resolve(review_id=answer.review_id, by=table.house, reason="Confirmed.")
    registration = table.registration(player)
    assert (registration.paused, registration.wild_rank) == (False, wild)
    assert _cards(table) == cards  # no second indicator, no card moved
    assert len(entries(table.event, "wild_revealed")) == 1


@pytest.mark.django_db
def test_it_keeps_the_original_result_in_the_history():
    """The original draws remain in the action history."""
    table = make_table("league", players=2, start=True)
    player = table.players[0]
    play(table, player, "wl")
    dealt = last(table.event, "win_cards_dealt").details
    correct(table, player, 1, "loss")
    result = GameResult.objects.get(registration=table.registration(player), game=1)
    assert (result.outcome, result.original_outcome) == ("loss", "win")
    submitted = [e.details for e in entries(table.event, "result_submitted")]
    assert {"game": 1, "result": "win"}.items() <= submitted[0].items()
    assert last(table.event, "win_cards_dealt").details == dealt
    assert [e.action for e in entries(table.event)][-2:] == ["result_corrected", "review_opened"]
