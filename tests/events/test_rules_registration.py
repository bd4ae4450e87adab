"""Rules section 1 ("Check in with House before playing ...") and SPEC section 3: registration,
check-in, late entry and the automatic close of registration."""

from __future__ import annotations

import datetime

import pytest

from cards.models import Offer
from events import services
from events.answers import ParticipantAdded, PlayerRegistered
from events.errors import (
    AlreadyRegistered,
    LateEntryClosed,
    NoSupportedPlace,
    NotAllowed,
    NotCheckedIn,
    NotFound,
    RegistrationClosed,
    WrongPhase,
)
from tests.events.test_rules_support import (
    FAST_HASHERS,
    head,
    last,
    new_entries,
    refused,
)
from tests.factories import make_table, make_user


@pytest.fixture(autouse=True)
def _fast_passwords(settings):
    settings.PASSWORD_HASHERS = FAST_HASHERS


@pytest.mark.django_db
def test_it_lets_players_register_themselves_while_registration_is_open():
    """Players register themselves while registration is open."""
    table = make_table("league")
    ann = make_user("Ann")
    answer = services.player_register(event_id=table.event.pk, by=ann)
    registration = table.registration(ann)
    assert answer == PlayerRegistered(registration_id=registration.pk, label="Ann")
    assert registration.status == "registered"
    entry = last(table.event, "player_registered")
    assert (entry.actor, entry.player, entry.details, entry.reason) == ("Ann", "Ann", {}, None)


@pytest.mark.django_db
def test_it_refuses_self_registration_while_registration_is_closed():
    """Players register themselves while registration is open."""
    table = make_table("league", players=2, start=True)
    services.registration_close(event_id=table.event.pk, by=table.house)
    error = refused(
        RegistrationClosed,
        table.event,
        lambda: services.player_register(event_id=table.event.pk, by=make_user("Lou")),
    )
    assert error.status == 409


@pytest.mark.django_db
def test_it_refuses_self_registration_for_a_draft_event():
    """Players register themselves while registration is open (a draft is not open)."""
    house = make_user("House", staff=True)
    event_id = services.event_create(
        by=house, name="Night", date=datetime.date(2026, 12, 3), format="league"
    ).event_id
    ann = make_user("Ann")
    refused(
        (NotFound, RegistrationClosed),
        event_id,
        lambda: services.player_register(event_id=event_id, by=ann),
    )


@pytest.mark.django_db
def test_it_refuses_registering_twice():
    """Players register themselves (once)."""
    table = make_table("league")
    ann = make_user("Ann")
    table.register(ann)
    refused(
        AlreadyRegistered,
        table.event,
        lambda: services.player_register(event_id=table.event.pk, by=ann),
    )


@pytest.mark.django_db
def test_it_makes_labels_unique_within_the_event_with_a_suffix():
    """A player's public label is their display name, made unique within the event with a suffix
    (" #2") when needed."""
    table = make_table("league")
    first, second, third = make_user("Ann"), make_user("Ann"), make_user("Ann")
    for player in (first, second, third):
        table.register(player)
    assert [table.registration(p).label for p in (first, second, third)] == [
        "Ann",
        "Ann #2",
        "Ann #3",
    ]
    assert last(table.event, "player_registered").player == "Ann #3"
    other = make_table("league")
    other.register(second)
    assert other.registration(second).label == "Ann"  # unique within the event only


@pytest.mark.django_db
def test_it_lets_house_check_players_in():
    """Check in with House before playing. House checks them in."""
    table = make_table("league")
    ann = make_user("Ann")
    table.register(ann)
    services.player_check_in(registration_id=table.rid(ann), by=table.house)
    registration = table.registration(ann)
    assert registration.status == "checked_in"
    assert registration.checked_in_at is not None
    assert not registration.late
    entry = last(table.event, "player_checked_in")
    assert (entry.actor, entry.player) == ("House: House", "Ann")
    assert entry.details["late"] is False
    assert entry.details["added_by_house"] is False


@pytest.mark.django_db
def test_it_refuses_players_checking_in_without_house():
    """House checks them in (a player cannot check themself or another player in)."""
    table = make_table("league")
    ann, bob = make_user("Ann"), make_user("Bob")
    table.register(ann)
    table.register(bob)
    refused(
        NotAllowed,
        table.event,
        lambda: services.player_check_in(registration_id=table.rid(ann), by=ann),
    )
    # Another player's registration is not theirs to see at all.
    refused(
        NotFound,
        table.event,
        lambda: services.player_check_in(registration_id=table.rid(ann), by=bob),
    )


@pytest.mark.django_db
def test_it_lets_only_checked_in_players_play():
    """Only checked-in players play."""
    table = make_table("league", players=2)
    waiting = make_user("Wes")
    table.register(waiting)
    table.start()
    assert not Offer.objects.filter(registration=table.registration(waiting)).exists()
    refused(NotCheckedIn, table.event, lambda: table.report(waiting, 1, "loss"))
    refused(NotCheckedIn, table.event, lambda: table.choose_start(waiting))


