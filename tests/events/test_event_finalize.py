"""`event_finalize`: the checklist, places, awards and the lock that follows
(docs/rules.md sections 6.8, 7.4 and 10.1)."""

from __future__ import annotations

import hashlib
from collections.abc import Callable, Mapping
from typing import Any

import pytest

from cards.models import Shoe
from events import answers, services
from events.errors import DomainError, FinalizationBlocked, NotAllowed
from events.models import Event, Registration
from payouts.allocation import allocate
from scoring.evaluator import evaluate_high, evaluate_low
from staff.scopes import Scope
from tests.events.support import REASON, complete_table, entries, last, play, reference_shoe
from tests.factories import make_table, make_user
from tests.refusals import refused, snapshot


def _blocked(table) -> str:
    error = refused(FinalizationBlocked, table.event, lambda: _finalize(table))
    assert error.status == 409
    return error.message


def _finalize(table) -> answers.EventFinalized:
    return services.event_finalize(event_id=table.event.pk, by=table.house)


def _expected_places(values: Mapping[int, Any], *, best_is_highest: bool) -> dict[int, int]:
    """Competition ranking: place = 1 + the number of players strictly better."""
    places = {}
    for player, value in values.items():
        better = [
            other
            for other in values.values()
            if (other > value if best_is_highest else other < value)
        ]
        places[player] = 1 + len(better)
    return places


def _every_service_on_a_finalized_event() -> tuple[int, dict[str, Callable[[], object]]]:
    """A finalized event touched by every kind of change, and a call of each service on it."""
    table = make_table("switch", players=0)
    ann, bob, cy = table.join("Ann"), table.join("Bob"), table.join("Cy")
    registered = make_user("Reg")
    table.register(registered)
    table.check_in(registered)
    services.check_in_undo(registration_id=table.rid(registered), by=table.house)
    table.start()
    services.registration_close(event_id=table.event.pk, by=table.house)
    for player in (ann, bob):
        table.play_out(player)
    services.player_withdraw(registration_id=table.rid(cy), by=cy)
    review = services.review_open(registration_id=table.rid(bob), by=table.house, reason=REASON)
    services.review_resolve(review_id=review.review_id, by=table.house, reason="Fine.")
    services.pool_confirm(event_id=table.event.pk, by=table.house)
    link = services.display_link_create(scope=Scope.of(table.event), by=table.house, label="Bar")
    invited = services.staff_invite(
        scope=Scope.of(table.event), by=table.house, email="invited@example.com"
    )
    _finalize(table)
    event_id, house, a = table.event.pk, table.house, table.rid(ann)
    staff = make_user("Staff", staff=True)
    newcomer = make_user("New")
    calls: dict[str, Callable[[], object]] = {
        "event_update": lambda: services.event_update(
            event_id=event_id, by=house, changes={"name": "Renamed"}
        ),
        "house_member_add": lambda: services.house_member_add(
            scope=Scope(Event, event_id), by=staff, member=newcomer
        ),
        "house_member_remove": lambda: services.house_member_remove(
            scope=Scope(Event, event_id), by=staff, member=house
        ),
        "ownership_transfer": lambda: services.ownership_transfer(
            scope=Scope(Event, event_id), by=staff, member=house
        ),
        "staff_invite": lambda: services.staff_invite(
            scope=Scope(Event, event_id), by=staff, email="newcomer@example.com"
        ),
        "staff_invitation_accept": lambda: services.staff_invitation_accept(
            scope=Scope(Event, event_id), by=newcomer, token="anything"
        ),
        "staff_invitation_cancel": lambda: services.staff_invitation_cancel(
            scope=Scope(Event, event_id), by=staff, invitation_id=invited.invitation_id
        ),
        "registration_open": lambda: services.registration_open(event_id=event_id, by=house),
        "registration_close": lambda: services.registration_close(event_id=event_id, by=house),
        "player_register": lambda: services.player_register(event_id=event_id, by=newcomer),
        "registration_cancel": lambda: services.registration_cancel(
            registration_id=table.rid(registered), by=registered
        ),
        "player_check_in": lambda: services.player_check_in(
            registration_id=table.rid(registered), by=house
        ),
        "check_in_undo": lambda: services.check_in_undo(registration_id=a, by=house),
        "participant_add": lambda: services.participant_add(
            event_id=event_id, by=house, player=newcomer
        ),
        "event_start": lambda: services.event_start(event_id=event_id, by=house),
        "starting_selection_confirm": lambda: services.starting_selection_confirm(
            registration_id=a, by=ann, slots=[0, 1, 2]
        ),
        "result_submit": lambda: services.result_submit(
            registration_id=a, by=ann, game=5, outcome="loss"
        ),
        "win_choice_confirm": lambda: services.win_choice_confirm(
            registration_id=a, by=ann, slot=0
        ),
        "wild_reveal": lambda: services.wild_reveal(registration_id=a, by=house),
        "result_correct": lambda: services.result_correct(
            registration_id=a, by=house, game=1, outcome="win", reason=REASON
        ),
        "review_open": lambda: services.review_open(registration_id=a, by=house, reason=REASON),
        "review_resolve": lambda: services.review_resolve(
            review_id=review.review_id, by=house, reason=REASON
        ),
        "player_withdraw": lambda: services.player_withdraw(registration_id=a, by=ann),
        "access_reset": lambda: services.access_reset(registration_id=a, by=house, reason=REASON),
        "pool_confirm": lambda: services.pool_confirm(event_id=event_id, by=house),
        "event_finalize": lambda: services.event_finalize(event_id=event_id, by=house),
        "self_check_in_switch": lambda: services.self_check_in_switch(
            event_id=event_id, by=house, enabled=True
        ),
        "self_check_in": lambda: services.self_check_in(
            event_id=event_id, by=registered, code="ABCDEF"
        ),
        "check_in_all": lambda: services.check_in_all(event_id=event_id, by=house),
        "payment_mark": lambda: services.payment_mark(registration_id=a, by=house, paid=True),
        "announcement_send": lambda: services.announcement_send(
            event_id=event_id, by=house, text="Thanks for playing"
        ),
        "display_link_create": lambda: services.display_link_create(
            scope=Scope(Event, event_id), by=house, label="Door"
        ),
        "display_link_revoke": lambda: services.display_link_revoke(
            scope=Scope(Event, event_id), by=house, link_id=link.link_id
        ),
    }
    calls.update(
        {
            "place_claim": lambda: services.place_claim(
                registration_id=table.rid(registered), by=registered
            ),
            "waitlist_promote": lambda: services.waitlist_promote(
                registration_id=table.rid(registered), by=house, reason=REASON
            ),
            "registration_remove": lambda: services.registration_remove(
                registration_id=table.rid(registered), by=house, reason=REASON
            ),
        }
    )
    assert set(calls) == set(services.__all__) - {"event_create"}
    return event_id, calls


