"""Real threads on PostgreSQL: calls that collide are serialized by the event's row lock.

Every thread opens its own connection, waits at a barrier so the calls really start together,
and closes its connection at the end. `transaction=True`: the services' durable transactions
commit for real, so the threads see each other's writes.
"""

from __future__ import annotations

import datetime
import threading
from collections.abc import Callable
from functools import partial
from typing import Any

import pytest
from django.db import connection

from accounts.models import User
from audit.export import audit_document
from audit.models import AuditEntry
from audit.verify import verify
from cards.models import CardState, DealtCard, Offer, Shoe, ShoeKind
from events import services
from events.answers import Answer, PoolConfirmed, ResultSubmitted, WinChoiceConfirmed
from events.errors import DomainError, NothingPending, OutOfOrder, PendingChoice, PoolLocked
from events.models import Event, GameResult, IdempotencyRecord
from staff.scopes import Scope
from tests.factories import make_table, make_user

pytestmark = pytest.mark.django_db(transaction=True)

type Outcome = Answer | BaseException


@pytest.fixture(autouse=True)
def _settings(settings: Any) -> None:
    # Live updates are tested elsewhere. Their default background thread would still be reading
    # committed changes when the test's teardown truncates the tables (a deadlock).
    settings.LIVE_UPDATES = "off"


def at_once(calls: list[Callable[[], Answer]]) -> list[Outcome]:
    """Run each call in its own thread, all released together; answers or exceptions, in order."""
    barrier = threading.Barrier(len(calls))
    outcomes: list[Outcome | None] = [None] * len(calls)

    def run(index: int, call: Callable[[], Answer]) -> None:
        try:
            connection.ensure_connection()
            barrier.wait(timeout=60)
            outcomes[index] = call()
        except BaseException as error:  # handed to the test thread, which asserts on it
            outcomes[index] = error
        finally:
            connection.close()

    threads = [
        threading.Thread(target=run, args=(index, call), daemon=True)
        for index, call in enumerate(calls)
    ]
    for thread in threads:
        thread.start()
    for thread in threads:
        thread.join(timeout=120)
    assert not any(thread.is_alive() for thread in threads), "a thread is still running"
    assert all(outcome is not None for outcome in outcomes)
    return [outcome for outcome in outcomes if outcome is not None]


def answers(outcomes: list[Outcome]) -> list[Answer]:
    return [outcome for outcome in outcomes if isinstance(outcome, Answer)]


def refusals(outcomes: list[Outcome]) -> list[BaseException]:
    return [outcome for outcome in outcomes if not isinstance(outcome, Answer)]


def entries(event: Event, action: str) -> list[AuditEntry]:
    return list(AuditEntry.objects.filter(event=event, action=action).order_by("seq"))


def assert_chain_verifies(event: Event) -> None:
    event.refresh_from_db()
    verdict = verify(audit_document(event))
    assert verdict.ok, verdict.problem


def stock(event: Event) -> Shoe:
    return Shoe.objects.get(event=event, kind=ShoeKind.STOCK)


def test_fifty_players_drawing_at_once_get_the_next_fifty_positions_in_commit_order() -> None:
    table = make_table("standard-v1")
    players = [make_user() for _ in range(50)]
    registrations = {
        player.pk: services.participant_add(
            event_id=table.event.pk, by=table.house, player=player
        ).registration_id
        for player in players
    }
    table.start()
    assert stock(table.event).next_position == 0

    drawn = at_once(
        [
            partial(
                services.result_submit,
                registration_id=registrations[player.pk],
                by=player,
                game=1,
                outcome="loss",
            )
            for player in players
        ]
    )

    assert refusals(drawn) == []
    shoe = stock(table.event)
    assert shoe.next_position == 50
    losses = entries(table.event, "card_kept")
    # Commit order is audit order: each transaction dealt the next position of the shoe.
    assert [entry.details["card"]["position"] for entry in losses] == list(range(50))
    assert len({entry.player for entry in losses}) == 50
    dealt = DealtCard.objects.filter(shoe=shoe)
    assert sorted(dealt.values_list("position", flat=True)) == list(range(50))
    by_registration = {card.registration_id: card for card in dealt}
    for player, answer in zip(players, drawn, strict=True):
        assert isinstance(answer, ResultSubmitted)
        card = by_registration[registrations[player.pk]]
        assert answer.card == card.card == shoe.card_at(card.position)
        assert card.state == CardState.KEPT
        assert card.kept_index == 0
    # The last first result closed registration, exactly once.
    assert [entry.actor for entry in entries(table.event, "registration_closed")] == ["system"]
    assert not table.refresh().registration_open
    assert_chain_verifies(table.event)


