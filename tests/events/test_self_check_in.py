"""`self_check_in_switch` and `self_check_in`: a registered player at the venue checks in from
their phone with the event's code, under the same rules as House's check-in."""

from __future__ import annotations

import datetime
import json
import threading
import uuid
from collections.abc import Callable
from functools import partial

import pytest
from django.core.cache import cache
from django.db import connection
from django.test import Client
from django.urls import reverse

from cards.models import Offer
from events import services
from events.check_in import CODE_ALPHABET, CODE_LENGTH, GUESSES, _guess_key, board_check_in
from events.errors import (
    AgeNotConfirmed,
    DomainError,
    EventIsFinalized,
    LateEntryNeedsHouse,
    NotAllowed,
    NotFound,
    RegistrationIsClosed,
    SelfCheckInOff,
    TooManyGuesses,
    WrongCheckInCode,
    WrongPhase,
    WrongState,
)
from tests.api.support import Api, error
from tests.events.support import actions, entries, finalized_table, last
from tests.factories import Table, make_table, make_user
from tests.refusals import refused


def switch_on(table: Table) -> str:
    answer = services.self_check_in_switch(event_id=table.event.pk, by=table.house, enabled=True)
    assert answer.code is not None
    return answer.code


def forget_guesses(table: Table, *players: object) -> None:
    for player in players:
        cache.delete(_guess_key(table.event.pk, player.pk))  # type: ignore[attr-defined]


@pytest.mark.django_db
def test_it_gives_a_new_readable_code_each_time_house_switches_it_on():
    table = make_table()
    first = switch_on(table)
    assert len(first) == CODE_LENGTH and set(first) <= set(CODE_ALPHABET)
    assert last(table.event, "self_check_in_switched").details == {"enabled": True}
    off = services.self_check_in_switch(event_id=table.event.pk, by=table.house, enabled=False)
    assert (off.self_check_in, off.code) == (False, None)
    table.refresh()
    assert table.event.check_in_code == "" and board_check_in(table.event) is None
    codes = {switch_on(table)}
    for _ in range(5):
        services.self_check_in_switch(event_id=table.event.pk, by=table.house, enabled=False)
        codes.add(switch_on(table))
    assert len(codes) > 1  # 30 bits each: six equal draws in a row would be a broken generator


@pytest.mark.django_db
def test_it_keeps_the_code_out_of_the_audit():
    table = make_table()
    code = switch_on(table)
    ann = make_user("Ann")
    table.register(ann)
    services.self_check_in(event_id=table.event.pk, by=ann, code=code)
    assert all(code not in json.dumps(entry.details) for entry in entries(table.event))


@pytest.mark.django_db
def test_switching_it_again_to_the_same_state_changes_nothing():
    table = make_table()
    code = switch_on(table)
    count = len(actions(table.event))
    again = services.self_check_in_switch(event_id=table.event.pk, by=table.house, enabled=True)
    assert again.code == code
    assert len(actions(table.event)) == count


@pytest.mark.django_db
def test_only_house_switches_it():
    table = make_table()
    ann = make_user("Ann")
    table.register(ann)
    refused(
        NotAllowed,
        table.event,
        lambda: services.self_check_in_switch(event_id=table.event.pk, by=ann, enabled=True),
    )
    other = make_table()
    refused(
        NotAllowed,
        table.event,
        lambda: services.self_check_in_switch(
            event_id=table.event.pk, by=other.house, enabled=True
        ),
    )


@pytest.mark.django_db
def test_a_player_checks_in_with_the_code_in_any_case():
    table = make_table()
    code = switch_on(table)
    ann = make_user("Ann")
    table.register(ann)
    typed = f" {code[:3].lower()}-{code[3:]} "
    answer = services.self_check_in(event_id=table.event.pk, by=ann, code=typed)
    registration = table.registration(ann)
    assert (answer.registration_id, answer.status) == (registration.pk, "checked_in")
    assert registration.check_in_order == 1 and not registration.late
    entry = last(table.event, "player_checked_in")
    assert (entry.actor, entry.actor_kind, entry.player) == ("Ann", "player", "Ann")
    assert entry.details["self_check_in"] is True
    assert entry.details["added_by_house"] is False


