"""Capacity and the waitlist (events/waitlist.py; docs/decisions.md, "Capacity and the
waitlist")."""

from __future__ import annotations

import datetime
import threading
from collections.abc import Iterator
from typing import Any

import pytest
from django.db import close_old_connections
from django.test import override_settings
from django.utils import timezone

from events import services, waitlist
from events.errors import (
    CapacityBelowField,
    EventIsFinalized,
    Invalid,
    NoPlaceOffered,
    NotAllowed,
    NotFound,
    OfferLapsed,
    ReasonRequired,
    RegistrationIsClosed,
    WrongPhase,
    WrongState,
)
from events.models import Event, Registration
from staff.scopes import Scope
from tests.events.support import actions, entries, last
from tests.factories import Table, make_table, make_user
from tests.refusals import refused


def capped(capacity: int, *, players: int = 0, **settings_: Any) -> Table:
    """An open event with `capacity` places and `players` checked in."""
    table = make_table("league", players=players)
    services.event_update(
        event_id=table.event.pk, by=table.house, changes={"capacity": capacity, **settings_}
    )
    table.refresh()
    return table


def status(table: Table, player: Any) -> str:
    return table.registration(player).status


def past_hold(registration_id: int) -> None:
    """Move a hold's end into the past (as if its time had passed)."""
    Registration.objects.filter(pk=registration_id).update(
        hold_until=timezone.now() - datetime.timedelta(seconds=1)
    )


@pytest.fixture
def sent() -> Iterator[list[tuple[str, dict[str, Any]]]]:
    """The waitlist's signals, as sent: (name, kwargs)."""
    heard: list[tuple[str, dict[str, Any]]] = []

    def offered(sender: object, **kwargs: Any) -> None:
        heard.append(("place_offered", {k: v for k, v in kwargs.items() if k != "signal"}))

    def given_up(sender: object, **kwargs: Any) -> None:
        heard.append(("place_given_up", {k: v for k, v in kwargs.items() if k != "signal"}))

    waitlist.place_offered.connect(offered)
    waitlist.place_given_up.connect(given_up)
    yield heard
    waitlist.place_offered.disconnect(offered)
    waitlist.place_given_up.disconnect(given_up)


@pytest.mark.django_db
def test_it_waitlists_past_capacity_in_arrival_order_with_positions() -> None:
    table = capped(2)
    players = [make_user(f"P{n}") for n in range(5)]
    answers = [services.player_register(event_id=table.event.pk, by=p) for p in players]

    assert [a.status for a in answers] == [
        "registered",
        "registered",
        "waitlisted",
        "waitlisted",
        "waitlisted",
    ]
    assert [a.position for a in answers] == [None, None, 1, 2, 3]
    assert [table.registration(p).waitlist_seq for p in players[2:]] == [1, 2, 3]
    assert last(table.event, "player_waitlisted").details == {"seq": 3, "position": 3}
    assert [r.label for r in waitlist.waitlist_of(table.event)] == ["P2", "P3", "P4"]
    assert waitlist.places_held(table.event) == 2


@pytest.mark.django_db
def test_an_event_without_capacity_never_waitlists() -> None:
    table = make_table("league", players=3)
    late = make_user()
    assert services.player_register(event_id=table.event.pk, by=late).status == "registered"


