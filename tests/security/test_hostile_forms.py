"""Every page form, posted as an attacker would: hostile numbers and hostile text in each field.

Each action is posted through the app with an otherwise sensible form (its rendered key, the next
game, a real reason), one field swapped for a hostile value. The page never answers 5xx, says what
is wrong in a message or a form error, and the event is exactly as it was.
"""

from __future__ import annotations

import uuid
from typing import Any

import pytest
from django.test import Client
from django.urls import reverse

from accounts.models import User
from events.models import Event, Registration
from tests.factories import Table, make_table, make_user
from tests.refusals import said, unchanged
from tests.routes import MORE_FORMS

NUMBERS = [
    "\u00b9",  # superscript one: str.isdigit() says yes, int() says no
    "\u00b2",
    "\x00",
    "9" * 5000,
    str(2**31),
    str(-(2**31) - 1),
    str(10**20),
    "1\x00",
    "\u202e1",
]
TEXTS = [
    "\x00",
    "a\x00b",
    "x" * 5000,
    "bell\x07",
    "esc\x1b[31m",
    "c1\x85x",
    "\u202eevil",
    "iso\u2066late",
]
SINGLE_LINE_TEXTS = [*TEXTS, "two\nlines", "tab\there"]


def refused_quietly(client: Client, url: str, data: dict[str, Any], event_id: int) -> list[str]:
    """Posted, refused with a message (or a form's errors, or a 404), nothing changed."""
    with unchanged(event_id, f"{url} with {data!r}"):
        response = client.post(url, {"idempotency_key": uuid.uuid4().hex, **data})
    assert response.status_code < 500, (url, data)
    messages = said(response)
    form_errors = response.status_code == 200 and b"errorlist" in response.content
    # A well-formed id that names nothing is a plain 404 page.
    assert messages or form_errors or response.status_code == 404, (url, data, response.status_code)
    assert not any("Something went wrong" in text for text in messages)
    return messages


# --- the player's page --------------------------------------------------------------------------


def started() -> tuple[Table, User]:
    table = make_table("league", players=2, start=True)
    return table, table.players[0]


PLAYER_FORMS: list[tuple[str, dict[str, Any], list[str], list[str]]] = [
    # (page, a sensible form, its number fields, its text fields)
    ("report", {"game": "1", "outcome": "loss"}, ["game"], []),
    ("report", {"game": "1", "outcome": "loss", "opponent": "Bo", "score": "21-3"}, [], []),
    ("keep", {"slot": "0", "offer_id": "1"}, ["slot", "offer_id"], []),
    ("start_confirm", {"slot": "0"}, ["slot"], []),
]


# One event per form, every hostile value posted to it in turn (each must leave it unchanged).


@pytest.mark.django_db
@pytest.mark.parametrize(("page", "form", "numbers", "texts"), PLAYER_FORMS)
def test_player_number_fields_refuse_hostile_numbers(client, page, form, numbers, texts):
    table, player = started()
    client.force_login(player)
    url = reverse(f"web:{page}", args=[table.event.pk])
    for name in numbers:
        for value in NUMBERS:
            refused_quietly(client, url, {**form, name: value}, table.event.pk)


@pytest.mark.django_db
@pytest.mark.parametrize("name", ["opponent", "score", "outcome"])
def test_a_reported_result_refuses_hostile_text(client, name):
    table, player = started()
    client.force_login(player)
    url = reverse("web:report", args=[table.event.pk])
    form = {"game": "1", "outcome": "loss", "opponent": "Bo", "score": "21-3"}
    for value in SINGLE_LINE_TEXTS:
        refused_quietly(client, url, {**form, name: value}, table.event.pk)


@pytest.mark.django_db
def test_an_over_long_opponent_is_refused_not_cut(client):
    table, player = started()
    client.force_login(player)
    url = reverse("web:report", args=[table.event.pk])
    with unchanged(table.event.pk):
        response = client.post(
            url, {"idempotency_key": "k1", "game": "1", "outcome": "loss", "opponent": "B" * 81}
        )
        assert response.status_code == 302
        assert any("80" in text for text in said(response)), said(response)


