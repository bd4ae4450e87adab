"""`registration_close`: House closes registration, or a change that leaves no active player
without a first result closes it (`events.registration_switch`)."""

from __future__ import annotations

import pytest

from events import services
from events.errors import (
    NotAllowed,
    RegistrationCannotReopen,
    RegistrationIsClosed,
)
from tests.events.support import entries, head, last, new_entries
from tests.factories import make_table, make_user
from tests.refusals import refused


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
        RegistrationIsClosed,
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


@pytest.mark.django_db
@pytest.mark.parametrize("by", ["house", "self"])
def test_registration_closes_when_the_last_player_without_a_first_result_withdraws(by):
    """Any change that leaves no active checked-in player without a first result closes
    registration in the same transaction (actor "system"): House withdrawing the last such
    player, or that player leaving early, as an accepted Game 1 result does."""
    table = make_table("league", players=3, start=True)
    absent = make_user("Abe")
    table.register(absent)
    first, second, last_one = table.players
    for player in (first, second):
        table.choose_start(player)
        table.report(player, 1, "loss")
    assert table.refresh().registration_open  # the third player still waits for game 1
    before = head(table.event)
    if by == "house":
        services.player_withdraw(
            registration_id=table.rid(last_one), by=table.house, reason="Went home ill."
        )
    else:
        services.player_withdraw(registration_id=table.rid(last_one), by=last_one)
    assert not table.refresh().registration_open
    written = new_entries(table.event, before)
    assert [entry.action for entry in written] == ["player_withdrawn", "registration_closed"]
    closed = written[-1]
    assert (closed.actor, closed.actor_kind) == ("system", "system")
    assert closed.details == {"no_shows": ["Abe"]}
    assert {entry.at for entry in written} == {written[0].at}  # one transaction
    assert table.registration(absent).status == "no_show"


@pytest.mark.django_db
def test_registration_stays_open_while_another_player_waits_for_a_first_result():
    """A withdrawal that leaves a player without a first result leaves registration open."""
    table = make_table("league", players=3, start=True)
    first, second, _waiting = table.players
    table.choose_start(first)
    table.report(first, 1, "loss")
    services.player_withdraw(registration_id=table.rid(second), by=second)
    assert table.refresh().registration_open  # the third player has no first result yet
    assert not entries(table.event, "registration_closed")


@pytest.mark.django_db
def test_registration_does_not_close_when_a_player_withdraws_before_the_start():
    """Before the start nobody can have a first result: a withdrawal then leaves registration
    as House set it, even when it leaves nobody checked in."""
    table = make_table("league", players=1)
    (player,) = table.players
    services.player_withdraw(registration_id=table.rid(player), by=player)
    assert table.refresh().registration_open
    assert not entries(table.event, "registration_closed")


@pytest.mark.django_db
def test_registration_closes_when_a_house_submitted_first_result_leaves_nobody_waiting():
    """The rule holds whoever reports: House reporting the last first result for a player."""
    table = make_table("league", players=2, start=True)
    first, second = table.players
    table.choose_start(first)
    table.report(first, 1, "win")
    table.choose_start(second)
    services.result_submit(
        registration_id=table.rid(second),
        by=table.house,
        game=1,
        outcome="loss",
        reason="Phone battery died.",
    )
    assert not table.refresh().registration_open
    assert last(table.event, "registration_closed").actor == "system"


@pytest.mark.django_db
def test_registration_cannot_reopen_once_every_player_has_a_first_result():
    """Registration must close before the last player's first result, so House cannot open it
    again afterwards; a late participant is still House's to add."""
    table = make_table("league", players=2, start=True)
    for player in table.players:
        table.choose_start(player)
        table.report(player, 1, "loss")
    assert not table.refresh().registration_open
    error = refused(
        RegistrationCannotReopen,
        table.event,
        lambda: services.registration_open(event_id=table.event.pk, by=table.house),
    )
    assert "Every player has a first result" in error.message
    assert "late participant" in error.message
    late = make_user("Lou")
    services.participant_add(event_id=table.event.pk, by=table.house, player=late)
    assert table.registration(late).status == "checked_in"
    # The late participant waits for a first result: House may open registration again.
    services.registration_open(event_id=table.event.pk, by=table.house)
    assert table.refresh().registration_open