@pytest.mark.django_db
def test_it_names_each_player_who_blocks_finalization():
    """The finalization checklist names each player who blocks it."""
    table = make_table("switch")
    ann, bob = table.join("Ann"), table.join("Bob")
    table.join("Cy")
    table.start()
    table.play_out(ann)  # complete
    play(table, bob, "ll")  # two of four results
    services.registration_close(event_id=table.event.pk, by=table.house)
    services.pool_confirm(event_id=table.event.pk, by=table.house)
    message = _blocked(table)
    assert "Bob" in message
    assert "Cy" in message  # has not even confirmed the starting selection
    assert "Ann" not in message


@pytest.mark.django_db
def test_it_blocks_finalization_while_registration_is_open():
    """Finalization requires: registration closed. (Registration cannot be open once every
    player has a first result, so the player without one blocks too.)"""
    table = make_table("switch", players=2, start=True)
    ann, bob = table.players
    table.play_out(ann)
    assert table.refresh().registration_open  # Bob has no first result yet
    message = _blocked(table)
    assert "Registration is still open." in message
    assert f"{table.registration(bob).label} has 0 of" in message


@pytest.mark.django_db
def test_it_blocks_finalization_until_the_pool_is_confirmed():
    """Finalization requires: ... pool confirmed."""
    table = complete_table("switch")
    assert not table.event.registration_open
    assert "pool" in _blocked(table).lower()


