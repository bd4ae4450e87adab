"""The player page's actions, posted the way its forms post them: register, starting cards, a
result, a win's choice, leaving early; refusals in the services' words and nothing changed."""

from __future__ import annotations

import datetime
import uuid
from typing import Any

import pytest
from django.test import Client
from django.urls import reverse

from accounts.models import User
from cards.models import CardState, DealtCard, Offer
from events import services
from events.models import Event, GameResult, Registration, RegistrationStatus
from tests.factories import Table, make_table, make_user
from tests.refusals import refused_by_page, said, unchanged


def post(client: Client, name: str, event_id: int, *, htmx: bool = False, **data: Any) -> Any:
    """POST a player action as its form does: with the key the page rendered into the form."""
    data.setdefault("idempotency_key", uuid.uuid4().hex)
    headers = {"HX-Request": "true"} if htmx else {}
    return client.post(reverse(f"web:{name}", args=[event_id]), data, headers=headers)


def as_player(client: Client, player: User) -> Client:
    client.force_login(player)
    return client


def refused(client: Client, table: Table, name: str, *, message: str, **data: Any) -> Any:
    """The page refuses with the service's message and nothing in the event changed."""
    return refused_by_page(
        lambda: post(client, name, table.event.pk, **data),
        table.event,
        message=message,
        location=reverse("web:event", args=[table.event.pk]),
    )


def started(players: int = 2) -> tuple[Table, User]:
    table = make_table("league", players=players, start=True)
    return table, table.players[0]


# Register


@pytest.mark.django_db
def test_it_registers_the_player_once_for_a_double_tap(client):
    table = make_table("league")
    player = make_user("Ann")
    as_player(client, player)
    key = uuid.uuid4().hex
    for _ in range(2):
        response = post(client, "register", table.event.pk, idempotency_key=key)
        assert response.status_code == 302
    assert Registration.objects.filter(event=table.event, player=player).count() == 1
    registration = table.registration(player)
    assert registration.status == RegistrationStatus.REGISTERED


@pytest.mark.django_db
def test_it_shows_the_register_page_to_a_player_not_yet_registered(client):
    table = make_table("league")
    as_player(client, make_user("Ann"))
    page = client.get(reverse("web:event", args=[table.event.pk])).content.decode()
    assert reverse("web:register", args=[table.event.pk]) in page
    assert 'name="idempotency_key"' in page


@pytest.mark.django_db
def test_it_refuses_registration_once_registration_is_closed(client):
    table = make_table("league", players=2)
    services.registration_close(event_id=table.event.pk, by=table.house)
    player = make_user("Late")
    as_player(client, player)
    refused(client, table, "register", message="Registration is closed")
    assert not Registration.objects.filter(event=table.event, player=player).exists()


# Starting cards


@pytest.mark.django_db
def test_it_keeps_the_chosen_starting_card(client):
    table, ann = started()
    as_player(client, ann)
    response = post(client, "start_confirm", table.event.pk, slot=["2"])
    assert response.status_code == 302
    offer = Offer.objects.get(registration=table.registration(ann), kind="starting")
    assert offer.resolved_at is not None
    kept = DealtCard.objects.get(offer=offer, state=CardState.KEPT)
    assert kept.slot == 2
    assert table.kept(ann) == [kept.card]


@pytest.mark.django_db
def test_it_answers_htmx_with_the_players_fresh_panel(client):
    table, ann = started()
    as_player(client, ann)
    response = post(client, "start_confirm", table.event.pk, htmx=True, slot=["0"])
    assert response.status_code == 200
    page = response.content.decode()
    assert "<html" not in page  # the panel alone, not a whole page
    assert "Report game 1" in page
    assert "Your hand <span" in page and "(1 of 7)" in page


@pytest.mark.django_db
def test_it_refuses_the_wrong_number_of_starting_cards(client):
    table, ann = started()
    as_player(client, ann)
    refused(
        client,
        table,
        "start_confirm",
        slot=["0", "1"],
        message="Choose exactly 1 of 3 starting cards.",
    )


@pytest.mark.django_db
def test_it_refuses_starting_slots_that_are_not_numbers(client):
    table, ann = started()
    as_player(client, ann)
    refused(
        client,
        table,
        "start_confirm",
        slot=["x"],
        message="Choose the face-down cards by their places.",
    )


# Results