@pytest.mark.django_db(transaction=True)
def test_a_cancellation_offers_the_place_to_the_first_in_line_after_commit(sent: list) -> None:
    table = capped(1)
    ann, bob, cy = make_user("Ann"), make_user("Bob"), make_user("Cy")
    for player in (ann, bob, cy):
        table.register(player)
    cy_version = table.registration(cy).version

    services.registration_cancel(registration_id=table.rid(ann), by=ann)

    assert status(table, bob) == "offered"
    bob_row = table.registration(bob)
    hold = waitlist.hold_for(table.event, timezone.now())
    assert bob_row.hold_until is not None
    held = bob_row.hold_until - timezone.now()
    assert hold - datetime.timedelta(minutes=1) < held <= hold
    assert waitlist.standing(bob_row).offered_until == bob_row.hold_until
    # Cy moved up: first in line now, and her page is told (her version moved on).
    cy_row = table.registration(cy)
    assert waitlist.standing(cy_row).position == 1
    assert cy_row.version > cy_version
    assert actions(table.event)[-2:] == ["registration_cancelled", "place_offered"]
    assert sent == [
        (
            "place_given_up",
            {"event_id": table.event.pk, "registration_id": table.rid(ann), "why": "cancelled"},
        ),
        (
            "place_offered",
            {
                "event_id": table.event.pk,
                "registration_id": table.rid(bob),
                "hold_until": bob_row.hold_until,
            },
        ),
    ]


@pytest.mark.django_db
def test_nothing_is_sent_before_the_commit(
    sent: list, django_capture_on_commit_callbacks: Any
) -> None:
    table = capped(1)
    ann, bob = make_user(), make_user()
    table.register(ann)
    table.register(bob)
    with django_capture_on_commit_callbacks(execute=False) as callbacks:
        services.registration_cancel(registration_id=table.rid(ann), by=ann)
    assert sent == []
    for callback in callbacks:
        callback()
    assert [name for name, _ in sent] == ["place_given_up", "place_offered"]


@pytest.mark.django_db
def test_the_offered_player_claims_the_place_before_the_hold_ends() -> None:
    table = capped(1)
    ann, bob = make_user(), make_user()
    table.register(ann)
    table.register(bob)
    services.registration_cancel(registration_id=table.rid(ann), by=ann)

    answer = services.place_claim(registration_id=table.rid(bob), by=bob)

    assert (answer.status, answer.hold_until) == ("registered", None)
    assert status(table, bob) == "registered"
    assert table.registration(bob).hold_until is None
    assert last(table.event, "place_claimed").player == table.registration(bob).label


@pytest.mark.django_db
def test_a_claim_after_the_hold_is_refused_and_changes_nothing() -> None:
    table = capped(1)
    ann, bob = make_user(), make_user()
    table.register(ann)
    table.register(bob)
    services.registration_cancel(registration_id=table.rid(ann), by=ann)
    past_hold(table.rid(bob))

    refused(
        OfferLapsed,
        table.event,
        lambda: services.place_claim(registration_id=table.rid(bob), by=bob),
    )


@pytest.mark.django_db
def test_only_an_offered_player_claims_and_only_their_own_place() -> None:
    table = capped(1)
    ann, bob = make_user(), make_user()
    table.register(ann)
    table.register(bob)
    refused(
        NoPlaceOffered,
        table.event,
        lambda: services.place_claim(registration_id=table.rid(bob), by=bob),
    )
    refused(
        NoPlaceOffered,
        table.event,
        lambda: services.place_claim(registration_id=table.rid(ann), by=ann),
    )
    services.registration_cancel(registration_id=table.rid(ann), by=ann)
    refused(
        NotAllowed,
        table.event,
        lambda: services.place_claim(registration_id=table.rid(bob), by=table.house),
    )


@pytest.mark.django_db(transaction=True)
def test_an_unclaimed_offer_lapses_and_passes_to_the_next(sent: list) -> None:
    table = capped(1)
    ann, bob, cy = make_user(), make_user(), make_user()
    for player in (ann, bob, cy):
        table.register(player)
    services.registration_cancel(registration_id=table.rid(ann), by=ann)
    sent.clear()
    past_hold(table.rid(bob))

    answer = waitlist.offers_lapse(event_id=table.event.pk)

    assert answer.lapsed == [table.rid(bob)] and answer.offered == [table.rid(cy)]
    assert status(table, bob) == "cancelled"
    assert status(table, cy) == "offered"
    entry = last(table.event, "offer_lapsed")
    assert (entry.actor, entry.actor_kind) == ("system", "system")
    assert [name for name, _ in sent] == ["place_given_up", "place_offered"]
    assert sent[0][1]["why"] == "lapsed"
    # Run again: nothing is due, nothing changes.
    before = len(actions(table.event))
    assert waitlist.offers_lapse(event_id=table.event.pk).lapsed == []
    assert len(actions(table.event)) == before


