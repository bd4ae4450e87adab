"""House acting for one player: assists, selections, corrections, reviews, withdrawal, access
reset and the Standard v1 wild reveal."""

from __future__ import annotations

import pytest
from django.contrib.sessions.models import Session

from cards.models import CardState, DealtCard, KeptSource
from events import services
from events.models import GameResult, Review
from tests.events.support import last
from tests.factories import make_table
from tests.house.support import REASON, house_client, post, refused_by_page, url
from tests.refusals import said

ASSIST_REASON = "House must give a reason when acting for a player."


@pytest.fixture
def league(client):
    table = make_table("league", players=2, start=True)
    house_client(client, table)
    return table


@pytest.mark.django_db
def test_it_submits_a_result_for_a_player_with_a_reason(client, league):
    ann = league.players[0]
    league.choose_start(ann)
    rid = league.rid(ann)
    response = post(
        client,
        "result_submit",
        league.event.pk,
        rid,
        game="1",
        outcome="loss",
        opponent="Bob",
        score="15-21",
        reason=REASON,
    )
    assert response["Location"].endswith(f"#player-{rid}")
    result = GameResult.objects.get(registration_id=rid, game=1)
    assert (result.outcome, result.assisted, result.opponent) == ("loss", True, "Bob")
    entry = last(league.event, "result_submitted")
    assert entry.reason == REASON and entry.actor == "House: House"
    assert any("Game 1 recorded as a loss" in text for text in said(response))


@pytest.mark.django_db
def test_it_refuses_an_assisted_result_without_a_reason(client, league):
    ann = league.players[0]
    league.choose_start(ann)
    refused_by_page(
        client,
        league,
        "result_submit",
        league.event.pk,
        league.rid(ann),
        game="1",
        outcome="win",
        reason="   ",
        message=ASSIST_REASON,
    )


@pytest.mark.django_db
def test_it_refuses_an_out_of_order_result_with_the_services_words(client, league):
    ann = league.players[0]
    league.choose_start(ann)
    refused_by_page(
        client,
        league,
        "result_submit",
        league.event.pk,
        league.rid(ann),
        game="3",
        outcome="win",
        reason=REASON,
        message="The next game to report is game 1.",
    )


@pytest.mark.django_db
def test_it_refuses_a_result_without_a_game_number(client, league):
    refused_by_page(
        client,
        league,
        "result_submit",
        league.event.pk,
        league.rid(league.players[0]),
        game="first",
        outcome="win",
        reason=REASON,
        message="Choose the game to report.",
    )


@pytest.mark.django_db
def test_it_makes_the_win_choice_for_a_player_with_a_reason(client, league):
    ann = league.players[0]
    league.choose_start(ann)
    offered = league.win(ann, 1)
    response = post(
        client, "win_choice", league.event.pk, league.rid(ann), slot="1", reason="Left the bar."
    )
    assert league.kept(ann)[-1] == offered[1]
    kept = DealtCard.objects.get(
        registration=league.registration(ann), card=offered[1], kept_index=1
    )
    assert kept.kept_source == KeptSource.HOUSE
    assert any("keeps the card chosen by House for game 1" in text for text in said(response))


@pytest.mark.django_db
def test_it_refuses_a_win_choice_without_a_reason(client, league):
    ann = league.players[0]
    league.choose_start(ann)
    league.report(ann, 1, "win")
    refused_by_page(
        client,
        league,
        "win_choice",
        league.event.pk,
        league.rid(ann),
        slot="0",
        reason="",
        message=ASSIST_REASON,
    )


@pytest.mark.django_db
def test_it_refuses_a_win_choice_without_a_card(client, league):
    ann = league.players[0]
    league.choose_start(ann)
    league.report(ann, 1, "win")
    refused_by_page(
        client,
        league,
        "win_choice",
        league.event.pk,
        league.rid(ann),
        reason=REASON,
        message="Choose one of the two face-up cards.",
    )


