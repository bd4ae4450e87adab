"""Idempotency keys (docs/rules.md section 11.1): a retry with the same key returns the first
answer, refusals included, and changes nothing; the same key with different content is refused
(422); keys belong to one user."""

from __future__ import annotations

from typing import Any

import pytest

from accounts.models import User
from events import answers, services
from events.answers import PoolConfirmed, WinChoiceConfirmed
from events.errors import (
    DomainError,
    IdempotencyConflict,
    OutOfOrder,
    PendingChoice,
    PoolLocked,
    ReasonRequired,
)
from events.models import (
    GameResult,
    IdempotencyRecord,
)
from staff.scopes import Scope
from tests.events.support import REASON, play
from tests.factories import Table, make_table, make_user
from tests.refusals import refused, unchanged

pytestmark = pytest.mark.django_db


@pytest.fixture
def table() -> Table:
    """A started League event with three players who have chosen their starting card."""
    table = make_table("league", players=3, start=True)
    for player in table.players:
        table.choose_start(player)
    return table


def submit(
    table: Table, player: User, game: int, outcome: str, key: str | None, **extra: str
) -> answers.ResultSubmitted:
    return services.result_submit(
        registration_id=table.rid(player),
        by=player,
        game=game,
        outcome=outcome,
        idempotency_key=key,
        **extra,
    )


def refusal(call: Any) -> DomainError:
    with pytest.raises(DomainError) as caught:
        call()
    return caught.value


def test_a_retry_returns_the_original_answer_and_changes_nothing(table: Table) -> None:
    ann = table.players[0]
    first = submit(table, ann, 1, "loss", "ann-game-1", opponent="Bob", score="21-15")
    with unchanged(table.event):
        again = submit(table, ann, 1, "loss", "ann-game-1", opponent="Bob", score="21-15")

        assert again == first
    assert table.kept(ann)[1] == first.card
    assert IdempotencyRecord.objects.filter(user=ann, key="ann-game-1").count() == 1


def test_a_retried_win_choice_returns_the_card_first_kept(table: Table) -> None:
    ann = table.players[0]
    offered = submit(table, ann, 1, "win", "ann-win-1").offered
    assert offered is not None
    chosen = services.win_choice_confirm(
        registration_id=table.rid(ann), by=ann, slot=1, idempotency_key="ann-choice-1"
    )
    with unchanged(table.event):
        again = services.win_choice_confirm(
            registration_id=table.rid(ann), by=ann, slot=1, idempotency_key="ann-choice-1"
        )

        assert (
            again
            == chosen
            == WinChoiceConfirmed(registration_id=table.rid(ann), game=1, kept=offered[1])
        )
    assert table.kept(ann)[1:] == [offered[1]]


def test_a_retried_house_action_changes_nothing(table: Table) -> None:
    services.registration_close(event_id=table.event.pk, by=table.house)
    first = services.pool_confirm(
        event_id=table.event.pk,
        by=table.house,
        adjustments=[(-10, "Refund: Ann's partner left")],
        idempotency_key="confirm-pool",
    )
    with unchanged(table.event):
        again = services.pool_confirm(
            event_id=table.event.pk,
            by=table.house,
            adjustments=[(-10, "Refund: Ann's partner left")],
            idempotency_key="confirm-pool",
        )

        assert again == first == PoolConfirmed(event_id=table.event.pk, pool=20, base=30)
    # Without the key the same request is a new one, refused because the pool is locked.
    with pytest.raises(PoolLocked):
        services.pool_confirm(
            event_id=table.event.pk, by=table.house, adjustments=[(-10, "Refund")]
        )


def test_a_refusal_is_replayed_with_the_same_code_even_when_it_would_now_succeed(
    table: Table,
) -> None:
    ann = table.players[0]
    early = refusal(lambda: submit(table, ann, 2, "loss", "too-early"))
    assert isinstance(early, OutOfOrder)
    submit(table, ann, 1, "loss", "game-1")
    with unchanged(table.event):
        replayed = refusal(lambda: submit(table, ann, 2, "loss", "too-early"))

        assert replayed.code == early.code == "out_of_order"
        assert replayed.status == 409
        assert replayed.message == early.message
    assert not GameResult.objects.filter(registration__player=ann, game=2).exists()