@pytest.mark.django_db
def test_it_records_a_loss_and_deals_its_card_into_the_hand(client):
    table, ann = started()
    table.choose_start(ann)
    as_player(client, ann)
    response = post(
        client, "report", table.event.pk, game="1", outcome="loss", opponent="Bob", score="9-21"
    )
    assert response.status_code == 302
    result = GameResult.objects.get(registration=table.registration(ann), game=1)
    assert (result.outcome, result.opponent, result.score, result.assisted) == (
        "loss",
        "Bob",
        "9-21",
        False,
    )
    assert len(table.kept(ann)) == 2


@pytest.mark.django_db
def test_it_records_a_result_once_for_a_double_tap(client):
    table, ann = started()
    table.choose_start(ann)
    as_player(client, ann)
    key = uuid.uuid4().hex
    for _ in range(2):
        post(client, "report", table.event.pk, game="1", outcome="loss", idempotency_key=key)
    assert GameResult.objects.filter(registration=table.registration(ann)).count() == 1
    assert len(table.kept(ann)) == 2


@pytest.mark.django_db
def test_it_refuses_a_result_out_of_order(client):
    table, ann = started()
    table.choose_start(ann)
    as_player(client, ann)
    refused(
        client,
        table,
        "report",
        game="2",
        outcome="loss",
        message="The next game to report is game 1.",
    )


@pytest.mark.django_db
@pytest.mark.parametrize("game", ["", "one", "-1", "1.5"])
def test_it_refuses_a_game_that_is_not_a_whole_number(client, game):
    table, ann = started()
    table.choose_start(ann)
    as_player(client, ann)
    refused(
        client,
        table,
        "report",
        game=game,
        outcome="loss",
        message="Choose the game you are reporting.",
    )


@pytest.mark.django_db
def test_it_refuses_an_outcome_other_than_win_or_loss(client):
    table, ann = started()
    table.choose_start(ann)
    as_player(client, ann)
    refused(
        client, table, "report", game="1", outcome="draw", message="The result is 'win' or 'loss'."
    )


@pytest.mark.django_db
def test_it_refuses_a_result_before_the_starting_cards(client):
    table, ann = started()
    as_player(client, ann)
    refused(
        client,
        table,
        "report",
        game="1",
        outcome="win",
        message="Finish selecting your starting cards before submitting game results.",
    )


# A win's choice


@pytest.mark.django_db
def test_it_keeps_the_tapped_card_of_a_win(client):
    table, ann = started()
    table.choose_start(ann)
    table.report(ann, 1, "win")
    offer = Offer.objects.get(registration=table.registration(ann), kind="win")
    second = DealtCard.objects.get(offer=offer, slot=1).card
    as_player(client, ann)
    response = post(client, "keep", table.event.pk, slot="1", offer_id=str(offer.pk))
    assert response.status_code == 302
    assert table.kept(ann)[-1] == second
    assert DealtCard.objects.get(offer=offer, slot=0).state == CardState.DISCARDED


@pytest.mark.django_db
@pytest.mark.parametrize("slot", ["", "-1", "x"])
def test_it_refuses_a_card_that_is_not_one_of_the_two(client, slot):
    table, ann = started()
    table.choose_start(ann)
    table.report(ann, 1, "win")
    as_player(client, ann)
    refused(client, table, "keep", slot=slot, message="Tap the card you want to keep.")


@pytest.mark.django_db
def test_it_refuses_a_card_past_the_offer_naming_its_count(client):
    table, ann = started()
    table.choose_start(ann)
    table.report(ann, 1, "win")
    offer = Offer.objects.get(registration=table.registration(ann), kind="win")
    as_player(client, ann)
    message = "This win offers 2 cards: choose card 0 to 1."
    refused(client, table, "keep", slot="2", offer_id=str(offer.pk), message=message)


@pytest.mark.django_db
def test_it_refuses_a_choice_when_nothing_is_offered(client):
    table, ann = started()
    table.choose_start(ann)
    as_player(client, ann)
    refused(
        client, table, "keep", slot="0", offer_id="1", message="There is no pending win choice."
    )


@pytest.mark.django_db
def test_the_page_refuses_a_keep_that_does_not_name_its_offer(client):
    table, ann = started()
    table.choose_start(ann)
    table.report(ann, 1, "win")
    as_player(client, ann)
    refused(client, table, "keep", slot="0", message="This form is out of date")