@pytest.mark.django_db
def test_a_house_member_checking_themself_in_acts_as_a_player():
    table = make_table()
    code = switch_on(table)
    table.register(table.house)
    services.self_check_in(event_id=table.event.pk, by=table.house, code=code)
    entry = last(table.event, "player_checked_in")
    assert (entry.actor, entry.actor_kind) == ("House", "player")


@pytest.mark.django_db
def test_a_wrong_code_is_refused_and_changes_nothing():
    table = make_table()
    code = switch_on(table)
    ann = make_user("Ann")
    table.register(ann)
    forget_guesses(table, ann)
    wrong = "".join("A" if ch != "A" else "B" for ch in code)
    error = refused(
        WrongCheckInCode,
        table.event,
        lambda: services.self_check_in(event_id=table.event.pk, by=ann, code=wrong),
    )
    assert error.status == 403 and "board" in error.message
    assert table.registration(ann).status == "registered"


@pytest.mark.django_db
def test_it_limits_wrong_guesses_per_player_and_event():
    table = make_table()
    code = switch_on(table)
    ann, bob = make_user("Ann"), make_user("Bob")
    table.register(ann)
    table.register(bob)
    forget_guesses(table, ann, bob)
    for n in range(GUESSES):
        refused(
            WrongCheckInCode,
            table.event,
            partial(services.self_check_in, event_id=table.event.pk, by=ann, code=f"ZZZZ{n}"),
        )
    # Now even the right code waits: guessing on would otherwise be free.
    refused(
        TooManyGuesses,
        table.event,
        lambda: services.self_check_in(event_id=table.event.pk, by=ann, code=code),
    )
    # Another player is not held back by Ann's guesses.
    services.self_check_in(event_id=table.event.pk, by=bob, code=code)
    forget_guesses(table, ann)
    services.self_check_in(event_id=table.event.pk, by=ann, code=code)


@pytest.mark.django_db
def test_a_retry_with_the_same_key_replays_a_refusal_without_counting_a_guess():
    table = make_table()
    switch_on(table)
    ann = make_user("Ann")
    table.register(ann)
    forget_guesses(table, ann)
    for _ in range(GUESSES + 3):
        with pytest.raises(WrongCheckInCode):
            services.self_check_in(
                event_id=table.event.pk, by=ann, code="WRONG1", idempotency_key="tap"
            )
    assert cache.get(_guess_key(table.event.pk, ann.pk)) == 1


@pytest.mark.django_db
def test_it_refuses_while_self_check_in_is_off():
    table = make_table()
    ann = make_user("Ann")
    table.register(ann)
    refused(
        SelfCheckInOff,
        table.event,
        lambda: services.self_check_in(event_id=table.event.pk, by=ann, code="ABCDEF"),
    )
    code = switch_on(table)
    services.self_check_in_switch(event_id=table.event.pk, by=table.house, enabled=False)
    refused(
        SelfCheckInOff,
        table.event,
        lambda: services.self_check_in(event_id=table.event.pk, by=ann, code=code),
    )


@pytest.mark.django_db
def test_it_refuses_players_who_are_not_registered_or_already_in():
    table = make_table()
    code = switch_on(table)
    stranger, ann, cat = make_user("Stranger"), make_user("Ann"), make_user("Cat")
    refused(
        NotFound,
        table.event,
        lambda: services.self_check_in(event_id=table.event.pk, by=stranger, code=code),
    )
    table.register(ann)
    services.self_check_in(event_id=table.event.pk, by=ann, code=code)
    refused(
        WrongState,
        table.event,
        lambda: services.self_check_in(event_id=table.event.pk, by=ann, code=code),
    )
    rid = table.register(cat)
    services.registration_cancel(registration_id=rid, by=cat)
    refused(
        NotFound,
        table.event,
        lambda: services.self_check_in(event_id=table.event.pk, by=cat, code=code),
    )