def test_fifty_starting_selections_confirmed_at_once_are_all_kept() -> None:
    table = make_table("league")
    players = [make_user() for _ in range(50)]
    registrations = {
        player.pk: services.participant_add(
            event_id=table.event.pk, by=table.house, player=player
        ).registration_id
        for player in players
    }
    table.start()

    confirmed = at_once(
        [
            partial(
                services.starting_selection_confirm,
                registration_id=registrations[player.pk],
                by=player,
                slots=[1],
            )
            for player in players
        ]
    )

    assert refusals(confirmed) == []
    assert stock(table.event).next_position == 150  # the offers were dealt at the start
    kept = DealtCard.objects.filter(shoe__event=table.event, state=CardState.KEPT)
    assert sorted(kept.values_list("position", flat=True)) == list(range(1, 150, 3))
    assert len(entries(table.event, "starting_selection_confirmed")) == 50
    assert_chain_verifies(table.event)


def test_two_submissions_of_the_same_game_accept_one() -> None:
    """Ann taps Loss twice, Bob taps Win twice (different keys): one result each."""
    table = make_table("league", players=2, start=True)
    ann, bob = table.players
    for player in (ann, bob):
        table.choose_start(player)
    position = stock(table.event).next_position
    taps = [
        (ann, "loss", "tap-1"),
        (ann, "loss", "tap-2"),
        (bob, "win", "tap-1"),
        (bob, "win", "tap-2"),
    ]

    outcomes = at_once(
        [
            partial(
                services.result_submit,
                registration_id=table.rid(player),
                by=player,
                game=1,
                outcome=outcome,
                idempotency_key=key,
            )
            for player, outcome, key in taps
        ]
    )

    assert len(answers(outcomes[:2])) == 1
    (refused,) = refusals(outcomes[:2])
    assert isinstance(refused, OutOfOrder), repr(refused)
    assert len(answers(outcomes[2:])) == 1
    (refused,) = refusals(outcomes[2:])
    assert isinstance(refused, PendingChoice), repr(refused)
    for player in (ann, bob):
        assert GameResult.objects.filter(registration_id=table.rid(player)).count() == 1
    # One card for the loss, two face-up cards for the win.
    assert stock(table.event).next_position == position + 3
    assert (
        DealtCard.objects.filter(registration_id=table.rid(ann), position__gte=position).count()
        == 1
    )
    assert (
        DealtCard.objects.filter(registration_id=table.rid(bob), position__gte=position).count()
        == 2
    )
    assert len(entries(table.event, "result_submitted")) == 2
    assert_chain_verifies(table.event)


def test_a_refusal_sent_four_times_at_once_with_one_key_is_stored_once() -> None:
    """A retried refusal: each try is refused the same way, one answer is stored, nothing else."""
    table = make_table("league", players=2, start=True)
    ann = table.players[0]
    table.choose_start(ann)
    version = Event.objects.get(pk=table.event.pk).version

    outcomes = at_once(
        [
            partial(
                services.result_submit,
                registration_id=table.rid(ann),
                by=ann,
                game=3,  # out of order
                outcome="loss",
                idempotency_key="ann-game-3",
            )
            for _ in range(4)
        ]
    )

    assert answers(outcomes) == []
    assert {type(refused) for refused in refusals(outcomes)} == {OutOfOrder}
    (stored,) = IdempotencyRecord.objects.filter(user=ann, key="ann-game-3")
    assert stored.error_code == OutOfOrder.code and stored.answer is None
    assert not GameResult.objects.filter(registration_id=table.rid(ann)).exists()
    assert Event.objects.get(pk=table.event.pk).version == version
    assert_chain_verifies(table.event)