@pytest.mark.django_db
@pytest.mark.parametrize("page", ["report", "keep", "start_confirm", "leave", "register"])
def test_player_forms_refuse_a_hostile_key(client, page):
    table, player = started()
    client.force_login(player)
    url = reverse(f"web:{page}", args=[table.event.pk])
    for key in ["\x00", "k" * 201, "\u202ekey"]:
        with unchanged(table.event):
            response = client.post(url, {"idempotency_key": key, "game": "1", "outcome": "loss"})
        assert response.status_code < 500
        assert said(response)


# --- House pages --------------------------------------------------------------------------------

HOUSE_FORMS: list[tuple[str, bool, dict[str, Any], list[str], list[str]]] = [
    # (page, on a player, a sensible form, number fields, text fields)
    ("result_submit", True, {"game": "1", "outcome": "loss", "reason": "Hand"}, ["game"], []),
    ("result_submit", True, {"game": "1", "outcome": "loss"}, [], ["reason"]),
    ("win_choice", True, {"slot": "0", "reason": "Asked"}, ["slot"], ["reason"]),
    ("starting_selection", True, {"slot": "0", "reason": "Asked"}, ["slot"], ["reason"]),
    ("result_correct", True, {"game": "1", "outcome": "win"}, ["game"], ["reason"]),
    ("review_open", True, {"reason": "Check"}, [], ["reason"]),
    ("withdraw", True, {"reason": "Left"}, [], ["reason"]),
    ("access_reset", True, {"reason": "Lost phone"}, [], ["reason"]),
    ("participant_add", False, {"email": "new@example.com"}, ["registration"], ["email"]),
    ("pool_confirm", False, {"amount": "5", "explanation": "Tip"}, ["amount"], ["explanation"]),
]


@pytest.fixture
def house_table(client) -> Table:
    table = make_table("league", players=2, start=True)
    table.choose_start(table.players[1])
    table.report(table.players[1], 1, "loss")
    User.objects.filter(pk=make_user("Newcomer").pk).update(email="new@example.com")
    client.force_login(table.house)
    return table


def _house_url(table: Table, page: str, on_player: bool) -> str:
    args = [table.event.pk] + ([table.rid(table.players[1])] if on_player else [])
    return reverse(f"house:{page}", args=args)


@pytest.mark.django_db
@pytest.mark.parametrize(("page", "on_player", "form", "numbers", "texts"), HOUSE_FORMS)
def test_house_number_fields_refuse_hostile_numbers(
    client, house_table, page, on_player, form, numbers, texts
):
    url = _house_url(house_table, page, on_player)
    for name in numbers:
        for value in NUMBERS:
            refused_quietly(client, url, {**form, name: value}, house_table.event.pk)


@pytest.mark.django_db
@pytest.mark.parametrize(("page", "on_player", "form", "numbers", "texts"), HOUSE_FORMS)
def test_house_text_fields_refuse_hostile_text(
    client, house_table, page, on_player, form, numbers, texts
):
    url = _house_url(house_table, page, on_player)
    for name in texts:
        for value in TEXTS:
            refused_quietly(client, url, {**form, name: value}, house_table.event.pk)


# The event form's body the route sweeps post (tests/routes.py), at a venue named by hand.
EVENT_FORM = {**MORE_FORMS["event_new"], "name": "Friday League", "venue": "The Barn"}


@pytest.mark.django_db
@pytest.mark.parametrize("name", ["contribution", "extra_decks"])
def test_the_event_form_refuses_hostile_numbers(client, name):
    table = make_table("league", players=2)
    client.force_login(table.house)
    for value in [*NUMBERS, str(1_000_001)]:
        for url in [
            reverse("house:event_edit", args=[table.event.pk]),
            reverse("house:event_new"),
        ]:
            events = Event.objects.count()
            refused_quietly(client, url, {**EVENT_FORM, name: value}, table.event.pk)
            assert Event.objects.count() == events


@pytest.mark.django_db
@pytest.mark.parametrize("name", ["name", "venue", "time_zone", "remainder_policy"])
def test_the_event_form_refuses_hostile_text(client, name):
    table = make_table("league", players=2)
    client.force_login(table.house)
    # The remainder policy is multi-line text: line breaks and tabs are its own.
    values = TEXTS if name == "remainder_policy" else SINGLE_LINE_TEXTS
    for value in values:
        for url in [
            reverse("house:event_edit", args=[table.event.pk]),
            reverse("house:event_new"),
        ]:
            events = Event.objects.count()
            refused_quietly(client, url, {**EVENT_FORM, name: value}, table.event.pk)
            assert Event.objects.count() == events