@pytest.mark.django_db
def test_the_tasks_lapse_holds_and_the_beat_sweeps_every_minute() -> None:
    from django.conf import settings

    from events import tasks

    table = capped(1)
    ann, bob, cy = make_user(), make_user(), make_user()
    for player in (ann, bob, cy):
        table.register(player)
    services.registration_cancel(registration_id=table.rid(ann), by=ann)
    past_hold(table.rid(bob))
    assert tasks.sweep_holds() == 1
    assert status(table, cy) == "offered"
    tasks.lapse_offers(table.event.pk)  # twice: nothing due
    assert status(table, cy) == "offered"
    assert settings.CELERY_BEAT_SCHEDULE["sweep-holds"] == {
        "task": "events.tasks.sweep_holds",
        "schedule": 60.0,
    }


@pytest.mark.django_db
def test_house_promotes_with_a_reason_past_capacity() -> None:
    table = capped(1)
    ann, bob, cy = make_user(), make_user("Bob"), make_user()
    for player in (ann, bob, cy):
        table.register(player)
    refused(
        ReasonRequired,
        table.event,
        lambda: services.waitlist_promote(
            registration_id=table.rid(bob), by=table.house, reason=" "
        ),
    )
    # Another player's registration is not found by a player (no leak).
    refused(
        NotFound,
        table.event,
        lambda: services.waitlist_promote(registration_id=table.rid(cy), by=ann, reason="please"),
    )
    answer = services.waitlist_promote(
        registration_id=table.rid(bob), by=table.house, reason="Regular, plays every week"
    )
    assert answer.status == "registered"
    assert waitlist.places_held(table.event) == 2  # past the capacity: House's call
    entry = last(table.event, "waitlist_promoted")
    assert (entry.player, entry.reason, entry.details) == (
        "Bob",
        "Regular, plays every week",
        {"from": "waitlisted"},
    )
    assert entry.actor_kind == "house"
    assert waitlist.standing(table.registration(cy)).position == 1
    refused(
        WrongPhase,
        table.event,
        lambda: services.waitlist_promote(
            registration_id=table.rid(ann), by=table.house, reason="x"
        ),
    )


@pytest.mark.django_db
def test_house_removes_a_registration_with_a_reason_and_the_place_passes_on() -> None:
    table = capped(1)
    ann, bob = make_user("Ann"), make_user()
    table.register(ann)
    table.register(bob)
    refused(
        ReasonRequired,
        table.event,
        lambda: services.registration_remove(
            registration_id=table.rid(ann), by=table.house, reason=""
        ),
    )
    answer = services.registration_remove(
        registration_id=table.rid(ann), by=table.house, reason="Duplicate account"
    )
    assert answer.status == "cancelled"
    assert status(table, bob) == "offered"
    entry = last(table.event, "registration_removed")
    assert (entry.player, entry.reason, entry.details) == (
        "Ann",
        "Duplicate account",
        {"from": "registered"},
    )
    # A waitlisted registration is removed too; a checked-in one is not.
    checked = table.join()
    refused(
        WrongPhase,
        table.event,
        lambda: services.registration_remove(
            registration_id=table.rid(checked), by=table.house, reason="x"
        ),
    )


@pytest.mark.django_db
def test_a_cashier_promotes_but_only_an_owner_or_director_removes() -> None:
    table = capped(1)
    cashier = make_user()
    services.house_member_add(
        scope=Scope(Event, table.event.pk), by=table.house, member=cashier, role="cashier"
    )
    ann, bob, cy = make_user(), make_user(), make_user()
    for player in (ann, bob, cy):
        table.register(player)
    services.waitlist_promote(registration_id=table.rid(bob), by=cashier, reason="Regular")
    refused(
        NotAllowed,
        table.event,
        lambda: services.registration_remove(registration_id=table.rid(cy), by=cashier, reason="x"),
    )