def test_a_pending_choice_refusal_is_replayed_after_the_choice_is_made(table: Table) -> None:
    ann = table.players[0]
    submit(table, ann, 1, "win", "win-1")
    pending = refusal(lambda: submit(table, ann, 2, "loss", "next-game"))
    assert isinstance(pending, PendingChoice)
    table.choose_win(ann, 0)
    with unchanged(table.event):
        replayed = refusal(lambda: submit(table, ann, 2, "loss", "next-game"))

        assert type(replayed) is PendingChoice
        assert replayed.as_json() == pending.as_json()


def test_the_same_key_with_different_content_is_a_conflict(table: Table) -> None:
    ann = table.players[0]
    submit(table, ann, 1, "loss", "ann-key")
    with unchanged(table.event):
        conflicts = [
            refusal(lambda: submit(table, ann, 1, "win", "ann-key")),
            refusal(lambda: submit(table, ann, 2, "loss", "ann-key")),
            refusal(lambda: submit(table, ann, 1, "loss", "ann-key", opponent="Cy")),
            refusal(
                lambda: services.win_choice_confirm(
                    registration_id=table.rid(ann), by=ann, slot=0, idempotency_key="ann-key"
                )
            ),
            refusal(
                lambda: services.player_withdraw(
                    registration_id=table.rid(ann), by=ann, idempotency_key="ann-key"
                )
            ),
        ]

        for conflict in conflicts:
            assert isinstance(conflict, IdempotencyConflict)
            assert conflict.code == "idempotency_conflict"
            assert conflict.status == 422
            assert conflict.as_json()["error"]["code"] == "idempotency_conflict"
    assert IdempotencyRecord.objects.filter(user=ann, key="ann-key").count() == 1


def test_a_refused_request_key_reused_for_other_content_is_a_conflict(table: Table) -> None:
    ann = table.players[0]
    refusal(lambda: submit(table, ann, 3, "loss", "bad-game"))
    with unchanged(table.event):
        conflict = refusal(lambda: submit(table, ann, 1, "loss", "bad-game"))

        assert isinstance(conflict, IdempotencyConflict)


def test_keys_are_scoped_to_the_user(table: Table) -> None:
    ann, bob, _ = table.players

    ann_answer = submit(table, ann, 1, "loss", "game-1")
    bob_answer = submit(table, bob, 1, "win", "game-1")
    services.registration_close(event_id=table.event.pk, by=table.house, idempotency_key="game-1")

    assert ann_answer.registration_id == table.rid(ann)
    assert bob_answer.registration_id == table.rid(bob)
    assert bob_answer.offered is not None and len(bob_answer.offered) == 2
    assert GameResult.objects.filter(registration__event=table.event, game=1).count() == 2
    assert not table.refresh().registration_open
    assert IdempotencyRecord.objects.filter(key="game-1").count() == 3
    # Each user's retry still returns their own answer.
    assert submit(table, ann, 1, "loss", "game-1") == ann_answer
    assert submit(table, bob, 1, "win", "game-1") == bob_answer


def _submit(table, player, game: int, outcome: str, key: str) -> answers.ResultSubmitted:
    return services.result_submit(
        registration_id=table.rid(player),
        by=player,
        game=game,
        outcome=outcome,
        idempotency_key=key,
    )


@pytest.mark.django_db
def test_it_returns_the_original_answer_to_a_retry():
    """A retry with the same key returns the original answer and changes nothing (no
    replacement draws)."""
    table = make_table("standard-v1", players=2, start=True)
    player = table.players[0]
    first = _submit(table, player, 1, "win", "key-1")
    with unchanged(table.event.pk):
        again = _submit(table, player, 1, "win", "key-1")
        assert again == first  # the same two offered cards: no replacement draw
    assert GameResult.objects.filter(registration=table.registration(player)).count() == 1


