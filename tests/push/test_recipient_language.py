"""Pushes and emails sent from tasks are written in their recipient's language: the account's
choice, else the language its browser asked for at sign-in, else English."""

from __future__ import annotations

from typing import Any

import pytest
from django.core import mail
from django.test import Client
from django.utils import translation

from accounts.models import User
from events import services
from push import place_offers
from push.models import PushSubscription
from push.subscriptions import subscription_save
from push.tasks import send_announcement, send_reminder
from tests.factories import make_table, make_user
from tests.push.standin import Device, PushService
from tests.push.test_place_offers import capped_table, leave, offered
from tests.push.test_reminders import make_due, pending_offer
from tests.waiting import wait_until

PASSWORD = "correct horse battery staple"


def subscribe(user: User, device: Device) -> None:
    subscription_save(
        user=user, endpoint=device.endpoint, p256dh=device.p256dh, auth=device.auth, user_agent="t"
    )


def choose(user: User, language: str) -> None:
    User.objects.filter(pk=user.pk).update(language=language)


def sign_in(user: User, accept_language: str) -> None:
    """Sign in through the sign-in form, from a browser asking for `accept_language`."""
    client = Client(HTTP_ACCEPT_LANGUAGE=accept_language)
    response = client.post("/accounts/login/", {"login": user.email, "password": PASSWORD})
    assert response.status_code == 302
    assert client.session.get("_auth_user_id") == str(user.pk)


def offer_told(push_service: PushService, capture: Any, player: User) -> tuple[dict[str, Any], Any]:
    """Free the one place of a capped event for `player`, first in line: its push and email."""
    table = capped_table()
    table.register(player)
    subscribe(player, push_service.device(f"phone-{player.pk}"))
    with capture(execute=True):
        leave(table)
    offered(table, player)
    (received,) = push_service.wait_for(1)
    (message,) = mail.outbox
    return received.payload, message


@pytest.mark.django_db
def test_a_place_offer_is_pushed_and_emailed_in_the_language_the_account_chose(
    push_service: PushService, django_capture_on_commit_callbacks: Any
) -> None:
    bob = make_user("Bob")
    choose(bob, "es")

    payload, message = offer_told(push_service, django_capture_on_commit_callbacks, bob)

    assert payload["title"] == "Thursday League: tienes una plaza"
    assert payload["body"].startswith("Se liberó una plaza. Reclámala antes del ")
    assert payload["body"].endswith("(America/Chicago), o pasará al siguiente jugador.")
    assert message.subject == "Se liberó una plaza para ti en Thursday League"
    assert str(message.body).startswith("Hola, Bob:\n\nSe liberó una plaza en Thursday League")
    # The venue's time, written the Spanish way: "5 de diciembre de 2026 a las 19:30".
    assert " de 20" in payload["body"] and " a las " in payload["body"]
    assert "Claim" not in payload["body"] and "Claim" not in str(message.body)
    assert translation.get_language() == "en"  # the task's language was put back


@pytest.mark.django_db
def test_a_player_who_never_chose_is_told_in_the_language_their_browser_asked_for(
    push_service: PushService, django_capture_on_commit_callbacks: Any
) -> None:
    cleo = make_user("Cleo")
    sign_in(cleo, "fr-CA,fr;q=0.9,en;q=0.5")
    cleo.refresh_from_db()
    assert (cleo.language, cleo.browser_language) == ("", "fr")

    payload, message = offer_told(push_service, django_capture_on_commit_callbacks, cleo)

    assert payload["title"] == "Thursday League : une place est à vous"
    assert payload["body"].startswith("Une place s\u2019est libérée. Réclamez-la avant le ")
    assert message.subject == "Une place s\u2019est libérée pour vous à Thursday League"
    assert str(message.body).startswith("Bonjour Cleo,")


@pytest.mark.django_db
def test_an_account_with_no_language_known_is_told_in_english(
    push_service: PushService, django_capture_on_commit_callbacks: Any
) -> None:
    dan = make_user("Dan")
    sign_in(dan, "de-DE,de;q=0.9")  # not a language we ship: English, as the pages
    dan.refresh_from_db()
    assert dan.browser_language == "en"

    payload, message = offer_told(push_service, django_capture_on_commit_callbacks, dan)

    assert payload["title"] == "Thursday League: a place is yours"
    assert payload["body"].startswith("A place opened up. Claim it by ")
    assert message.subject == "A place opened for you at Thursday League"


@pytest.mark.django_db
def test_the_accounts_choice_wins_over_its_browser() -> None:
    eve = make_user("Eve")
    sign_in(eve, "fr")
    choose(eve, "es")
    table = capped_table()
    table.register(eve)
    registration = table.registration(eve)

    assert place_offers.reader_language(registration) == "es"


@pytest.mark.django_db
def test_an_announcement_push_frames_houses_words_in_the_players_language(
    push_service: PushService,
) -> None:
    table = make_table("league", players=2)
    ann, bob = table.players
    choose(ann, "fr")
    subscribe(ann, push_service.device("ann-phone"))
    subscribe(bob, push_service.device("bob-phone"))
    answer = services.announcement_send(
        event_id=table.event.pk, by=table.house, text="Round 2 starts at 8:30"
    )

    assert send_announcement(answer.announcement_id) == 2

    received = {r.device: r.payload for r in push_service.wait_for(2)}
    # House's own words go as House wrote them; the words around them are the reader's.
    assert received["/push/ann-phone"]["title"] == "Thursday League : message de la maison"
    assert received["/push/ann-phone"]["body"] == "Round 2 starts at 8:30"
    assert received["/push/bob-phone"]["title"] == "Thursday League: House says"
    assert PushSubscription.objects.count() == 2


@pytest.mark.django_db
def test_a_reminder_is_pushed_in_the_players_language(push_service: PushService) -> None:
    table = make_table("league", players=2, start=True)
    player = table.players[0]
    choose(player, "es")
    subscribe(player, push_service.device("phone"))
    table.choose_start(player)
    table.report(player, 1, "win")
    offer = pending_offer(table, 0)
    make_due(offer)

    send_reminder(offer.pk)

    (received,) = push_service.wait_for(1)
    assert received.payload["title"] == "Thursday League: tu elección de cartas te espera"
    assert received.payload["body"] == "Ganaste la partida 1: quédate con una de las dos cartas."


@pytest.mark.real_celery
@pytest.mark.django_db(transaction=True)
def test_a_real_worker_writes_each_player_in_their_own_language(
    push_service: PushService, worker: None
) -> None:
    table = capped_table()
    bob = make_user("Bob")
    choose(bob, "fr")
    table.register(bob)
    subscribe(bob, push_service.device("bob-phone"))

    leave(table)

    (received,) = push_service.wait_for(1)
    assert received.payload["title"] == "Thursday League : une place est \u00e0 vous"
    wait_until(lambda: len(mail.outbox) == 1, "the offer's email")
    assert (
        mail.outbox[0].subject
        == "Une place s\u2019est lib\u00e9r\u00e9e pour vous \u00e0 Thursday League"
    )