@pytest.mark.django_db
def test_capacity_lowered_below_the_places_held_is_refused() -> None:
    table = capped(3)
    for _ in range(2):
        table.register(make_user())
    error = refused(
        CapacityBelowField,
        table.event,
        lambda: services.event_update(
            event_id=table.event.pk, by=table.house, changes={"capacity": 1}
        ),
    )
    assert "2 players already hold a place" in error.message
    services.event_update(event_id=table.event.pk, by=table.house, changes={"capacity": 2})
    assert table.refresh().capacity == 2


@pytest.mark.django_db
def test_capacity_raised_offers_the_places_in_the_same_change() -> None:
    table = capped(1)
    players = [make_user() for _ in range(4)]
    for player in players:
        table.register(player)
    services.event_update(event_id=table.event.pk, by=table.house, changes={"capacity": 3})
    assert [status(table, p) for p in players] == ["registered", "offered", "offered", "waitlisted"]
    assert actions(table.event)[-3:] == ["event_updated", "place_offered", "place_offered"]
    services.event_update(event_id=table.event.pk, by=table.house, changes={"capacity": None})
    assert status(table, players[3]) == "offered"


@pytest.mark.django_db
def test_a_newcomer_never_jumps_the_line() -> None:
    table = capped(1)
    ann, bob = make_user(), make_user()
    table.register(ann)
    table.register(bob)
    services.registration_cancel(registration_id=table.rid(ann), by=ann)  # Bob is offered it
    cy = make_user()
    answer = services.player_register(event_id=table.event.pk, by=cy)
    assert (answer.status, answer.position) == ("waitlisted", 1)


@pytest.mark.django_db
def test_a_waitlisted_player_cancels_and_those_behind_move_up() -> None:
    table = capped(1)
    players = [make_user() for _ in range(4)]
    for player in players:
        table.register(player)
    services.registration_cancel(registration_id=table.rid(players[1]), by=players[1])
    assert [waitlist.standing(table.registration(p)).position for p in players[2:]] == [1, 2]
    assert status(table, players[0]) == "registered"  # no place freed, none offered


@pytest.mark.django_db
def test_the_window_refuses_before_it_opens_and_after_it_closes() -> None:
    now = timezone.now()
    table = capped(
        10,
        registration_opens_at=now + datetime.timedelta(days=2),
        registration_closes_at=now + datetime.timedelta(days=5),
    )
    player = make_user()
    error = refused(
        RegistrationIsClosed,
        table.event,
        lambda: services.player_register(event_id=table.event.pk, by=player),
    )
    assert error.message.startswith("Registration opens on ")
    Event.objects.filter(pk=table.event.pk).update(
        registration_opens_at=now - datetime.timedelta(days=3),
        registration_closes_at=now - datetime.timedelta(days=1),
    )
    error = refused(
        RegistrationIsClosed,
        table.event,
        lambda: services.player_register(event_id=table.event.pk, by=player),
    )
    assert error.message.startswith("Registration closed on ")
    Event.objects.filter(pk=table.event.pk).update(registration_closes_at=None)
    assert services.player_register(event_id=table.event.pk, by=player).status == "registered"


@pytest.mark.django_db
@pytest.mark.parametrize(
    "changes",
    [
        {"capacity": 0},
        {"capacity": True},
        {"hold_minutes": 0},
        {"day_hold_minutes": 1441},
        {"pay_ahead": "yes"},
        {"registration_opens_at": "tomorrow"},
        {"registration_opens_at": datetime.datetime(2026, 12, 1, 12, 0)},  # no time zone
    ],
)
def test_bad_settings_are_refused_and_change_nothing(changes: dict[str, Any]) -> None:
    table = make_table("league")
    refused(
        Invalid,
        table.event,
        lambda: services.event_update(event_id=table.event.pk, by=table.house, changes=changes),
    )