@pytest.mark.django_db
def test_it_returns_the_original_refusal_to_a_retry():
    """A retry with the same key returns the original answer (refusals included) and changes
    nothing."""
    table = make_table("standard-v1", players=2, start=True)
    player = table.players[0]
    refused(OutOfOrder, table.event, lambda: _submit(table, player, 2, "loss", "key-2"))
    table.report(player, 1, "loss")  # game 2 is now the next game ...
    error = refused(OutOfOrder, table.event, lambda: _submit(table, player, 2, "loss", "key-2"))
    assert error.message == "The next game to report is game 1."  # ... but the answer stands
    assert GameResult.objects.filter(registration=table.registration(player)).count() == 1


@pytest.mark.django_db
def test_it_refuses_the_same_key_with_different_content():
    """The same key with different content gets 422."""
    table = make_table("standard-v1", players=2, start=True)
    player = table.players[0]
    _submit(table, player, 1, "loss", "key-3")
    error = refused(
        IdempotencyConflict, table.event, lambda: _submit(table, player, 2, "loss", "key-3")
    )
    assert (error.status, error.code) == (422, "idempotency_conflict")
    refused(IdempotencyConflict, table.event, lambda: _submit(table, player, 1, "win", "key-3"))


@pytest.mark.django_db
def test_it_scopes_keys_to_the_user():
    """Every write (player or House) carries an Idempotency-Key, scoped to the user."""
    table = make_table("standard-v1", players=2, start=True)
    first, second = table.players
    _submit(table, first, 1, "loss", "same-key")
    answer = _submit(table, second, 1, "win", "same-key")
    assert answer.result == "win"
    assert GameResult.objects.filter(registration__event=table.event).count() == 2


@pytest.mark.django_db
def test_it_replays_house_actions_too():
    """Every write (player or House) carries an Idempotency-Key."""
    table = make_table("league", players=2, start=True)
    player = table.players[0]
    play(table, player, "l")
    call = lambda: services.result_correct(  # noqa: E731
        registration_id=table.rid(player),
        by=table.house,
        game=1,
        outcome="win",
        reason=REASON,
        idempotency_key="fix-1",
    )
    first = call()
    with unchanged(table.event.pk):
        assert call() == first


@pytest.mark.django_db
def test_it_treats_another_event_as_different_content():
    """The same key with different content gets 422 (registering for another event is another
    request, not a retry)."""
    first_event = make_table("league")
    second_event = make_table("league")
    player = make_user("Ann")
    services.player_register(event_id=first_event.event.pk, by=player, idempotency_key="join")
    refused(
        IdempotencyConflict,
        second_event.event,
        lambda: services.player_register(
            event_id=second_event.event.pk, by=player, idempotency_key="join"
        ),
    )


@pytest.mark.django_db
def test_it_treats_a_house_action_on_another_event_as_different_content():
    """The same key with different content gets 422 (closing another event's registration is
    another request)."""
    first_event = make_table("league", players=2, start=True)
    second_event = make_table("league", players=2, start=True)
    house = first_event.house
    services.house_member_add(
        scope=Scope.of(second_event.event), by=second_event.house, member=house
    )
    services.registration_close(event_id=first_event.event.pk, by=house, idempotency_key="close")
    refused(
        IdempotencyConflict,
        second_event.event,
        lambda: services.registration_close(
            event_id=second_event.event.pk, by=house, idempotency_key="close"
        ),
    )
    assert second_event.refresh().registration_open


@pytest.mark.django_db
def test_it_remembers_a_refusal_for_a_missing_reason():
    """A retry with the same key returns the original answer (refusals included); the same key
    with different content gets 422."""
    table = make_table("league", players=2, start=True)
    player = table.players[0]
    play(table, player, "l")

    def correct(reason: str) -> answers.ResultCorrected:
        return services.result_correct(
            registration_id=table.rid(player),
            by=table.house,
            game=1,
            outcome="win",
            reason=reason,
            idempotency_key="fix-2",
        )

    refused(ReasonRequired, table.event, lambda: correct(""))
    refused(IdempotencyConflict, table.event, lambda: correct(REASON))