@pytest.mark.django_db
def test_a_keep_for_an_earlier_offer_is_refused_on_the_page(client):
    """Game 1's choice, sent after House settled it and game 2 dealt two other cards."""
    table, ann = started()
    table.choose_start(ann)
    table.report(ann, 1, "win")
    first = Offer.objects.get(registration=table.registration(ann), kind="win")
    services.win_choice_confirm(
        registration_id=table.rid(ann), by=table.house, slot=0, reason="Player stepped out"
    )
    table.report(ann, 2, "win")
    as_player(client, ann)
    with unchanged(table.event.pk):
        response = post(client, "keep", table.event.pk, htmx=True, slot="0", offer_id=str(first.pk))
        assert response.status_code == 200
        page = response.content.decode()
        assert "data-refusal" in page
        assert "That choice was for an earlier offer: look at your cards again." in page


# Leaving early


@pytest.mark.django_db
def test_it_asks_before_a_player_leaves(client):
    table, ann = started()
    as_player(client, ann)
    page = client.get(reverse("web:leave", args=[table.event.pk])).content.decode()
    assert 'name="idempotency_key"' in page
    assert table.registration(ann).status != RegistrationStatus.WITHDRAWN


@pytest.mark.django_db
@pytest.mark.parametrize(
    ("policy", "contribution", "words"),
    [
        ("cancellations", 10, "This event does not refund withdrawals: the contribution stays"),
        ("none", 10, "This event does not refund withdrawals: the contribution stays"),
        ("withdrawals", 10, "This event refunds withdrawals: House gives the contribution (up to"),
        ("withdrawals", 0, "This event takes no contribution, so there is nothing to refund."),
    ],
)
def test_the_leave_page_and_houses_withdrawal_state_the_events_refund_policy(
    client, policy, contribution, words
):
    table, ann = started()
    Event.objects.filter(pk=table.event.pk).update(refund_policy=policy, contribution=contribution)
    as_player(client, ann)
    page = client.get(reverse("web:leave", args=[table.event.pk])).content.decode()
    assert words in page
    assert ("stays in the pool" in page) == (policy != "withdrawals" and contribution > 0)
    client.force_login(table.house)
    dashboard = client.get(reverse("house:dashboard", args=[table.event.pk])).content.decode()
    assert words in dashboard


@pytest.mark.django_db
def test_it_withdraws_the_player_who_confirms_leaving(client):
    table, ann = started()
    as_player(client, ann)
    response = post(client, "leave", table.event.pk)
    assert response.status_code == 302
    assert table.registration(ann).status == RegistrationStatus.WITHDRAWN
    assert any("no longer eligible" in text for text in said(response))


# Who may act


@pytest.mark.django_db
@pytest.mark.parametrize("name", ["start_confirm", "report", "keep", "leave"])
def test_it_answers_404_to_a_player_not_in_the_event(client, name):
    table, _ = started()
    with unchanged(table.event.pk):
        as_player(client, make_user("Stranger"))
        response = post(client, name, table.event.pk, game="1", outcome="loss", slot="0")
        assert response.status_code == 404


@pytest.mark.django_db
@pytest.mark.parametrize("name", ["register", "start_confirm", "report", "keep", "leave"])
def test_it_sends_a_visitor_to_sign_in_and_changes_nothing(client, name):
    table, _ = started()
    with unchanged(table.event.pk):
        response = post(client, name, table.event.pk, game="1", outcome="loss", slot="0")
        assert response.status_code == 302
        assert reverse("account_login") in response["Location"]


@pytest.mark.django_db
@pytest.mark.parametrize("name", ["start_confirm", "report", "keep"])
def test_it_refuses_get_for_an_action(client, name):
    table, ann = started()
    as_player(client, ann)
    assert client.get(reverse(f"web:{name}", args=[table.event.pk])).status_code == 405


@pytest.mark.django_db
def test_it_hides_a_draft_event(client):
    services.event_create(
        by=make_user("House", staff=True),
        name="Draft night",
        date=datetime.date(2026, 12, 3),
        format="league",
        contribution=0,
        extra_decks=1,
        remainder_policy="",
    )
    event_id = Event.objects.get(name="Draft night").pk
    as_player(client, make_user("Ann"))
    assert client.get(reverse("web:event", args=[event_id])).status_code == 404
    assert post(client, "register", event_id).status_code == 404


# Settings


@pytest.mark.django_db
def test_it_saves_the_four_colour_deck_setting(client):
    player = make_user("Ann")
    as_player(client, player)
    response = client.post(reverse("web:settings"), {"four_colour_deck": "on"})
    assert response.status_code == 302
    player.refresh_from_db()
    assert player.four_colour_deck
    client.post(reverse("web:settings"), {})
    player.refresh_from_db()
    assert not player.four_colour_deck
