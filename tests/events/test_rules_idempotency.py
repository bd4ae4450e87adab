"""Rules section 8 ("Wait for confirmation ... reconnect to recover the saved state ... Do not
invent replacement draws") and SPEC section 5 (Connections): every write carries an
Idempotency-Key."""

from __future__ import annotations

import pytest

from events import answers, services
from events.errors import IdempotencyConflict, OutOfOrder, ReasonRequired
from events.models import GameResult
from tests.events.test_rules_support import FAST_HASHERS, REASON, play, refused, snapshot
from tests.factories import make_table, make_user


@pytest.fixture(autouse=True)
def _fast_passwords(settings):
    settings.PASSWORD_HASHERS = FAST_HASHERS


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
    before = snapshot(table.event.pk)
    again = _submit(table, player, 1, "win", "key-1")
    assert again == first  # the same two offered cards: no replacement draw
    assert snapshot(table.event.pk) == before
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
    before = snapshot(table.event.pk)
    assert call() == first
    assert snapshot(table.event.pk) == before


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
    services.house_member_add(event_id=second_event.event.pk, by=second_event.house, member=house)
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
