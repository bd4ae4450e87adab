"""What the player's page says: the hand's names and places, the wild's effect, a review and a
correction in words; refusals next to the action; cancelling a registration from the page."""

from __future__ import annotations

import datetime
import re
import uuid
from typing import Any

import pytest
from django.contrib.messages import get_messages
from django.test import Client
from django.urls import reverse
from django.utils import timezone

from accounts.models import User
from audit.models import AuditEntry
from cards.models import Offer
from events import services
from events.models import Registration, RegistrationStatus
from events.player_words import HandNames, hand_names, wild_effect
from events.reads.player import PlayerState, player_state
from scoring.evaluator import evaluate_high, evaluate_low
from tests.factories import Table, make_table, make_user
from tests.refusals import unchanged
from web.templatetags.player_page import not_kept_left_ms, ordinal


def page_of(client: Client, table: Table, player: User) -> str:
    client.force_login(player)
    return client.get(reverse("web:event", args=[table.event.pk])).content.decode()


def text(html: str) -> str:
    """The page's words, tags and runs of spaces dropped."""
    return re.sub(r"\s+", " ", re.sub(r"<[^>]+>", " ", html))


def post(client: Client, name: str, table: Table, **data: Any) -> Any:
    data.setdefault("idempotency_key", uuid.uuid4().hex)
    return client.post(
        reverse(f"web:{name}", args=[table.event.pk]), data, headers={"HX-Request": "true"}
    )


# The hand in words


@pytest.mark.django_db
def test_it_names_the_kept_hand_high_and_low_and_the_places(client):
    table = make_table("league", players=2, start=True)
    ann, bob = table.players
    table.choose_start(ann)
    table.choose_start(bob)
    table.report(ann, 1, "loss")
    held = table.kept(ann)
    words = text(page_of(client, table, ann))
    assert f"High: {evaluate_high(held).description} · Low: {evaluate_low(held).description}" in (
        words
    )
    assert re.search(r"High (1st|2nd) of 2 · Low (1st|2nd) of 2 \(provisional\)", words), words


@pytest.mark.django_db
def test_it_names_no_hand_before_a_card_is_kept(client):
    table = make_table("switch", players=2, start=True)
    ann = table.players[0]
    page = page_of(client, table, ann)
    assert "data-hand-words" not in page
    assert "Standings begin with your first kept card." in page


@pytest.mark.django_db
def test_a_pending_offer_never_reaches_the_words(client):
    """Face-down starting cards have no name on the page: the words come from kept cards only."""
    table = make_table("switch", players=2, start=True)
    ann = table.players[0]
    me = services_snapshot(table, ann)
    assert me.hand_names == HandNames(high=None, low=None)
    assert me.wild_effect is None


def services_snapshot(table: Table, player: User) -> PlayerState:
    return player_state(table.registration(player))


def test_the_wilds_effect_names_the_hand_with_and_without_it():
    cards = ["7h", "Kd", "Ks", "7c", "3d", "4d", "9h"]
    assert wild_effect(cards, "7") == (
        "Your wild 7s make your High hand Four of a Kind, kings (2 substitutions); "
        "without the wild it would be Two Pair, kings and sevens."
    )
    assert wild_effect(cards, "Q") == (
        "You hold no queen, so the wild does not change your High hand."
    )
    assert wild_effect(["Ah", "Kh", "Qh", "Jh", "Th", "2c", "3d"], "2") == (
        "Your best High hand, Royal Flush, needs no wild 2."
    )
    assert wild_effect(cards, None) is None
    assert hand_names(["2c", "2d", "2h", "9s", "Kd"], None) == HandNames(
        high="Three of a Kind, twos", low="Three of a Kind, twos"
    )