@pytest.mark.django_db
def test_after_the_start_self_check_in_is_refused_late_entry_needs_house():
    """The rules: "Late entry requires House check-in". The right code after the start leads to
    House, checks nobody in and changes nothing, from the page as from the API."""
    table = make_table("league", players=2, start=True)
    code = switch_on(table)
    lou, max_ = make_user("Lou"), make_user("Max")
    table.register(lou)
    refusal = refused(
        LateEntryNeedsHouse,
        table.event,
        lambda: services.self_check_in(event_id=table.event.pk, by=lou, code=code),
    )
    assert "Ask House to check you in" in refusal.message
    # Not registered either: House adds a late entrant, so the answer is the same.
    refused(
        LateEntryNeedsHouse,
        table.event,
        lambda: services.self_check_in(event_id=table.event.pk, by=max_, code=code),
    )
    assert table.registration(lou).status == "registered"
    assert not Offer.objects.filter(registration=table.registration(lou)).exists()
    # The API says the same, in the error shape.
    answer = Api(lou).post(f"/api/events/{table.event.pk}/check-in/", {"code": code})
    assert error(answer) == (409, "late_entry_needs_house")
    # The page says so at once, with no code box, and leaves Lou registered.
    page = Client()
    page.force_login(lou)
    here = reverse("web:self_check_in", args=[table.event.pk])
    form = page.get(here).content.decode()
    assert "late entry needs House" in form
    assert 'name="code"' not in form
    # A form opened before the start and sent now gets the same words.
    shown = page.post(here, {"code": code, "idempotency_key": uuid.uuid4().hex}, follow=True)
    assert "Ask House to check you in" in shown.content.decode()
    assert table.registration(lou).status == "registered"
    # House checks the late entrant in: dealt at check-in, as the rules say.
    services.player_check_in(registration_id=table.rid(lou), by=table.house)
    assert table.registration(lou).late
    assert Offer.objects.filter(registration=table.registration(lou)).count() == 1


@pytest.mark.django_db
def test_an_already_checked_in_player_is_told_so_after_the_start_too():
    table = make_table("league", players=2, start=True)
    code = switch_on(table)
    refused(
        WrongState,
        table.event,
        lambda: services.self_check_in(event_id=table.event.pk, by=table.players[0], code=code),
    )


@pytest.mark.django_db
def test_it_cannot_be_switched_on_for_a_draft_or_used_after_finalization():
    house = make_user("House", staff=True)
    event_id = services.event_create(
        by=house, name="Draft", date=datetime.date(2026, 12, 3), format="league"
    ).event_id
    refused(
        WrongPhase,
        event_id,
        lambda: services.self_check_in_switch(event_id=event_id, by=house, enabled=True),
    )
    table = finalized_table()
    refused(
        EventIsFinalized,
        table.event,
        lambda: services.self_check_in_switch(
            event_id=table.event.pk, by=table.house, enabled=True
        ),
    )


@pytest.mark.django_db(transaction=True)
def test_a_self_check_in_and_house_check_in_at_once_check_in_once():
    table = make_table()
    code = switch_on(table)
    ann = make_user("Ann")
    rid = table.register(ann)
    barrier = threading.Barrier(2)
    outcomes: list[str] = []

    def run(call: Callable[[], object]) -> None:
        barrier.wait()
        try:
            call()
            outcomes.append("ok")
        except DomainError as error:
            outcomes.append(error.code)
        finally:
            connection.close()

    threads = [
        threading.Thread(
            target=run,
            args=(lambda: services.self_check_in(event_id=table.event.pk, by=ann, code=code),),
        ),
        threading.Thread(
            target=run,
            args=(lambda: services.player_check_in(registration_id=rid, by=table.house),),
        ),
    ]
    for thread in threads:
        thread.start()
    for thread in threads:
        thread.join()
    assert sorted(outcomes) == ["ok", "wrong_phase"] or sorted(outcomes) == ["ok", "wrong_state"]
    assert actions(table.event).count("player_checked_in") == 1
    assert table.registration(ann).check_in_order == 1


@pytest.mark.django_db
def test_with_register_a_new_player_registers_and_checks_in_in_one_change():
    table = make_table()
    code = switch_on(table)
    ann = make_user("Ann")
    before = len(actions(table.event))
    answer = services.self_check_in(event_id=table.event.pk, by=ann, code=code, register=True)
    registration = table.registration(ann)
    assert (answer.registration_id, answer.status) == (registration.pk, "checked_in")
    assert registration.check_in_order == 1 and not registration.late
    assert actions(table.event)[before:] == ["player_registered", "player_checked_in"]
    registered = last(table.event, "player_registered")
    assert (registered.actor, registered.actor_kind, registered.player) == ("Ann", "player", "Ann")