def test_a_double_click_on_confirm_keeps_one_card() -> None:
    """Ann's double click resends one key; Bob's sends two keys. All four calls collide."""
    table = make_table("league", players=2, start=True)
    ann, bob = table.players
    offered = {}
    for player in (ann, bob):
        table.choose_start(player)
        offered[player.pk] = table.win(player, 1)
    clicks = [(ann, "confirm"), (ann, "confirm"), (bob, "confirm-1"), (bob, "confirm-2")]

    outcomes = at_once(
        [
            partial(
                services.win_choice_confirm,
                registration_id=table.rid(player),
                by=player,
                slot=1,
                idempotency_key=key,
            )
            for player, key in clicks
        ]
    )

    first, second = answers(outcomes[:2])
    assert (
        first
        == second
        == WinChoiceConfirmed(registration_id=table.rid(ann), game=1, kept=offered[ann.pk][1])
    )
    assert len(answers(outcomes[2:])) == 1
    (refused,) = refusals(outcomes[2:])
    assert isinstance(refused, NothingPending), repr(refused)
    for player in (ann, bob):
        assert table.kept(player)[1:] == [offered[player.pk][1]]
        offer = Offer.objects.get(registration_id=table.rid(player), kind="win")
        assert sorted(offer.cards.values_list("state", flat=True)) == ["discarded", "kept"]
    assert len(entries(table.event, "win_choice_confirmed")) == 2
    assert_chain_verifies(table.event)


def test_a_double_click_on_the_starting_selection_keeps_one_selection() -> None:
    table = make_table("switch", players=2, start=True)
    ann, bob = table.players
    clicks = [(ann, "start"), (ann, "start"), (bob, "start-1"), (bob, "start-2")]

    outcomes = at_once(
        [
            partial(
                services.starting_selection_confirm,
                registration_id=table.rid(player),
                by=player,
                slots=[0, 2, 4],
                idempotency_key=key,
            )
            for player, key in clicks
        ]
    )

    first, second = answers(outcomes[:2])
    assert first == second
    assert len(answers(outcomes[2:])) == 1
    (refused,) = refusals(outcomes[2:])
    assert isinstance(refused, NothingPending), repr(refused)
    for player in (ann, bob):
        assert len(table.kept(player)) == 3
    assert len(entries(table.event, "starting_selection_confirmed")) == 2
    assert_chain_verifies(table.event)


def test_two_house_members_confirming_the_pool_at_once_confirm_it_once() -> None:
    table = make_table("league", players=3, start=True)
    second = make_user("Second House")
    services.house_member_add(scope=Scope.of(table.event), by=table.house, member=second)
    services.registration_close(event_id=table.event.pk, by=table.house)

    outcomes = at_once(
        [
            partial(
                services.pool_confirm,
                event_id=table.event.pk,
                by=member,
                adjustments=[(-5, f"Refund by {member}")],
            )
            for member in (table.house, second)
        ]
    )

    (answer,) = answers(outcomes)
    (refused,) = refusals(outcomes)
    assert isinstance(refused, PoolLocked), repr(refused)
    assert isinstance(answer, PoolConfirmed) and answer.pool == 25
    event = table.refresh()
    assert event.pool_confirmed
    assert event.confirmed_pool == 25
    assert event.adjustments.count() == 1
    assert len(entries(event, "pool_confirmed")) == 1
    assert_chain_verifies(event)


def test_a_double_click_on_create_event_creates_one_event() -> None:
    staff = make_user("Organizer", staff=True)

    def create() -> Answer:
        return services.event_create(
            by=staff,
            name="Friday League",
            date=datetime.date(2026, 12, 4),
            format="league",
            idempotency_key="create-friday",
        )

    outcomes = at_once([create, create])

    assert refusals(outcomes) == []
    first, second = answers(outcomes)
    assert first == second
    assert Event.objects.filter(name="Friday League").count() == 1
    assert IdempotencyRecord.objects.filter(user=staff, key="create-friday").count() == 1


def test_house_check_ins_racing_for_the_last_supported_place_admit_one() -> None:
    table = make_table("league", players=2, start=True, extra_decks=0)
    event = table.refresh()
    assert event.supported_places == 3  # one deck: floor(52 / 15)
    late: list[User] = [make_user(f"Late {n}") for n in range(2)]

    outcomes = at_once(
        [
            partial(services.participant_add, event_id=event.pk, by=table.house, player=player)
            for player in late
        ]
    )

    assert len(answers(outcomes)) == 1
    (refused,) = refusals(outcomes)
    assert isinstance(refused, DomainError) and refused.code == "no_supported_place"
    assert event.registrations.filter(status="checked_in").count() == 3
    assert len(entries(event, "starting_offer_dealt")) == 3
    assert stock(event).next_position == 9
    assert_chain_verifies(event)