@pytest.mark.django_db
def test_it_blocks_finalization_for_a_pending_choice():
    """... every checked-in player either withdrawn or complete: no pending offer or choice."""
    table = make_table("switch")
    ann, bob = table.join("Ann"), table.join("Bob")
    table.start()
    table.play_out(ann)
    play(table, bob, "lllw")
    services.pool_confirm(event_id=table.event.pk, by=table.house)
    message = _blocked(table)
    assert "Bob" in message and "Ann" not in message


@pytest.mark.django_db
def test_it_blocks_finalization_for_an_open_review():
    """... no open review (House resolves active-player reviews before finalizing)."""
    table = make_table("switch")
    ann, bob = table.join("Ann"), table.join("Bob")
    table.start()
    table.play_out(ann)
    table.play_out(bob)
    services.review_open(registration_id=table.rid(bob), by=table.house, reason=REASON)
    services.pool_confirm(event_id=table.event.pk, by=table.house)
    message = _blocked(table)
    assert "Bob" in message and "Ann" not in message


@pytest.mark.django_db
def test_it_blocks_finalization_for_an_unrevealed_standard_v1_wild():
    """House ... reveals all eligible Wild indicators before finalizing (... a revealed wild)."""
    table = make_table("standard-v1")
    ann, bob = table.join("Ann"), table.join("Bob")
    table.start()
    table.play_out(ann)
    table.play_out(bob)
    services.wild_reveal(registration_id=table.rid(ann), by=table.house)
    services.pool_confirm(event_id=table.event.pk, by=table.house)
    message = _blocked(table)
    assert "Bob" in message and "Ann" not in message
    services.wild_reveal(registration_id=table.rid(bob), by=table.house)
    _finalize(table)
    assert table.refresh().phase == "finalized"


@pytest.mark.django_db
def test_it_does_not_wait_for_withdrawn_players():
    """House confirms the pool and finalizes the event after all active hands are complete ...
    Withdrawn players are excluded."""
    table = make_table("switch")
    ann, bob = table.join("Ann"), table.join("Bob")
    table.start()
    play(table, bob, "lw")
    services.player_withdraw(registration_id=table.rid(bob), by=bob)
    table.play_out(ann)
    assert not table.refresh().registration_open  # closed by Ann's first result
    services.pool_confirm(event_id=table.event.pk, by=table.house)
    _finalize(table)
    bob_row = table.registration(bob)
    assert (bob_row.high_place, bob_row.low_place, bob_row.award) == (None, None, 0)
    ann_row = table.registration(ann)
    assert (ann_row.high_place, ann_row.low_place, ann_row.award) == (1, 1, 20)


@pytest.mark.django_db
def test_it_stores_places_and_awards_at_finalization():
    """Places use competition ranking (1, 1, 3); awards follow the split (payouts.allocation):
    High 80%, Low 20%, ties share; a withdrawn player cannot win."""
    table = make_table("switch", players=3, contribution=7)
    leaver = table.join("Leaver")
    table.start()
    services.player_withdraw(registration_id=table.rid(leaver), by=leaver)
    for player, outcomes in zip(table.players, ("wlwl", "lwwl", "llll"), strict=False):
        table.play_out(player, outcomes)
    services.pool_confirm(event_id=table.event.pk, by=table.house, adjustments=[(3, "Sponsor")])
    answer = _finalize(table)

    rows = {r.pk: r for r in Registration.objects.filter(event=table.event, status="checked_in")}
    assert len(rows) == 3
    high = {pk: evaluate_high(table.kept(r.player), r.wild_rank) for pk, r in rows.items()}  # type: ignore[arg-type]
    low = {pk: evaluate_low(table.kept(r.player)) for pk, r in rows.items()}  # type: ignore[arg-type]
    high_places = _expected_places(high, best_is_highest=True)
    low_places = _expected_places(low, best_is_highest=False)
    pool = 7 * 4 + 3  # the withdrawn player's contribution stays in the pool
    split = allocate(
        pool,
        [pk for pk, place in high_places.items() if place == 1],
        [pk for pk, place in low_places.items() if place == 1],
    )
    for pk, row in rows.items():
        assert (row.high_place, row.low_place) == (high_places[pk], low_places[pk])
        assert row.award == split.awards.get(pk, 0)
    assert table.registration(leaver).award == 0
    assert table.registration(leaver).high_place is None
    event = table.refresh()
    assert event.phase == "finalized"
    assert event.finalized_at is not None
    assert event.unallocated == split.unallocated == answer.unallocated
    assert sum(r.award or 0 for r in rows.values()) + event.unallocated == pool
    finalized = last(event, "event_finalized")
    assert finalized.actor == "House: House"
    assert finalized.details["unallocated"] == split.unallocated
    assert finalized.details["awards"] == {
        rows[pk].label: dollars for pk, dollars in split.awards.items()
    }