@pytest.mark.django_db
def test_a_contribution_that_would_overflow_the_pool_is_refused(client):
    """The largest contribution times the participants stays within the pool's column: one more
    participant past that is refused in words, and the pool can always be confirmed."""
    table = make_table("league", players=2, contribution=1_000_000)
    client.force_login(table.house)
    table.event.contribution = 1_000_000
    table.event.save(update_fields=["contribution"])
    # 2,147 participants at $1,000,000 fit; the 2,148th would not. The 2,145 others are made
    # directly (building that many through the services is slow).
    players = [make_user(f"P{n}") for n in range(2145)]
    Registration.objects.bulk_create(
        Registration(event=table.event, player=p, label=f"P{n}") for n, p in enumerate(players)
    )
    with unchanged(table.event.pk):
        late = make_user("Late")
        client.force_login(late)
        response = client.post(
            reverse("web:register", args=[table.event.pk]), {"idempotency_key": "k"}
        )
        assert response.status_code == 302
        assert any("more than the $2,147,483,647" in text for text in said(response)), said(
            response
        )


# --- sign-up ------------------------------------------------------------------------------------


@pytest.mark.django_db
@pytest.mark.parametrize("value", TEXTS)
def test_sign_up_refuses_hostile_names_and_emails(client, value):
    accounts = User.objects.count()
    for field in ["display_name", "email"]:
        form = {
            "display_name": "Ann",
            "email": "ann@example.com",
            "password1": "a long enough password 1",
            "password2": "a long enough password 1",
            field: value,
        }
        response = client.post(reverse("account_signup"), form)
        assert response.status_code < 500
        assert User.objects.count() == accounts


@pytest.mark.django_db
def test_an_adjustment_that_would_overflow_the_pool_is_refused_and_the_pool_still_confirms(
    client,
):
    from django.utils import timezone

    from events import services
    from events.models import RegistrationStatus

    table = make_table("league", players=2, start=True)
    services.registration_close(event_id=table.event.pk, by=table.house)
    # 2,147 participants at the largest contribution: the base just fits the pool's column.
    Event.objects.filter(pk=table.event.pk).update(contribution=1_000_000)
    Registration.objects.bulk_create(
        Registration(
            event=table.event,
            player=make_user(f"W{n}"),
            label=f"W{n}",
            status=RegistrationStatus.WITHDRAWN,
            checked_in_at=timezone.now(),
            check_in_order=100 + n,
        )
        for n in range(2145)
    )
    client.force_login(table.house)
    url = reverse("house:pool_confirm", args=[table.event.pk])
    shown = refused_quietly(
        client, url, {"amount": "1000000", "explanation": "Sponsor"}, table.event.pk
    )
    assert any("more than the $2,147,483,647 it can hold" in text for text in shown), shown
    response = client.post(url, {"idempotency_key": "k-pool"})
    assert any("Pool confirmed: $2147000000." in text for text in said(response)), said(response)


@pytest.mark.django_db
@pytest.mark.parametrize("value", [*TEXTS, *NUMBERS])
def test_sign_in_and_password_reset_refuse_hostile_input(client, value):
    user = make_user("Ann")
    for url, form in [
        (reverse("account_login"), {"login": value, "password": "x"}),
        (reverse("account_login"), {"login": user.email, "password": value}),
        (reverse("account_reset_password"), {"email": value}),
    ]:
        response = client.post(url, form)
        assert response.status_code < 500, (url, form)
        assert "_auth_user_id" not in client.session


@pytest.mark.django_db
@pytest.mark.parametrize("value", [*TEXTS, *NUMBERS])
def test_settings_refuse_nothing_but_never_fail(client, value):
    user = make_user("Ann")
    client.force_login(user)
    response = client.post(reverse("web:settings"), {"four_colour_deck": value})
    assert response.status_code == 302
    user.refresh_from_db()
    assert user.four_colour_deck is False
