"""The rules' predicates (`events.play_rules`): what a player may do next, when a hand is complete,
what blocks a result or the finalization, and which House actions apply to a player. Pure
functions of plain facts: most tests need no database."""

from __future__ import annotations

import itertools
from dataclasses import replace

import pytest

from cards.models import OfferKind
from events import play_rules
from events.errors import (
    EventIsFinalized,
    HandLocked,
    NotCheckedIn,
    NotComplete,
    NothingPending,
    OutOfOrder,
    PendingChoice,
    PlayerIsWithdrawn,
    PlayerPaused,
    StartingSelectionPending,
    WrongPhase,
)
from events.formats import FORMATS, FormatName
from events.models import Phase, RegistrationStatus
from events.play_rules import PlayerFacts
from events.progress import progress_of
from house.read_model import house_page
from tests.factories import make_table

LEAGUE = FORMATS[FormatName.LEAGUE]
STANDARD = FORMATS[FormatName.STANDARD_V1]

# A League player between games: starting card chosen, two results in, nothing pending.
PLAYING = PlayerFacts(
    label="Ann",
    phase=Phase.STARTED,
    status=RegistrationStatus.CHECKED_IN,
    paused=False,
    wild_revealed=False,
    results=2,
    kept=3,
    starting_confirmed=True,
    pending=None,
    open_reviews=0,
)
DONE = replace(PLAYING, results=LEAGUE.games, kept=LEAGUE.kept)


def kind(refusal: object) -> type | None:
    return None if refusal is None else type(refusal)


def test_a_hand_is_complete_only_with_everything_in() -> None:
    assert play_rules.hand_complete(DONE, LEAGUE)
    for missing in (
        replace(DONE, starting_confirmed=False),
        replace(DONE, results=LEAGUE.games - 1),
        replace(DONE, kept=LEAGUE.kept - 1),
        replace(DONE, pending=OfferKind.WIN),
        replace(DONE, open_reviews=1),
    ):
        assert not play_rules.hand_complete(missing, LEAGUE), missing


@pytest.mark.parametrize(
    ("facts", "refusal"),
    [
        (PLAYING, None),
        (replace(PLAYING, phase=Phase.FINALIZED), EventIsFinalized),
        (replace(PLAYING, phase=Phase.OPEN), WrongPhase),
        (replace(PLAYING, status=RegistrationStatus.WITHDRAWN), PlayerIsWithdrawn),
        (replace(PLAYING, status=RegistrationStatus.REGISTERED), NotCheckedIn),
        (replace(PLAYING, wild_revealed=True), HandLocked),
        (replace(PLAYING, paused=True), PlayerPaused),
        (
            replace(PLAYING, starting_confirmed=False, pending=OfferKind.STARTING),
            StartingSelectionPending,
        ),
        (replace(PLAYING, pending=OfferKind.WIN), PendingChoice),
        (DONE, OutOfOrder),
    ],
)
def test_what_blocks_a_result(facts: PlayerFacts, refusal: type | None) -> None:
    assert kind(play_rules.result_refusal(facts, LEAGUE)) is refusal
    assert play_rules.may_submit_result(facts, LEAGUE) is (refusal is None)


def test_the_first_refusal_wins_in_the_services_order() -> None:
    everything = replace(
        PLAYING, phase=Phase.FINALIZED, status=RegistrationStatus.WITHDRAWN, paused=True
    )
    assert kind(play_rules.result_refusal(everything, LEAGUE)) is EventIsFinalized
    refusal = play_rules.result_refusal(DONE, LEAGUE)
    assert refusal is not None and refusal.message == "All 6 games are already reported."


def test_a_choice_needs_a_pending_offer_of_its_kind() -> None:
    win = replace(PLAYING, pending=OfferKind.WIN)
    start = replace(PLAYING, starting_confirmed=False, pending=OfferKind.STARTING, results=0)
    assert play_rules.may_choose_win(win) and not play_rules.may_choose_start(win)
    assert play_rules.may_choose_start(start) and not play_rules.may_choose_win(start)
    refusal = play_rules.choice_refusal(PLAYING, OfferKind.WIN)
    assert kind(refusal) is NothingPending
    assert refusal is not None and refusal.message == "There is no pending win choice."
    # A paused player still chooses the card of a win House is reviewing (docs/rules.md 5).
    assert play_rules.may_choose_win(replace(win, paused=True, open_reviews=1))
    assert kind(play_rules.choice_refusal(replace(win, wild_revealed=True), OfferKind.WIN)) is (
        HandLocked
    )


def test_what_stops_house_revealing_a_wild() -> None:
    done = replace(DONE, results=STANDARD.games, kept=STANDARD.kept)
    assert play_rules.reveal_refusal(done, STANDARD) is None
    assert kind(play_rules.reveal_refusal(DONE, LEAGUE)) is WrongPhase  # League reveals itself
    assert kind(play_rules.reveal_refusal(replace(done, wild_revealed=True), STANDARD)) is (
        HandLocked
    )
    assert kind(play_rules.reveal_refusal(replace(done, paused=True), STANDARD)) is PlayerPaused
    refusal = play_rules.reveal_refusal(replace(done, results=5, kept=5), STANDARD)
    assert kind(refusal) is NotComplete
    assert refusal is not None and refusal.message == "Ann's hand is not complete yet."


