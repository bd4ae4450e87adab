"""`result_submit`: a loss keeps one card, a win offers two face up (docs/rules.md section 5)."""

from __future__ import annotations

from functools import partial

import pytest

from cards.models import CardState, DealtCard
from events import services
from events.errors import (
    HandLocked,
    Invalid,
    NotAllowed,
    NotFound,
    OutOfOrder,
    PendingChoice,
    ReasonRequired,
    WrongPhase,
)
from events.models import GameResult
from tests.events.support import head, last, new_entries, next_position, pending_offer
from tests.factories import make_table
from tests.refusals import refused


def _ready(format: str = "league", players: int = 2):
    table = make_table(format, players=players, start=True)
    for player in table.players:
        if format != "standard-v1":
            table.choose_start(player)
    return table


@pytest.mark.django_db
def test_it_accepts_a_result_automatically():
    """Results are accepted automatically. Optional opponent and score fields help verification
    against Scoreholio."""
    table = _ready()
    player = table.players[0]
    answer = table.report(player, 1, "loss", opponent="Team Blue", score="21-15")
    result = GameResult.objects.get(registration=table.registration(player))
    assert (result.game, result.outcome, result.original_outcome) == (1, "loss", "loss")
    assert (result.opponent, result.score, result.assisted) == ("Team Blue", "21-15", False)
    assert answer.game == 1
    submitted = last(table.event, "result_submitted")
    assert submitted.actor == submitted.player == table.registration(player).label
    assert submitted.details == {
        "game": 1,
        "result": "loss",
        "opponent": "Team Blue",
        "score": "21-15",
        "assisted": False,
    }
    assert submitted.reason is None


@pytest.mark.django_db
def test_a_win_offers_its_cards_for_the_result_that_earned_them():
    """A win deals two cards face up: the offer belongs to the accepted result."""
    table = _ready()
    player = table.players[0]
    table.report(player, 1, "loss")
    table.report(player, 2, "win", opponent="Team Red", score="21-9")
    result = GameResult.objects.get(registration=table.registration(player), game=2)
    assert (result.outcome, result.opponent, result.score) == ("win", "Team Red", "21-9")
    offer = result.offer
    assert offer.registration == table.registration(player)
    assert sorted(offer.cards.values_list("state", flat=True)) == [CardState.OFFERED] * 2


@pytest.mark.django_db
def test_it_accepts_only_the_next_game_number():
    """Submit your own results in game order: the next game number only (1..G in order)."""
    table = _ready()
    player = table.players[0]
    for game in (2, 7):  # skipping the first game, or far ahead
        error = refused(OutOfOrder, table.event, partial(table.report, player, game, "loss"))
        assert error.status == 409
    table.report(player, 1, "loss")
    for game in (1, 3):  # a repeat, a skip
        refused(OutOfOrder, table.event, partial(table.report, player, game, "win"))
    table.report(player, 2, "loss")
    for game in (1, 2, 4):  # going back, a repeat, a skip
        refused(OutOfOrder, table.event, partial(table.report, player, game, "loss"))
    table.report(player, 3, "loss")


@pytest.mark.django_db
def test_it_refuses_a_game_after_the_last_one():
    """... the next game number only (1..G in order): there is no game G + 1."""
    table = make_table("standard-v1", players=2, start=True)
    player = table.players[0]
    table.play_out(player)  # Standard v1: no automatic reveal, the hand stays open
    refused(OutOfOrder, table.event, lambda: table.report(player, 7, "loss"))


@pytest.mark.django_db
def test_it_refuses_a_game_number_below_one():
    """Game numbers run 1..G."""
    table = _ready()
    for game in (0, -1, True):
        refused(Invalid, table.event, partial(table.report, table.players[0], game, "loss"))


@pytest.mark.django_db
def test_it_takes_only_win_or_loss():
    """The player submits Win or Loss."""
    table = _ready()
    for outcome in ("draw", "WIN", ""):
        refused(Invalid, table.event, partial(table.report, table.players[0], 1, outcome))


@pytest.mark.django_db
def test_it_deals_one_kept_card_for_a_loss():
    """Loss: Receive one card automatically."""
    table = _ready()
    player = table.players[0]
    position = next_position(table.event)
    before = head(table.event)
    answer = table.report(player, 1, "loss")
    card = DealtCard.objects.get(registration=table.registration(player), position=position)
    assert (card.state, card.kept_source, card.kept_index, card.face_down) == (
        CardState.KEPT,
        "loss",
        1,
        False,
    )
    assert answer.card == card.card
    assert next_position(table.event) == position + 1
    assert pending_offer(table, player) is None
    written = new_entries(table.event, before)
    assert [e.action for e in written] == ["result_submitted", "card_kept"]
    assert written[1].details == {
        "card": {"card": card.card, "shoe": "stock", "position": position},
        "source": "loss",
        "game": 1,
    }