@pytest.mark.django_db
def test_it_reveals_the_committed_seed_at_finalization():
    """The seed stays secret until finalization, when the audit reveals it (hex); an independent
    check recomputes every dealt card from it."""
    table = complete_table("switch")
    services.pool_confirm(event_id=table.event.pk, by=table.house)
    before = entries(table.event)
    assert all("seed" not in e.details for e in before)
    _finalize(table)
    seed = bytes.fromhex(last(table.event, "event_finalized").details["seed"])
    commitment = last(table.event, "event_started").details["commitment"]
    assert hashlib.sha256(seed).hexdigest() == commitment
    for kind in ("stock", "house"):
        shoe = Shoe.objects.get(event=table.event, kind=kind)
        order = reference_shoe(shoe.decks, seed, kind.encode())
        for card in shoe.dealt.all():
            assert card.card == order[card.position]
    assert entries(table.event)[-1].action == "event_finalized"


@pytest.mark.django_db
def test_it_finalizes_with_no_eligible_player():
    """No eligible player at all: the whole pool is unallocated, and the event can still
    finalize."""
    table = make_table("switch", players=2, start=True, contribution=10)
    for player in table.players:
        services.player_withdraw(registration_id=table.rid(player), by=player)
    assert not table.refresh().registration_open  # nobody is left waiting for a first result
    services.pool_confirm(event_id=table.event.pk, by=table.house)
    assert _finalize(table).unallocated == 20
    assert last(table.event, "event_finalized").details["awards"] == {}


@pytest.mark.django_db
def test_it_finalizes_a_free_event():
    """A contribution of $0 makes an event free with no cash prize pool."""
    table = complete_table("switch", contribution=0)
    services.pool_confirm(event_id=table.event.pk, by=table.house)
    _finalize(table)
    rows = Registration.objects.filter(event=table.event)
    assert all(r.award == 0 for r in rows)
    assert all(r.high_place is not None and r.low_place is not None for r in rows)
    assert table.refresh().unallocated == 0


@pytest.mark.django_db
def test_it_lets_only_house_finalize():
    """House ... finalizes the event."""
    table = complete_table("switch")
    services.pool_confirm(event_id=table.event.pk, by=table.house)
    refused(
        NotAllowed,
        table.event,
        lambda: services.event_finalize(event_id=table.event.pk, by=table.players[0]),
    )


@pytest.mark.django_db
def test_it_accepts_no_change_once_finalized(django_capture_on_commit_callbacks):
    """finalized (locked; every change refused). Finalization locks further event changes."""
    event_id, calls = _every_service_on_a_finalized_event()
    problems = []
    for name, call in calls.items():
        before = snapshot(event_id)
        try:
            with django_capture_on_commit_callbacks(execute=False):
                call()
        except DomainError as error:
            if error.status != 409:
                problems.append(f"{name}: refused with {error.status}, not 409 (wrong state)")
        else:
            problems.append(f"{name}: accepted")
        if snapshot(event_id) != before:
            problems.append(f"{name}: changed the finalized event")
    assert problems == []


@pytest.mark.django_db
def test_it_refuses_every_change_as_event_finalized(django_capture_on_commit_callbacks):
    """The event is finalized: nothing can change any more (error code `event_finalized`, the
    one documented for a finalized event)."""
    _, calls = _every_service_on_a_finalized_event()
    codes = {}
    for name, call in calls.items():
        try:
            with django_capture_on_commit_callbacks(execute=False):
                call()
        except DomainError as error:
            codes[name] = error.code
        else:
            codes[name] = "accepted"
    assert {name: code for name, code in codes.items() if code != "event_finalized"} == {}
