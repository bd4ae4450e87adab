"""`registration_close`: House closes registration, or the last player's first result closes it
(SPEC section 3)."""

from __future__ import annotations

import pytest

from events import services
from events.errors import (
    NotAllowed,
    RegistrationClosed,
)
from tests.events.support import (
    head,
    last,
    new_entries,
    refused,
)
from tests.factories import make_table, make_user


@pytest.mark.django_db
def test_it_keeps_registration_open_after_the_start_until_house_closes_it():
    """Registration ... may stay open after the start for late entries."""
    table = make_table("league", players=2, start=True)
    assert table.event.registration_open
    late = make_user("Lou")
    table.register(late)
    assert table.registration(late).status == "registered"


@pytest.mark.django_db
def test_it_lets_only_house_close_registration():
    """Registration is a separate switch that House controls."""
    table = make_table("league", players=2, start=True)
    refused(
        NotAllowed,
        table.event,
        lambda: services.registration_close(event_id=table.event.pk, by=table.players[0]),
    )
    services.registration_close(event_id=table.event.pk, by=table.house)
    assert not table.refresh().registration_open
    assert last(table.event, "registration_closed").actor == "House: House"
    refused(
        RegistrationClosed,
        table.event,
        lambda: services.registration_close(event_id=table.event.pk, by=table.house),
    )


@pytest.mark.django_db
def test_it_makes_never_checked_in_registrations_no_shows_when_registration_closes():
    """Registrations never checked in when registration closes become no-shows: not
    participants, not in the pool."""
    table = make_table("league", players=2, contribution=10)
    absent = make_user("Abe")
    table.register(absent)
    table.start()
    services.registration_close(event_id=table.event.pk, by=table.house)
    assert table.registration(absent).status == "no_show"
    assert last(table.event, "registration_closed").details == {"no_shows": ["Abe"]}
    answer = services.pool_confirm(event_id=table.event.pk, by=table.house)
    assert (answer.base, answer.pool) == (20, 20)


@pytest.mark.django_db
def test_it_closes_registration_with_the_last_players_first_result():
    """Registration must close before the last player's first result: accepting the Game 1
    result that leaves no active checked-in player without a first result closes registration in
    the same transaction (actor "system")."""
    table = make_table("league", players=2, start=True)
    absent = make_user("Abe")
    table.register(absent)
    first, second = table.players
    table.choose_start(first)
    table.report(first, 1, "loss")
    assert table.refresh().registration_open
    table.choose_start(second)
    before = head(table.event)
    table.report(second, 1, "win")  # closes at the result, while the choice is pending
    assert not table.refresh().registration_open
    written = new_entries(table.event, before)
    assert written[0].action == "result_submitted"
    closed = written[-1]
    assert closed.action == "registration_closed"
    assert closed.actor == "system"
    assert closed.details == {"no_shows": ["Abe"]}
    assert {entry.at for entry in written} == {written[0].at}  # one transaction
    assert table.registration(absent).status == "no_show"


@pytest.mark.django_db
def test_it_keeps_registration_open_while_an_active_player_has_no_first_result():
    """... the Game 1 result that leaves no active checked-in player without a first result."""
    table = make_table("league", players=3, start=True)
    first, second, third = table.players
    services.review_open(registration_id=table.rid(third), by=table.house, reason="Late bus.")
    for player in (first, second):
        table.choose_start(player)
        table.report(player, 1, "loss")
    assert table.refresh().registration_open  # the paused third player is still active


@pytest.mark.django_db
def test_it_does_not_wait_for_withdrawn_players_to_close_registration():
    """... no active checked-in player without a first result (withdrawn players are not
    active)."""
    table = make_table("league", players=3, start=True)
    first, second, third = table.players
    services.player_withdraw(registration_id=table.rid(third), by=third)
    table.choose_start(first)
    table.report(first, 1, "loss")
    assert table.refresh().registration_open
    table.choose_start(second)
    table.report(second, 1, "loss")
    assert not table.refresh().registration_open
    assert last(table.event, "registration_closed").actor == "system"