@pytest.mark.django_db
def test_it_deals_two_face_up_cards_for_a_win():
    """Win: Select one of two face-up cards, then confirm to keep it."""
    table = _ready()
    player = table.players[0]
    position = next_position(table.event)
    answer = table.report(player, 1, "win")
    offer = pending_offer(table, player)
    assert offer is not None
    assert (offer.kind, offer.keep, offer.face_down) == ("win", 1, False)
    cards = list(offer.cards.order_by("slot"))
    assert [c.position for c in cards] == [position, position + 1]
    assert all(c.state == CardState.OFFERED and not c.face_down for c in cards)
    assert answer.offered == [c.card for c in cards]
    assert len(table.kept(player)) == 1  # nothing kept until the choice is confirmed
    dealt = last(table.event, "win_cards_dealt")
    assert dealt.details == {
        "game": 1,
        "cards": [{"card": c.card, "shoe": "stock", "position": c.position} for c in cards],
    }


@pytest.mark.django_db
def test_it_refuses_a_submission_while_a_choice_is_pending():
    """Finish a pending card selection before the next submission."""
    table = _ready()
    player = table.players[0]
    table.report(player, 1, "win")
    error = refused(PendingChoice, table.event, lambda: table.report(player, 2, "loss"))
    assert error.status == 409
    table.choose_win(player)
    table.report(player, 2, "loss")


@pytest.mark.django_db
def test_it_lets_house_submit_a_result_with_a_logged_reason():
    """House can assist with a logged reason."""
    table = _ready()
    player = table.players[0]
    rid = table.rid(player)
    error = refused(
        ReasonRequired,
        table.event,
        lambda: services.result_submit(
            registration_id=rid, by=table.house, game=1, outcome="loss", reason="   "
        ),
    )
    assert error.status == 400
    services.result_submit(
        registration_id=rid, by=table.house, game=1, outcome="loss", reason="Player's phone died."
    )
    result = GameResult.objects.get(registration_id=rid, game=1)
    assert result.assisted
    submitted = last(table.event, "result_submitted")
    assert (submitted.actor, submitted.reason) == ("House: House", "Player's phone died.")
    assert submitted.details["assisted"] is True
    kept = last(table.event, "card_kept")
    assert kept.details["source"] == "house"  # kept through a House action
    assert DealtCard.objects.get(registration_id=rid, kept_index=1).kept_source == "house"


@pytest.mark.django_db
def test_it_refuses_a_house_submission_while_a_choice_is_pending():
    """Finish a pending card selection before the next submission (House included)."""
    table = _ready()
    player = table.players[0]
    table.report(player, 1, "win")
    refused(
        PendingChoice,
        table.event,
        lambda: services.result_submit(
            registration_id=table.rid(player), by=table.house, game=2, outcome="loss", reason="x"
        ),
    )


@pytest.mark.django_db
def test_it_refuses_results_for_another_players_registration():
    """Submit your own results (another player's registration is not found)."""
    table = _ready()
    first, second = table.players
    error = refused(
        NotFound,
        table.event,
        lambda: services.result_submit(
            registration_id=table.rid(first), by=second, game=1, outcome="loss"
        ),
    )
    assert error.status == 404


@pytest.mark.django_db
def test_it_refuses_results_before_the_start():
    """House starts the event; results come after."""
    table = make_table("standard-v1", players=2)
    refused(WrongPhase, table.event, lambda: table.report(table.players[0], 1, "loss"))


@pytest.mark.django_db
def test_it_refuses_house_only_actions_to_players():
    """Every House action ... a non-House user cannot call them."""
    table = _ready()
    first, second = table.players
    table.report(first, 1, "loss")
    calls = {
        "result_correct own": lambda: services.result_correct(
            registration_id=table.rid(first), by=first, game=1, outcome="win", reason="r"
        ),
        "review_open own": lambda: services.review_open(
            registration_id=table.rid(first), by=first, reason="r"
        ),
        "pool_confirm": lambda: services.pool_confirm(event_id=table.event.pk, by=first),
        "event_finalize": lambda: services.event_finalize(event_id=table.event.pk, by=first),
        "registration_close": lambda: services.registration_close(
            event_id=table.event.pk, by=first
        ),
        "wild_reveal": lambda: services.wild_reveal(registration_id=table.rid(first), by=first),
        "access_reset": lambda: services.access_reset(
            registration_id=table.rid(second), by=first, reason="r"
        ),
    }
    for call in calls.values():
        error = refused((NotAllowed, NotFound), table.event, call)  # 403, or 404 (no leak)
        assert error.status in (403, 404)


@pytest.mark.django_db
def test_it_refuses_a_player_acting_on_another_players_registration():
    """Another player cannot act on your registration (not allowed, or not found: no leak)."""
    table = _ready()
    first, second = table.players
    table.report(first, 1, "loss")
    for call in (
        lambda: services.result_correct(
            registration_id=table.rid(first), by=second, game=1, outcome="win", reason="r"
        ),
        lambda: services.review_open(registration_id=table.rid(first), by=second, reason="r"),
        lambda: services.player_withdraw(registration_id=table.rid(first), by=second, reason="r"),
        lambda: services.win_choice_confirm(registration_id=table.rid(first), by=second, slot=0),
    ):
        refused((NotAllowed, NotFound), table.event, call)


@pytest.mark.django_db
def test_it_earns_no_card_after_the_hand_is_locked():
    """After the reveal the player's cards and wild are locked."""
    table = make_table("switch", players=2, start=True)
    player = table.players[0]
    table.play_out(player)
    refused(HandLocked, table.event, lambda: table.report(player, 5, "loss"))
