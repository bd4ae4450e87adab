"""`review_resolve`: House resolves a review with a reason; the player resumes and the reveal check
runs (docs/rules.md section 8.3)."""

from __future__ import annotations

import pytest

from events import services
from events.errors import (
    NotAllowed,
    NotFound,
    ReasonRequired,
    WrongPhase,
)
from events.models import Review
from tests.events.support import correct, head, last, new_entries, play
from tests.factories import make_table
from tests.refusals import refused


@pytest.mark.django_db
def test_it_requires_a_reason_to_resolve_a_review():
    """House records a reason when resolving the review."""
    table = make_table("league", players=2, start=True)
    player = table.players[0]
    play(table, player, "l")
    review = correct(table, player, 1, "win").review_id
    refused(
        ReasonRequired,
        table.event,
        lambda: services.review_resolve(review_id=review, by=table.house, reason=" "),
    )
    assert table.registration(player).paused


@pytest.mark.django_db
def test_it_resumes_the_player_when_the_review_is_resolved():
    """House resolves a review with a reason."""
    table = make_table("league", players=2, start=True)
    player = table.players[0]
    play(table, player, "l")
    review_id = correct(table, player, 1, "win").review_id
    answer = services.review_resolve(
        review_id=review_id, by=table.house, reason="Scoreholio agrees."
    )
    assert answer.paused is False
    review = Review.objects.get(pk=review_id)
    assert review.resolution == "Scoreholio agrees."
    assert review.resolved_at is not None
    resolved = last(table.event, "review_resolved")
    assert resolved.details == {"review": review_id}
    assert (resolved.actor, resolved.reason) == ("House: House", "Scoreholio agrees.")
    table.report(player, 2, "loss")  # playing again
    refused(
        WrongPhase,
        table.event,
        lambda: services.review_resolve(review_id=review_id, by=table.house, reason="Again."),
    )


@pytest.mark.django_db
def test_it_keeps_the_player_paused_while_another_review_is_open():
    """The player is paused for review until House resolves it (every open review)."""
    table = make_table("league", players=2, start=True)
    player = table.players[0]
    play(table, player, "l")
    first = correct(table, player, 1, "win").review_id
    second = services.review_open(registration_id=table.rid(player), by=table.house, reason="Also")
    services.review_resolve(review_id=first, by=table.house, reason="Fine.")
    assert table.registration(player).paused
    services.review_resolve(review_id=second.review_id, by=table.house, reason="Fine too.")
    assert not table.registration(player).paused


@pytest.mark.django_db
def test_it_lets_only_house_resolve_a_review():
    """House resolves a review with a reason."""
    table = make_table("league", players=2, start=True)
    player = table.players[0]
    review = services.review_open(registration_id=table.rid(player), by=table.house, reason="x")
    refused(
        (NotAllowed, NotFound),
        table.event,
        lambda: services.review_resolve(review_id=review.review_id, by=player, reason="Mine."),
    )


@pytest.mark.django_db
def test_it_runs_the_reveal_check_after_the_review_is_resolved():
    """The reveal check runs after every accepted result, kept card and review resolution."""
    table = make_table("switch", players=2, start=True)
    player = table.players[0]
    play(table, player, "lllw")
    review = correct(table, player, 4, "loss").review_id
    table.choose_win(player, 0)  # the hand is complete, but the player is paused
    assert not table.registration(player).wild_rank
    before = head(table.event)
    services.review_resolve(review_id=review, by=table.house, reason="Checked.")
    written = new_entries(table.event, before)
    assert [e.action for e in written] == ["review_resolved", "wild_revealed"]
    assert written[1].actor == "system"
    assert table.registration(player).wild_rank