@pytest.mark.django_db
def test_it_says_what_the_revealed_wild_does(client):
    table = make_table("league", players=2, start=True)
    ann = table.players[0]
    table.play_out(ann, "llllll")
    registration = table.registration(ann)
    wild = registration.wild_rank
    held = table.kept(ann)
    me = services_snapshot(table, ann)
    assert me.hand_names.high == evaluate_high(held, wild).description
    effect = me.wild_effect
    assert effect is not None
    holding = [card for card in held if card[0] == wild]
    if not holding:
        assert effect.startswith("You hold no ")
    elif evaluate_high(held, wild).substitutions:
        assert evaluate_high(held, wild).description in effect
        assert evaluate_high(held).description in effect
    else:
        assert "needs no wild" in effect
    assert effect in text(page_of(client, table, ann))


@pytest.mark.django_db
def test_it_says_what_house_reviews_and_why_and_that_a_corrected_win_keeps_its_choice(client):
    table = make_table("league", players=2, start=True)
    ann = table.players[0]
    table.choose_start(ann)
    table.report(ann, 1, "win")
    assert "You won game 1: keep one card" in page_of(client, table, ann)
    services.result_correct(
        registration_id=table.rid(ann), by=table.house, game=1, outcome="loss", reason="Misread"
    )
    words = text(page_of(client, table, ann))
    assert "You won game 1" not in words
    assert "Game 1 is now a loss, but its choice stays: keep one card" in words
    assert "House corrected game 1 from a win to a loss and is reviewing it. Reason: Misread" in (
        words
    )
    assert "Out of the standings while House reviews." in words


@pytest.mark.django_db
def test_it_says_why_house_paused_the_player(client):
    table = make_table("league", players=2, start=True)
    ann = table.players[0]
    table.choose_start(ann)
    services.review_open(registration_id=table.rid(ann), by=table.house, reason="Bag count")
    words = text(page_of(client, table, ann))
    assert "Waiting for House review" in words
    assert "House paused your play for a review. Reason: Bag count" in words


@pytest.mark.django_db
def test_a_resolved_review_leaves_no_review_words(client):
    table = make_table("league", players=2, start=True)
    ann = table.players[0]
    table.choose_start(ann)
    review = services.review_open(registration_id=table.rid(ann), by=table.house, reason="Look")
    services.review_resolve(review_id=review.review_id, by=table.house, reason="Fine")
    assert "data-review" not in page_of(client, table, ann)


def test_places_read_as_ordinals():
    assert [ordinal(n) for n in (1, 2, 3, 4, 11, 12, 13, 21, 22, 23, 101, 111)] == [
        "1st", "2nd", "3rd", "4th", "11th", "12th", "13th", "21st", "22nd", "23rd", "101st",
        "111th",
    ]  # fmt: skip


def test_not_kept_cards_count_their_three_seconds_from_the_confirmation():
    assert not_kept_left_ms(None) == 0
    for ago, full in ((0, 3000), (2, 1000), (4, 0)):
        confirmed = timezone.now() - datetime.timedelta(seconds=ago)
        left = not_kept_left_ms(confirmed)
        # The time the call itself took is measured, not guessed: a busy machine cannot fail it.
        took = (timezone.now() - confirmed).total_seconds() * 1000 - ago * 1000
        assert max(0, full - took) <= left <= full, (ago, left, took)


@pytest.mark.django_db
def test_a_reload_after_three_seconds_shows_no_not_kept_card(client):
    table = make_table("league", players=2, start=True)
    ann = table.players[0]
    table.choose_start(ann)
    assert page_of(client, table, ann).count("not-kept fade-away") == 2
    Offer.objects.filter(registration=table.registration(ann)).update(
        resolved_at=timezone.now() - datetime.timedelta(seconds=4)
    )
    page = page_of(client, table, ann)
    assert "not-kept" not in page and "kept-card" in page


# Refusals next to the action