@pytest.mark.django_db
def test_with_register_a_cancelled_player_registers_again_and_checks_in():
    table = make_table()
    code = switch_on(table)
    cat = make_user("Cat")
    services.registration_cancel(registration_id=table.register(cat), by=cat)
    services.self_check_in(event_id=table.event.pk, by=cat, code=code, register=True)
    assert table.registration(cat).status == "checked_in"


@pytest.mark.django_db
def test_with_register_a_registered_player_just_checks_in():
    table = make_table()
    code = switch_on(table)
    ann = make_user("Ann")
    table.register(ann)
    services.self_check_in(event_id=table.event.pk, by=ann, code=code, register=True)
    assert actions(table.event).count("player_registered") == 1
    assert table.registration(ann).status == "checked_in"


@pytest.mark.django_db
def test_with_register_a_wrong_code_registers_nobody():
    table = make_table()
    code = switch_on(table)
    ann = make_user("Ann")
    forget_guesses(table, ann)
    wrong = "".join("A" if ch != "A" else "B" for ch in code)
    refused(
        WrongCheckInCode,
        table.event,
        lambda: services.self_check_in(event_id=table.event.pk, by=ann, code=wrong, register=True),
    )
    assert not table.event.registrations.filter(player=ann).exists()


@pytest.mark.django_db
def test_with_register_closed_registration_refuses_and_registers_nobody():
    table = make_table("league", players=2)
    code = switch_on(table)
    services.registration_close(event_id=table.event.pk, by=table.house)
    ann = make_user("Ann")
    refused(
        RegistrationIsClosed,
        table.event,
        lambda: services.self_check_in(event_id=table.event.pk, by=ann, code=code, register=True),
    )
    assert not table.event.registrations.filter(player=ann).exists()


@pytest.mark.django_db
def test_with_register_a_refused_check_in_leaves_no_registration_behind():
    """Registering and checking in are one change: a check-in refused after the register step
    (here a late entry after a Round 2 result) rolls the registration back too."""
    table = make_table("league", players=2, start=True)
    code = switch_on(table)
    first = table.players[0]
    table.choose_start(first)
    table.report(first, 1, "loss")
    table.report(first, 2, "loss")
    lou = make_user("Lou")
    before = actions(table.event)
    with pytest.raises(DomainError):
        services.self_check_in(event_id=table.event.pk, by=lou, code=code, register=True)
    assert not table.event.registrations.filter(player=lou).exists()
    assert actions(table.event) == before


@pytest.mark.django_db
def test_with_register_an_event_asking_an_age_registers_once_the_age_is_confirmed():
    """The QR's one step asks the event's age as registering on the event's page does: refused
    without it (no guess counted: the code was right), registered and checked in with it."""
    table = make_table()
    services.event_update(event_id=table.event.pk, by=table.house, changes={"minimum_age": 21})
    code = switch_on(table)
    ann = make_user("Ann")
    forget_guesses(table, ann)
    error = refused(
        AgeNotConfirmed,
        table.event,
        lambda: services.self_check_in(event_id=table.event.pk, by=ann, code=code, register=True),
    )
    assert "21 or over" in error.message
    assert cache.get(_guess_key(table.event.pk, ann.pk)) is None
    services.self_check_in(
        event_id=table.event.pk, by=ann, code=code, register=True, age_confirmed=True
    )
    registration = table.registration(ann)
    assert (registration.status, registration.age_confirmed) == ("checked_in", True)
    assert last(table.event, "player_registered").details["age_confirmed"] == 21


@pytest.mark.django_db
def test_a_registered_player_checks_in_without_confirming_the_age_again():
    table = make_table()
    services.event_update(event_id=table.event.pk, by=table.house, changes={"minimum_age": 21})
    code = switch_on(table)
    ann = make_user("Ann")
    services.player_register(event_id=table.event.pk, by=ann, age_confirmed=True)
    services.self_check_in(event_id=table.event.pk, by=ann, code=code, register=True)
    assert table.registration(ann).status == "checked_in"