@pytest.mark.django_db
def test_a_window_closing_before_it_opens_is_refused() -> None:
    table = make_table("league")
    opens = datetime.datetime(2026, 12, 2, tzinfo=datetime.UTC)
    services.event_update(
        event_id=table.event.pk, by=table.house, changes={"registration_opens_at": opens}
    )
    error = refused(
        WrongState,
        table.event,
        lambda: services.event_update(
            event_id=table.event.pk,
            by=table.house,
            changes={"registration_closes_at": opens - datetime.timedelta(hours=1)},
        ),
    )
    assert error.message.startswith("Registration closes after it opens")


@pytest.mark.django_db
def test_the_settings_are_set_at_creation_and_audited() -> None:
    house = make_user(staff=True)
    opens = datetime.datetime(2026, 11, 20, 18, 0, tzinfo=datetime.UTC)
    event_id = services.event_create(
        by=house,
        name="Capped",
        date=datetime.date(2026, 12, 3),
        format="league",
        capacity=64,
        registration_opens_at=opens,
        hold_minutes=45,
    ).event_id
    event = Event.objects.get(pk=event_id)
    assert (event.capacity, event.registration_opens_at, event.hold_minutes) == (64, opens, 45)
    details = last(event_id, "event_created").details
    assert details["capacity"] == 64
    assert details["registration_opens_at"] == opens.isoformat()
    assert details["hold_minutes"] == 45
    assert "pay_ahead" not in details


@pytest.mark.django_db
def test_the_hold_is_shorter_on_the_day() -> None:
    table = capped(1, hold_minutes=60, day_hold_minutes=5)
    event = table.refresh()
    day = datetime.datetime.combine(event.date, datetime.time(12), tzinfo=datetime.UTC)
    assert waitlist.hold_for(event, day) == datetime.timedelta(minutes=5)
    assert waitlist.hold_for(event, day - datetime.timedelta(days=1)) == datetime.timedelta(
        minutes=60
    )


@pytest.mark.django_db
@override_settings(STRIPE_SECRET_KEY="sk_test_local", STRIPE_WEBHOOK_SECRET="whsec_test_local")
def test_an_unpaid_place_lapses_where_the_entry_is_paid_ahead() -> None:
    table = capped(1, pay_ahead=True)
    ann, bob = make_user(), make_user()
    answer = services.player_register(event_id=table.event.pk, by=ann)
    table.register(bob)
    assert waitlist.pays_ahead(table.refresh())
    assert answer.status == "registered"
    assert table.registration(ann).hold_until is not None
    registered = entries(table.event, "player_registered")
    assert [("hold_until" in e.details) for e in registered] == [True, False]  # Bob waits
    past_hold(table.rid(ann))

    answer_lapse = waitlist.offers_lapse(event_id=table.event.pk)

    assert answer_lapse.lapsed == [table.rid(ann)]
    assert status(table, ann) == "cancelled"
    assert status(table, bob) == "offered"
    assert last(table.event, "place_lapsed").actor == "system"
    # Bob claims: his place is held unpaid until the hold's end.
    claimed = services.place_claim(registration_id=table.rid(bob), by=bob)
    assert claimed.status == "registered" and claimed.hold_until is not None


@pytest.mark.django_db
@override_settings(STRIPE_SECRET_KEY="sk_test_local", STRIPE_WEBHOOK_SECRET="whsec_test_local")
def test_a_paid_place_never_lapses() -> None:
    table = capped(1, pay_ahead=True)
    ann = make_user()
    table.register(ann)
    Registration.objects.filter(pk=table.rid(ann)).update(paid=True)
    past_hold(table.rid(ann))
    assert waitlist.offers_lapse(event_id=table.event.pk).lapsed == []
    assert status(table, ann) == "registered"