@pytest.mark.django_db
def test_it_lets_a_registration_be_cancelled_until_check_in():
    """Registrations not cancelled and not no-shows count (a registration can be cancelled)."""
    table = make_table("league", players=2)
    ann = make_user("Ann")
    table.register(ann)
    services.registration_cancel(registration_id=table.rid(ann), by=ann)
    assert table.registration(ann).status == "cancelled"
    assert last(table.event, "registration_cancelled").player == "Ann"
    checked_in = table.players[0]
    refused(
        WrongPhase,
        table.event,
        lambda: services.registration_cancel(registration_id=table.rid(checked_in), by=checked_in),
    )


@pytest.mark.django_db
def test_it_undoes_a_check_in_only_before_the_start():
    """Only checked-in players play; the stock is sized from the checked-in players at start."""
    table = make_table("league", players=3)
    third = table.players[2]
    services.check_in_undo(registration_id=table.rid(third), by=table.house)
    assert table.registration(third).status == "registered"
    table.start()
    assert last(table.event, "event_started").details["players"] == 2
    first = table.players[0]
    refused(
        WrongPhase,
        table.event,
        lambda: services.check_in_undo(registration_id=table.rid(first), by=table.house),
    )


@pytest.mark.django_db
def test_it_admits_a_late_entry_with_a_house_check_in():
    """Late entry after start: House check-in, a remaining supported place, and no accepted
    Round 2 result from anyone in the event."""
    table = make_table("league", players=2, start=True)
    table.choose_start(table.players[0])
    table.report(table.players[0], 1, "loss")  # a Round 1 result does not close late entry
    late = make_user("Lou")
    table.register(late)
    services.player_check_in(registration_id=table.rid(late), by=table.house)
    registration = table.registration(late)
    assert registration.status == "checked_in"
    assert registration.late
    assert last(table.event, "player_checked_in").details["late"] is True
    assert Offer.objects.filter(registration=registration, kind="starting").count() == 1


@pytest.mark.django_db
def test_it_refuses_a_late_entry_after_a_round_2_result():
    """Late entry requires ... no Round 2 results yet."""
    table = make_table("league", players=3, start=True)
    first = table.players[0]
    table.choose_start(first)
    table.report(first, 1, "loss")
    table.report(first, 2, "loss")
    late = make_user("Lou")
    table.register(late)  # registration is still open: two players have no first result
    error = refused(
        LateEntryClosed,
        table.event,
        lambda: services.player_check_in(registration_id=table.rid(late), by=table.house),
    )
    assert error.status == 409
    refused(
        LateEntryClosed,
        table.event,
        lambda: services.participant_add(
            event_id=table.event.pk, by=table.house, player=make_user("Max")
        ),
    )


@pytest.mark.django_db
def test_it_refuses_a_late_entry_without_a_remaining_supported_place():
    """Late entry requires House check-in, a remaining supported place ..."""
    # League, 2 players, no extra deck: 1 deck, floor(52 / 15) = 3 supported places.
    table = make_table("league", players=2, start=True, extra_decks=0)
    assert table.event.supported_places == 3
    table.join("Third")
    fourth = make_user("Fourth")
    table.register(fourth)
    refused(
        NoSupportedPlace,
        table.event,
        lambda: services.player_check_in(registration_id=table.rid(fourth), by=table.house),
    )
    refused(
        NoSupportedPlace,
        table.event,
        lambda: services.participant_add(event_id=table.event.pk, by=table.house, player=fourth),
    )


@pytest.mark.django_db
def test_it_lets_house_add_a_late_participant_after_registration_closed():
    """House may add a late participant after registration closed under the same conditions."""
    table = make_table("league", players=2, start=True)
    services.registration_close(event_id=table.event.pk, by=table.house)
    late = make_user("Lou")
    answer = services.participant_add(event_id=table.event.pk, by=table.house, player=late)
    registration = table.registration(late)
    assert answer == ParticipantAdded(registration_id=registration.pk, label="Lou")
    assert (registration.status, registration.late, registration.added_by_house) == (
        "checked_in",
        True,
        True,
    )
    checked_in = last(table.event, "player_checked_in")
    assert (checked_in.details["late"], checked_in.details["added_by_house"]) == (True, True)
    assert Offer.objects.filter(registration=registration, kind="starting").count() == 1
    assert not table.refresh().registration_open  # adding does not reopen registration


@pytest.mark.django_db
def test_it_lets_only_house_add_a_participant():
    """House controls late registration."""
    table = make_table("league", players=2, start=True)
    refused(
        NotAllowed,
        table.event,
        lambda: services.participant_add(
            event_id=table.event.pk, by=table.players[0], player=make_user("Friend")
        ),
    )


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
def test_it_lets_house_add_late_participants_after_the_automatic_close():
    """House may still add late participants under the late-entry conditions."""
    table = make_table("switch", players=2, start=True)
    for player in table.players:
        table.choose_start(player)
        table.report(player, 1, "loss")
    assert not table.refresh().registration_open
    late = make_user("Lou")
    services.participant_add(event_id=table.event.pk, by=table.house, player=late)
    assert table.registration(late).status == "checked_in"
    assert table.registration(late).late