def test_a_wild_reveals_itself_only_for_a_complete_unpaused_hand_of_an_automatic_format() -> None:
    assert play_rules.reveals_now(DONE, LEAGUE)
    assert not play_rules.reveals_now(PLAYING, LEAGUE)
    assert not play_rules.reveals_now(replace(DONE, paused=True), LEAGUE)
    assert not play_rules.reveals_now(replace(DONE, wild_revealed=True), LEAGUE)
    assert not play_rules.reveals_now(replace(DONE, results=6, kept=6), STANDARD)


def test_the_finalization_blockers_name_the_player() -> None:
    assert play_rules.finalization_blockers(replace(DONE, wild_revealed=True), LEAGUE) == []
    assert play_rules.finalization_blockers(
        replace(PLAYING, pending=OfferKind.WIN, paused=True), LEAGUE
    ) == [
        "Ann has 2 of 6 results.",
        "Ann has a card choice pending.",
        "Ann has kept 3 of 7 cards.",
        "Ann is paused for House review.",
        "Ann has no revealed wild.",
    ]
    blockers = play_rules.finalization_blockers(
        replace(PLAYING, starting_confirmed=False, pending=OfferKind.STARTING, results=0, kept=0),
        LEAGUE,
    )
    assert blockers[0] == "Ann has not confirmed the starting selection."
    assert "Ann has a card choice pending." not in blockers


def actions(facts: PlayerFacts, **extra: object) -> set[str]:
    given = {"contribution": 10, "paid": False, "has_account": True, **extra}
    can = play_rules.house_actions(facts, LEAGUE, **given)  # type: ignore[arg-type]
    return {name for name in can.__dataclass_fields__ if getattr(can, name)}


def test_the_house_actions_that_apply_to_a_player() -> None:
    assert actions(PLAYING) == {"mark_paid", "submit", "correct", "pause", "withdraw", "reset"}
    assert actions(replace(PLAYING, pending=OfferKind.WIN)) == {
        "mark_paid",
        "choose_win",
        "correct",
        "pause",
        "withdraw",
        "reset",
    }
    registered = replace(PLAYING, phase=Phase.OPEN, status=RegistrationStatus.REGISTERED)
    assert actions(registered) == {"cancel", "mark_paid", "check_in", "reset"}
    assert actions(registered, contribution=0, has_account=False) == {"cancel", "check_in"}
    checked_in = replace(PLAYING, phase=Phase.OPEN, results=0, kept=0)
    assert actions(checked_in) == {"mark_paid", "undo", "reset"}
    no_show = replace(PLAYING, status=RegistrationStatus.NO_SHOW)
    assert actions(no_show) == {"add_back"}
    assert actions(no_show, paid=True) == {"add_back", "mark_paid"}
    assert actions(replace(DONE, phase=Phase.FINALIZED), paid=True) == {"reset"}


def every_player() -> list[PlayerFacts]:
    """Every combination of facts a player can be in, and some that cannot happen."""
    return [
        PlayerFacts("Ann", phase, status, paused, wild, results, kept, confirmed, pending, reviews)
        for phase, status, paused, wild, results, kept, confirmed, pending, reviews in (
            itertools.product(
                Phase.values,
                RegistrationStatus.values,
                (False, True),
                (False, True),
                (0, 5, 6),
                (0, 6, 7),
                (False, True),
                (None, OfferKind.STARTING, OfferKind.WIN),
                (0, 1),
            )
        )
    ]


def test_the_house_flags_are_the_services_refusals() -> None:
    """House is offered an action exactly when the service's guard lets it through."""
    for facts in every_player():
        can = play_rules.house_actions(facts, LEAGUE, contribution=10, paid=False, has_account=True)
        assert can.submit is (play_rules.result_refusal(facts, LEAGUE) is None)
        assert can.choose_win is (play_rules.choice_refusal(facts, OfferKind.WIN) is None)
        assert can.choose_start is (play_rules.choice_refusal(facts, OfferKind.STARTING) is None)
        assert can.reveal is (play_rules.reveal_refusal(facts, LEAGUE) is None)
        if play_rules.hand_complete(facts, LEAGUE):
            assert not (can.submit or can.choose_win or can.choose_start)


@pytest.mark.django_db
def test_house_and_the_engine_agree_when_a_hand_is_complete() -> None:
    """The House row, which reads the pending offer, and the engine's progress give one answer."""
    table = make_table("league", players=3, start=True)
    ann, bob, cy = table.players
    table.play_out(ann, "wlwlwl")
    table.choose_start(bob)
    table.win(bob, 1)
    rows = {row.registration_id: row for row in house_page(table.refresh()).players}
    for player, complete in ((ann, True), (bob, False), (cy, False)):
        registration = table.registration(player)
        progress = progress_of(registration)
        assert progress.complete(registration) is complete
        assert rows[registration.pk].complete is complete
        assert (
            play_rules.starting_confirmed(LEAGUE, progress.pending_kind)
            is progress.starting_confirmed
        )