@pytest.mark.django_db
def test_without_stripe_nothing_is_paid_ahead() -> None:
    table = capped(1, pay_ahead=True)
    ann = make_user()
    table.register(ann)
    assert not waitlist.pays_ahead(table.refresh())
    assert table.registration(ann).hold_until is None


@pytest.mark.django_db
def test_after_the_start_no_place_is_offered_and_house_checks_players_in() -> None:
    table = capped(2, players=2)
    bob, cy = make_user(), make_user()
    table.register(bob)
    table.register(cy)
    table.start()
    withdrawn = table.players[0]
    services.player_withdraw(registration_id=table.rid(withdrawn), by=withdrawn)
    assert status(table, bob) == "waitlisted"
    past = waitlist.offers_lapse(event_id=table.event.pk)
    assert (past.lapsed, past.offered) == ([], [])
    # A late entry from the line, by House.
    services.player_check_in(registration_id=table.rid(bob), by=table.house)
    assert status(table, bob) == "checked_in"
    assert last(table.event, "player_checked_in").details["from_waitlist"] is True


@pytest.mark.django_db
def test_a_claim_after_the_start_is_refused() -> None:
    table = capped(2, players=2)
    ann = make_user()
    table.register(ann)
    services.event_update(event_id=table.event.pk, by=table.house, changes={"capacity": 3})
    assert status(table, ann) == "offered"
    table.start()
    refused(
        WrongPhase,
        table.event,
        lambda: services.place_claim(registration_id=table.rid(ann), by=ann),
    )


@pytest.mark.django_db
def test_a_withdrawal_before_the_start_offers_the_place() -> None:
    table = capped(2, players=2)
    bob = make_user()
    table.register(bob)
    leaving = table.players[0]
    services.player_withdraw(registration_id=table.rid(leaving), by=leaving)
    assert status(table, bob) == "offered"


@pytest.mark.django_db
def test_house_checks_in_a_waitlisted_player_before_the_start() -> None:
    table = capped(1)
    ann, bob, cy = make_user(), make_user(), make_user()
    for player in (ann, bob, cy):
        table.register(player)
    services.player_check_in(registration_id=table.rid(bob), by=table.house)
    assert status(table, bob) == "checked_in"
    assert waitlist.standing(table.registration(cy)).position == 1


@pytest.mark.django_db
def test_no_offers_while_registration_is_closed_then_reopening_offers() -> None:
    table = capped(1, players=1)
    bob = make_user()
    table.register(bob)
    services.registration_close(event_id=table.event.pk, by=table.house)
    leaving = table.players[0]
    services.player_withdraw(registration_id=table.rid(leaving), by=leaving)
    assert status(table, bob) == "waitlisted"
    services.registration_open(event_id=table.event.pk, by=table.house)
    assert status(table, bob) == "offered"


# --- concurrency ---------------------------------------------------------------------------------


def _together(calls: list[Any]) -> list[Any]:
    """Run each call in its own thread, all released at once; their answers or errors."""
    barrier = threading.Barrier(len(calls))
    results: list[Any] = [None] * len(calls)

    def run(index: int, call: Any) -> None:
        try:
            barrier.wait(timeout=30)
            results[index] = call()
        except Exception as error:
            results[index] = error
        finally:
            close_old_connections()

    threads = [threading.Thread(target=run, args=(i, c)) for i, c in enumerate(calls)]
    for thread in threads:
        thread.start()
    for thread in threads:
        thread.join(timeout=60)
    assert not any(thread.is_alive() for thread in threads)
    return results


@pytest.mark.django_db(transaction=True)
def test_players_registering_at_once_never_exceed_the_capacity() -> None:
    table = capped(5)
    players = [make_user() for _ in range(16)]
    results = _together(
        [lambda p=p: services.player_register(event_id=table.event.pk, by=p) for p in players]
    )
    assert not [r for r in results if isinstance(r, Exception)]
    assert sum(r.status == "registered" for r in results) == 5
    assert waitlist.places_held(table.event) == 5
    seqs = sorted(
        r.waitlist_seq or 0 for r in table.event.registrations.filter(status="waitlisted")
    )
    assert seqs == list(range(1, 12))
    assert sorted(r.position for r in results if r.status == "waitlisted") == list(range(1, 12))