@pytest.mark.django_db
def test_it_makes_the_starting_selection_for_a_player_by_slot(client):
    table = make_table("switch", players=2, start=True)
    house_client(client, table)
    ann = table.players[0]
    response = client.post(
        url("starting_selection", table.event.pk, table.rid(ann)),
        {"idempotency_key": "s1", "slot": ["0", "2", "4"], "reason": "Phone died."},
    )
    assert response.status_code == 302
    kept = DealtCard.objects.filter(registration=table.registration(ann), state=CardState.KEPT)
    assert sorted(kept.values_list("slot", flat=True)) == [0, 2, 4]
    assert last(table.event, "starting_selection_confirmed").reason == "Phone died."


@pytest.mark.django_db
def test_it_refuses_a_starting_selection_with_the_wrong_count_or_no_reason(client):
    table = make_table("switch", players=2, start=True)
    house_client(client, table)
    rid = table.rid(table.players[0])
    refused_by_page(
        client,
        table,
        "starting_selection",
        table.event.pk,
        rid,
        slot=["0", "1"],
        reason=REASON,
        message="Choose exactly 3 of 5 starting cards.",
    )
    refused_by_page(
        client,
        table,
        "starting_selection",
        table.event.pk,
        rid,
        slot=["0", "1", "2"],
        reason="",
        message=ASSIST_REASON,
    )


@pytest.mark.django_db
def test_it_corrects_a_result_and_pauses_the_player(client, league):
    ann = league.players[0]
    league.choose_start(ann)
    league.report(ann, 1, "loss")
    cards_before = league.kept(ann)
    response = post(
        client,
        "result_correct",
        league.event.pk,
        league.rid(ann),
        game="1",
        outcome="win",
        reason="Scoreholio row 2 shows a win",
    )
    assert response["Location"].endswith("#reviews")
    registration = league.registration(ann)
    assert registration.paused
    assert GameResult.objects.get(registration=registration, game=1).outcome == "win"
    assert league.kept(ann) == cards_before
    review = Review.objects.get(registration=registration)
    assert (review.corrected_from, review.corrected_to) == ("loss", "win")


@pytest.mark.django_db
def test_it_refuses_a_correction_without_a_reason(client, league):
    ann = league.players[0]
    league.choose_start(ann)
    league.report(ann, 1, "loss")
    refused_by_page(
        client,
        league,
        "result_correct",
        league.event.pk,
        league.rid(ann),
        game="1",
        outcome="win",
        reason="",
        message="House must give a reason for a correction.",
    )


@pytest.mark.django_db
def test_it_pauses_a_player_for_review_and_resolves_it(client, league):
    ann = league.players[0]
    rid = league.rid(ann)
    post(client, "review_open", league.event.pk, rid, reason="Disputed game.")
    assert league.registration(ann).paused
    review = Review.objects.get(registration_id=rid)
    page = client.get(url("dashboard", league.event.pk)).content.decode()
    assert "Paused for review" in page and "“Disputed game.”" in page
    response = post(
        client, "review_resolve", league.event.pk, review.pk, reason="Checked: the result stands."
    )
    assert response["Location"].endswith("#reviews")
    review.refresh_from_db()
    assert review.resolution == "Checked: the result stands."
    assert review.resolved_by == "House: House"
    assert not league.registration(ann).paused


@pytest.mark.django_db
def test_it_refuses_a_pause_or_a_resolution_without_a_reason(client, league):
    rid = league.rid(league.players[0])
    refused_by_page(
        client,
        league,
        "review_open",
        league.event.pk,
        rid,
        reason=" ",
        message="House must give a reason for a pause.",
    )
    services.review_open(registration_id=rid, by=league.house, reason="Check.")
    review = Review.objects.get(registration_id=rid)
    refused_by_page(
        client,
        league,
        "review_resolve",
        league.event.pk,
        review.pk,
        reason="",
        message="House must give a reason when resolving a review.",
    )


@pytest.mark.django_db
def test_it_answers_404_for_a_review_of_another_event(client, league):
    other = make_table("league", players=2, start=True)
    rid = other.rid(other.players[0])
    services.review_open(registration_id=rid, by=other.house, reason="Check.")
    review = Review.objects.get(registration_id=rid)
    response = post(client, "review_resolve", league.event.pk, review.pk, reason="Mine now")
    assert response.status_code == 404
    assert Review.objects.get(pk=review.pk).resolved_at is None