@pytest.mark.django_db
def test_a_choice_made_in_another_tab_is_refused_in_the_answer_and_not_kept_for_later(client):
    table = make_table("league", players=2, start=True)
    ann = table.players[0]
    client.force_login(ann)
    post(client, "start_confirm", table, slot=["0"])
    with unchanged(table.event.pk):
        response = post(client, "start_confirm", table, slot=["1"])  # the other tab's form
        assert response.status_code == 200
        html = response.content.decode()
        assert "data-refusal" in html
        assert "Not saved: that choice was already made, in another tab or by House." in html
        assert 'data-step="report"' in html
        assert list(get_messages(response.wsgi_request)) == []  # nothing waits for the next page
    page = page_of(client, table, ann)
    assert "already made" not in page and 'class="messages"' not in page


@pytest.mark.django_db
def test_a_game_reported_in_another_tab_is_refused_in_the_answer(client):
    table = make_table("league", players=2, start=True)
    ann = table.players[0]
    table.choose_start(ann)
    client.force_login(ann)
    post(client, "report", table, game="1", outcome="loss")
    html = post(client, "report", table, game="1", outcome="win").content.decode()
    assert "Not saved: The next game to report is game 2." in html
    assert "another tab, or by House" in html


@pytest.mark.django_db
def test_registering_leaves_no_message_behind(client):
    table = make_table("league", players=1)
    pat = make_user("Pat")
    client.force_login(pat)
    response = client.post(
        reverse("web:register", args=[table.event.pk]), {"idempotency_key": uuid.uuid4().hex}
    )
    assert list(get_messages(response.wsgi_request)) == []
    page = page_of(client, table, pat)
    assert "Check in with House before playing." in page
    assert "when you arrive" not in page


# Cancelling a registration


@pytest.mark.django_db
def test_a_registered_player_cancels_from_the_page(client):
    table = make_table("league", players=1)
    pat = make_user("Pat")
    table.register(pat)
    page = page_of(client, table, pat)
    assert reverse("web:cancel", args=[table.event.pk]) in page
    confirm = client.get(reverse("web:cancel", args=[table.event.pk])).content.decode()
    assert "Cancel your registration?" in confirm and 'name="idempotency_key"' in confirm
    key = uuid.uuid4().hex
    for _ in range(2):  # a double tap cancels once
        response = client.post(
            reverse("web:cancel", args=[table.event.pk]), {"idempotency_key": key}
        )
        assert response["Location"] == reverse("web:event", args=[table.event.pk])
    assert table.registration(pat).status == RegistrationStatus.CANCELLED
    entries = AuditEntry.objects.filter(event=table.event, action="registration_cancelled")
    assert entries.count() == 1
    assert reverse("web:register", args=[table.event.pk]) in page_of(client, table, pat)


@pytest.mark.django_db
def test_a_checked_in_player_cannot_cancel(client):
    table = make_table("league", players=1)
    ann = table.players[0]
    assert reverse("web:cancel", args=[table.event.pk]) not in page_of(client, table, ann)
    with unchanged(table.event.pk):
        response = client.post(
            reverse("web:cancel", args=[table.event.pk]), {"idempotency_key": uuid.uuid4().hex}
        )
        assert response.status_code == 302
        said = [str(m) for m in get_messages(response.wsgi_request)]
        assert said == ["Only a registration not yet checked in can be cancelled."]
    assert table.registration(ann).status == RegistrationStatus.CHECKED_IN


@pytest.mark.django_db
def test_cancelling_needs_the_forms_key_and_a_registration(client):
    table = make_table("league", players=1)
    pat = make_user("Pat")
    table.register(pat)
    client.force_login(pat)
    response = client.post(reverse("web:cancel", args=[table.event.pk]), {})
    assert "This form is out of date" in str(next(iter(get_messages(response.wsgi_request))))
    assert table.registration(pat).status == RegistrationStatus.REGISTERED
    stranger = make_user("Stranger")
    client.force_login(stranger)
    response = client.post(
        reverse("web:cancel", args=[table.event.pk]), {"idempotency_key": uuid.uuid4().hex}
    )
    assert response.status_code == 404
    assert not Registration.objects.filter(event=table.event, player=stranger).exists()