@pytest.mark.django_db(transaction=True)
def test_two_offered_players_claiming_one_place_at_the_same_instant() -> None:
    """Each offer is one player's: with one place free only one player is offered it, and the
    others' claims at the same instant are refused; the places held never exceed the capacity."""
    table = capped(2)
    players = [make_user() for _ in range(4)]
    for player in players:
        table.register(player)
    # One place frees: the first in line is offered it; the next claims at the same instant.
    services.registration_cancel(registration_id=table.rid(players[0]), by=players[0])
    offered, waiting = players[2], players[3]
    results = _together(
        [
            lambda: services.place_claim(registration_id=table.rid(offered), by=offered),
            lambda: services.place_claim(registration_id=table.rid(waiting), by=waiting),
            lambda: services.player_register(event_id=table.event.pk, by=make_user()),
        ]
    )
    assert results[0].status == "registered"
    assert isinstance(results[1], NoPlaceOffered)
    assert results[2].status == "waitlisted"
    assert waitlist.places_held(table.event) == 2


@pytest.mark.django_db(transaction=True)
def test_cancellations_and_claims_at_once_keep_the_field_within_capacity() -> None:
    table = capped(3)
    players = [make_user() for _ in range(8)]
    for player in players:
        table.register(player)
    leaving = players[:3]
    _together(
        [
            lambda p=p: services.registration_cancel(registration_id=table.rid(p), by=p)
            for p in leaving
        ]
    )
    offered = list(table.event.registrations.filter(status="offered"))
    assert len(offered) == 3
    _together(
        [lambda r=r: services.place_claim(registration_id=r.pk, by=r.player) for r in offered]
        + [lambda: services.player_register(event_id=table.event.pk, by=make_user())]
    )
    assert waitlist.places_held(table.event) == 3
    assert table.event.registrations.filter(status="registered").count() == 3


@pytest.mark.django_db
def test_holds_end_by_the_system_alone_and_never_in_a_finalized_event() -> None:
    from tests.events.support import finalized_table

    table = capped(1)
    refused(
        NotAllowed,
        table.event,
        lambda: waitlist.offers_lapse(event_id=table.event.pk, by=table.house),
    )
    final = finalized_table()
    refused(EventIsFinalized, final.event, lambda: waitlist.offers_lapse(event_id=final.event.pk))
    from events import tasks

    tasks.lapse_offers(final.event.pk)  # told nothing to end, not failing


@pytest.mark.django_db
def test_an_event_with_a_waitlist_verifies_once_finalized() -> None:
    from audit.export import audit_document
    from audit.verify import verify

    table = capped(2, players=2)
    waiting = [make_user() for _ in range(3)]
    for player in waiting:
        table.register(player)
    services.waitlist_promote(registration_id=table.rid(waiting[0]), by=table.house, reason="Reg")
    services.registration_remove(
        registration_id=table.rid(waiting[1]), by=table.house, reason="Asked"
    )
    services.registration_cancel(registration_id=table.rid(waiting[0]), by=waiting[0])
    table.start()
    for player in table.players:
        table.play_out(player)
    services.pool_confirm(event_id=table.event.pk, by=table.house)
    services.event_finalize(event_id=table.event.pk, by=table.house)
    verdict = verify(audit_document(table.refresh()))
    assert verdict.ok, verdict.problem
    assert {"player_waitlisted", "waitlist_promoted", "registration_removed"} <= set(
        actions(table.event)
    )


def test_a_hold_is_ended_by_the_task_it_names() -> None:
    """The engine asks for the task by name (it calls the engine): that name is the task's."""
    from events import tasks

    assert tasks.lapse_offers.name == waitlist.LAPSE_TASK