@pytest.mark.django_db
def test_it_withdraws_a_player_with_a_reason(client, league):
    ann = league.players[0]
    response = post(client, "withdraw", league.event.pk, league.rid(ann), reason="Went home ill.")
    assert league.registration(ann).status == "withdrawn"
    assert last(league.event, "player_withdrawn").reason == "Went home ill."
    assert any("is withdrawn" in text for text in said(response))


@pytest.mark.django_db
def test_registration_closes_when_the_last_player_without_a_first_result_withdraws(client, league):
    """From the House page as from the API: the withdrawal leaves nobody waiting for a first
    result, so registration closes with it (actor "system") and the switch says so."""
    ann, bob = league.players
    league.choose_start(ann)
    league.report(ann, 1, "loss")
    post(client, "withdraw", league.event.pk, league.rid(bob), reason="Went home ill.")
    assert not league.refresh().registration_open
    assert last(league.event, "registration_closed").actor == "system"
    page = client.get(url("dashboard", league.event.pk)).content.decode()
    assert "Every player has a first result, so registration closed for good." in page
    assert url("registration_open", league.event.pk) not in page


@pytest.mark.django_db
def test_it_refuses_a_withdrawal_without_a_reason(client, league):
    refused_by_page(
        client,
        league,
        "withdraw",
        league.event.pk,
        league.rid(league.players[0]),
        reason="",
        message="House must give a reason for a withdrawal.",
    )


@pytest.mark.django_db
def test_it_resets_a_players_access_with_a_reason(
    client, league, django_capture_on_commit_callbacks
):
    ann = league.players[0]
    client.force_login(ann)
    ann_session = client.session.session_key
    client.force_login(league.house)
    with django_capture_on_commit_callbacks() as queued:
        response = post(
            client, "access_reset", league.event.pk, league.rid(ann), reason="Lost phone."
        )
    assert last(league.event, "access_reset").reason == "Lost phone."
    assert not Session.objects.filter(session_key=ann_session).exists()
    assert queued, "the reset email is sent once the change commits"
    assert any("signed out everywhere" in text for text in said(response))


@pytest.mark.django_db
def test_it_refuses_an_access_reset_without_a_reason(client, league):
    refused_by_page(
        client,
        league,
        "access_reset",
        league.event.pk,
        league.rid(league.players[0]),
        reason="",
        message="House must give a reason for an access reset.",
    )


@pytest.mark.django_db
def test_it_reveals_a_standard_v1_wild_without_a_reason(client):
    table = make_table("standard-v1", players=2, start=True)
    house_client(client, table)
    ann = table.players[0]
    table.play_out(ann)
    page = client.get(url("dashboard", table.event.pk)).content.decode()
    assert "Reveal wild" in page
    response = post(client, "wild_reveal", table.event.pk, table.rid(ann))
    assert table.registration(ann).wild_rank
    assert any("wild is revealed" in text for text in said(response))


@pytest.mark.django_db
def test_it_refuses_to_reveal_an_incomplete_hand(client):
    table = make_table("standard-v1", players=2, start=True)
    house_client(client, table)
    ann = table.players[0]
    label = table.registration(ann).label
    refused_by_page(
        client,
        table,
        "wild_reveal",
        table.event.pk,
        table.rid(ann),
        message=f"{label}'s hand is not complete yet.",
    )


@pytest.mark.django_db
def test_it_opens_and_closes_registration(client):
    table = make_table("league", players=2)
    house_client(client, table)
    post(client, "registration_close", table.event.pk)
    assert not table.refresh().registration_open
    refused_by_page(
        client,
        table,
        "registration_close",
        table.event.pk,
        message="Registration is already closed.",
    )
    post(client, "registration_open", table.event.pk)
    assert table.refresh().registration_open


@pytest.mark.django_db
def test_it_starts_the_event(client):
    table = make_table("league", players=3)
    house_client(client, table)
    response = post(client, "event_start", table.event.pk)
    event = table.refresh()
    assert event.phase == "started"
    assert "The event has started: 2 decks in the stock, 6 supported places." in said(response)


@pytest.mark.django_db
def test_it_refuses_to_start_with_one_player(client):
    table = make_table("league", players=1)
    house_client(client, table)
    refused_by_page(
        client,
        table,
        "event_start",
        table.event.pk,
        message="Starting needs at least two checked-in players.",
    )
