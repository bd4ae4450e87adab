"""A refusal's message is read in the reader's language, its code never changes
(docs/errors.md; docs/decisions.md, "Languages"): the API and the pages alike, English when the
request asks for a language we do not ship, and English in what is stored."""

from __future__ import annotations

import uuid

import pytest
from django.contrib.messages import get_messages
from django.test import Client
from django.urls import reverse
from django.utils import translation
from rest_framework.test import APIClient

from accounts.models import User
from events.errors import OutOfOrder, PendingChoice
from helpers.errors import no_such
from tests.api.support import error
from tests.factories import make_table, make_user
from tests.refusals import unchanged

pytestmark = pytest.mark.django_db

ALREADY = {
    "en": "You are already registered for this event.",
    "es": "Ya estás inscrito en este evento.",
    "fr": "Vous êtes déjà inscrit à cet événement.",
}
NEXT_GAME = {
    "en": "The next game to report is game 1.",
    "es": "La siguiente partida por informar es la partida 1.",
    "fr": "La prochaine partie à déclarer est la partie 1.",
}


def _client(user: User, language: str) -> APIClient:
    client = APIClient()
    client.force_login(user)
    client.credentials(HTTP_ACCEPT_LANGUAGE=language)
    return client


def _post(client: APIClient, path: str, body: dict[str, object] | None = None):
    return client.post(
        path, body or {}, format="json", headers={"Idempotency-Key": uuid.uuid4().hex}
    )


@pytest.mark.parametrize("language", ["es", "fr", "en"])
def test_an_api_refusal_is_in_the_requests_language_with_the_same_code(language) -> None:
    table = make_table()
    player = make_user()
    table.register(player)
    path = f"/api/events/{table.event.pk}/register/"
    with unchanged(table.event):
        response = _post(_client(player, language), path)
    assert error(response) == (409, "already_registered")
    assert response.json()["error"]["message"] == ALREADY[language]


@pytest.mark.parametrize("language", ["es", "fr"])
def test_a_refusal_with_numbers_keeps_them_in_the_translation(language) -> None:
    table = make_table(players=2, start=True)
    player = table.players[0]
    table.choose_start(player)
    path = f"/api/registrations/{table.rid(player)}/results/"
    response = _post(_client(player, language), path, {"game": 2, "outcome": "loss"})
    assert error(response) == (409, "out_of_order")
    assert response.json()["error"]["message"] == NEXT_GAME[language]


def test_the_accounts_language_wins_over_the_browsers_for_a_refusal() -> None:
    table = make_table()
    player = make_user()
    table.register(player)
    User.objects.filter(pk=player.pk).update(language="fr")
    player.refresh_from_db()
    response = _post(_client(player, "es"), f"/api/events/{table.event.pk}/register/")
    assert response.json()["error"] == {"code": "already_registered", "message": ALREADY["fr"]}


@pytest.mark.parametrize("header", ["xx-YY,zz;q=0.8", "de", ""])
def test_an_unknown_language_reads_the_refusal_in_english(header) -> None:
    table = make_table()
    player = make_user()
    table.register(player)
    response = _post(_client(player, header), f"/api/events/{table.event.pk}/register/")
    assert response.json()["error"] == {"code": "already_registered", "message": ALREADY["en"]}


def test_a_missing_thing_is_named_in_the_readers_language() -> None:
    response = _client(make_user(), "es").get("/api/events/999999999/")
    assert error(response) == (404, "not_found")
    assert response.json()["error"]["message"] == "Ese evento no existe."
    with translation.override("fr"):
        assert no_such("series").message == "Cette série n\u2019existe pas."
        assert no_such("something else").message == "Introuvable."


def test_an_idempotency_keys_stored_refusal_keeps_the_first_requests_language() -> None:
    table = make_table()
    player = make_user()
    table.register(player)
    path = f"/api/events/{table.event.pk}/register/"
    key = {"Idempotency-Key": "same-key"}
    first = _client(player, "es").post(path, {}, format="json", headers=key)
    again = _client(player, "fr").post(path, {}, format="json", headers=key)
    assert first.json()["error"]["message"] == ALREADY["es"]
    assert again.json() == first.json()


def test_an_error_raised_is_plain_text_in_the_language_active_then() -> None:
    with translation.override("es"):
        refused = PendingChoice()
    with translation.override("fr"):
        assert refused.message == (
            "Termina tu elección de cartas pendiente antes del siguiente envío."
        )
        assert refused.as_json() == {
            "error": {"code": "pending_choice", "message": refused.message}
        }
        assert type(refused.message) is str
        assert OutOfOrder().code == "out_of_order"


def test_a_page_refusal_is_shown_in_spanish(client: Client) -> None:
    table = make_table(players=2, start=True)
    player = table.players[0]
    table.choose_start(player)
    client.force_login(player)
    with unchanged(table.event):
        response = client.post(
            reverse("web:report", args=[table.event.pk]),
            {"game": "2", "outcome": "loss", "idempotency_key": uuid.uuid4().hex},
            headers={"accept-language": "es"},
        )
    shown = [str(message) for message in get_messages(response.wsgi_request)]
    assert NEXT_GAME["es"] in shown, shown
