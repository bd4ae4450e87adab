"""Everyone's pages in the reader's language: home, sign-in and sign-up, settings, the error and
busy pages, the player's cancel, leave and self check-in pages, and the rules as players read
them; an unknown language reads English (docs/decisions.md, "Languages")."""

from __future__ import annotations

import html
import re
import subprocess
from pathlib import Path

import pytest
from django.conf import settings
from django.test import Client, RequestFactory
from django.urls import reverse
from django.utils import translation

from helpers.busy import busy_response
from tests.factories import make_table, make_user

pytestmark = pytest.mark.django_db

# The hand names a player reads on the rules page, strongest first (docs/rules.md section 6.1).
HAND_NAMES = {
    "en": [
        "Five of a Kind",
        "Royal Flush",
        "Straight Flush",
        "Four of a Kind",
        "Full House",
        "Flush",
        "Straight",
        "Three of a Kind",
        "Two Pair",
        "Pair",
        "High Card",
    ],
    "es": [
        "Repóker",
        "Escalera real",
        "Escalera de color",
        "Póker",
        "Full",
        "Color",
        "Escalera",
        "Trío",
        "Doble pareja",
        "Pareja",
        "Carta alta",
    ],
    "fr": [
        "Cinq identiques",
        "Quinte flush royale",
        "Quinte flush",
        "Carré",
        "Full",
        "Couleur",
        "Quinte",
        "Brelan",
        "Double paire",
        "Paire",
        "Carte haute",
    ],
}


@pytest.fixture(scope="module", autouse=True)
def compiled() -> None:
    """The .mo files are build output: compile them as `make test` does."""
    subprocess.run([str(Path(settings.BASE_DIR) / "scripts/compile-messages")], check=True)


def text(response) -> str:
    """The page's words, tags left out and entities read, spaces collapsed."""
    body = re.sub(r"<(script|style)\b.*?</\1>", " ", response.content.decode(), flags=re.S)
    return " ".join(html.unescape(re.sub(r"<[^>]+>", " ", body)).split())


def lang(response) -> str:
    found = re.search(r'<html lang="([^"]*)">', response.content.decode())
    assert found, response.content.decode()[:300]
    return found.group(1)


def hand_names(response) -> list[str]:
    """The names in the rules page's list of hands, in its order."""
    ranks = re.search(r'<ol class="hand-ranks">(.*?)</ol>', response.content.decode(), re.S)
    assert ranks
    return re.findall(r"<li><strong>([^<]+)</strong>:", ranks.group(1))


# The rules page


def test_the_rules_page_states_the_key_rules_in_english(client: Client) -> None:
    response = client.get(reverse("web:rules"))
    assert response.status_code == 200
    words = text(response)
    assert lang(response) == "en"
    for rule in (
        "Sign in on your phone",
        "keep 1 of 3 face-down starting cards",
        "keep 3 of 5 face-down starting cards",
        "A loss deals you one card",
        "A win deals two cards face up: choose the one you keep",
        "It is revealed for you as soon as your hand is complete",
        "Wilds never count for Low",
        "straights and flushes count against you",
        "the best High hand takes 80% and the worst Low hand 20%",
        "Tied winners share the prize equally",
        "Suits never break a tie",
    ):
        assert rule in words, rule
    assert hand_names(response) == HAND_NAMES["en"]


@pytest.mark.parametrize(
    ("code", "title", "words"),
    [
        (
            "es",
            "Cómo se juega al Póker de siete cartas",
            ["Si pierdes , recibes una carta", "la mejor mano alta se lleva el 80%"],
        ),
        (
            "fr",
            "Comment jouer au Poker à sept cartes",
            ["Une défaite vous donne une carte", "la meilleure main haute prend 80 %"],
        ),
    ],
)
def test_the_rules_page_reads_in_spanish_and_french(
    client: Client, code: str, title: str, words: list[str]
) -> None:
    response = client.get(reverse("web:rules"), headers={"accept-language": code})
    assert lang(response) == code
    page = text(response)
    assert title in page
    for said in words:
        assert said in page, said
    assert hand_names(response) == HAND_NAMES[code]
    assert "Straight Flush" not in page and "the prize pool" not in page


def test_the_navigation_and_the_register_page_link_to_the_rules(client: Client) -> None:
    rules = reverse("web:rules")
    assert f'href="{rules}"' in client.get("/").content.decode()
    table = make_table()
    client.force_login(make_user())
    register = client.get(reverse("web:event", args=[table.event.pk])).content.decode()
    assert register.count(f'href="{rules}"') == 2  # the navigation's and the page's own


# Home, sign-in, sign-up and settings


def test_home_reads_in_spanish_with_the_date_and_phase_in_spanish(client: Client) -> None:
    make_table()
    client.force_login(make_user())
    response = client.get("/", headers={"accept-language": "es-MX,es;q=0.9"})
    page = text(response)
    assert lang(response) == "es"
    assert "Mis eventos" in page and "Inscripciones abiertas" in page
    assert "3 de diciembre de 2026" in page
    assert "$10 por jugador" in page
    assert "My events" not in page and "per player" not in page


def test_home_signed_out_reads_in_french(client: Client) -> None:
    response = client.get("/", headers={"accept-language": "fr-CA"})
    page = text(response)
    assert lang(response) == "fr"
    assert "Poker à sept cartes" in page and "Connectez-vous" in page and "Règles" in page
    assert "Sign in" not in page


def test_an_unknown_language_reads_english(client: Client) -> None:
    for path in ("/", reverse("web:rules"), reverse("account_login")):
        response = client.get(path, headers={"accept-language": "xx-YY,zz;q=0.8"})
        assert lang(response) == "en"
        assert "Seven-card Poker" in text(response)


def test_sign_in_reads_in_spanish_with_allauths_own_form_words(client: Client) -> None:
    response = client.get(reverse("account_login"), headers={"accept-language": "es"})
    page = response.content.decode()
    assert lang(response) == "es"
    assert "Iniciar sesión" in text(response)
    assert 'placeholder="Contraseña"' in page  # from allauth's own Spanish catalog
    assert "Password" not in page


def test_sign_up_reads_in_french_our_fields_and_allauths(client: Client) -> None:
    response = client.get(reverse("account_signup"), headers={"accept-language": "fr"})
    page = response.content.decode()
    assert lang(response) == "fr"
    assert "Nom affiché" in text(response)
    assert "Visible par tous pendant l\u2019événement" in html.unescape(page)
    assert 'placeholder="Mot de passe"' in page
    assert "Display name" not in page


def test_sign_in_to_check_in_names_the_event_in_spanish(client: Client) -> None:
    table = make_table()
    next_url = reverse("web:self_check_in", args=[table.event.pk])
    response = client.get(
        f"{reverse('account_login')}?next={next_url}", headers={"accept-language": "es"}
    )
    assert "Inicia sesión para registrar tu llegada en Thursday League" in text(response)


@pytest.mark.parametrize(
    ("code", "words"),
    [
        ("es", ["Avisos push de póker", "Tus datos", "Eliminar mi cuenta", "pantalla de inicio"]),
        (
            "fr",
            [
                "Notifications push poker",
                "Vos données",
                "Supprimer mon compte",
                "écran d\u2019accueil",
            ],
        ),
    ],
)
def test_settings_read_in_the_accounts_language(
    client: Client, code: str, words: list[str]
) -> None:
    user = make_user()
    user.language = code
    user.save(update_fields=["language"])
    client.force_login(user)
    response = client.get(reverse("web:settings"), headers={"accept-language": "en"})
    page = text(response)
    assert lang(response) == code
    for said in words:
        assert said in page, said
    assert "Your data" not in page and "Poker push" not in page


def test_deleting_without_the_word_is_refused_in_the_readers_language(client: Client) -> None:
    user = make_user()
    client.force_login(user)
    response = client.post(
        reverse("privacy:account_delete"),
        {"confirm": "borrar"},
        headers={"accept-language": "es"},
        follow=True,
    )
    assert "Escribe delete para confirmar" in text(response)
    user.refresh_from_db()
    assert user.is_active


# The error, form-expired and busy pages


@pytest.mark.parametrize(
    ("code", "title"), [("es", "Página no encontrada"), ("fr", "Page introuvable")]
)
def test_the_not_found_page_reads_in_the_browsers_language(
    client: Client, code: str, title: str
) -> None:
    response = client.get("/no-such-page/", headers={"accept-language": code})
    assert response.status_code == 404
    assert lang(response) == code
    assert title in text(response)


def test_a_refused_path_reads_in_the_browsers_language_too(client: Client) -> None:
    response = client.get("/events/%00/", headers={"accept-language": "fr"})
    assert response.status_code == 404
    assert "Page introuvable" in text(response)


def test_the_apis_error_stays_english(client: Client) -> None:
    response = client.get("/api/events/%00/", headers={"accept-language": "es"})
    assert response.status_code == 404
    assert response.json()["error"]["message"] == "There is no page at this address."


def test_an_expired_form_reads_in_spanish() -> None:
    response = Client(enforce_csrf_checks=True).post(
        reverse("account_login"), {"login": "a"}, headers={"accept-language": "es"}
    )
    assert response.status_code == 403
    assert "Formulario caducado" in text(response)
    assert lang(response) == "es"


def test_the_busy_page_reads_in_french_and_the_api_stays_english() -> None:
    factory = RequestFactory()
    with translation.override("fr"):
        page = busy_response(factory.get("/"))
        api = busy_response(factory.get("/api/events/"))
    assert page.status_code == 503
    assert "Le serveur est occupé : réessayez dans 5 secondes." in page.content.decode()
    assert "try again in 5 seconds" in api.content.decode()


# The player's cancel, leave and self check-in pages


def test_cancel_and_leave_read_in_french(client: Client) -> None:
    table = make_table(players=1)
    waiting = make_user()
    table.register(waiting)
    client.force_login(waiting)
    fr = {"accept-language": "fr"}
    cancel = text(client.get(reverse("web:cancel", args=[table.event.pk]), headers=fr))
    assert "Annuler votre inscription ?" in cancel and "Annuler mon inscription" in cancel
    client.force_login(table.players[0])
    leave = text(client.get(reverse("web:leave", args=[table.event.pk]), headers=fr))
    assert "Quitter Thursday League ?" in leave
    assert "Cet événement ne rembourse pas les abandons" in leave


def test_self_check_in_reads_in_spanish(client: Client) -> None:
    table = make_table(players=1)
    client.force_login(table.players[0])
    response = client.get(
        reverse("web:self_check_in", args=[table.event.pk]), headers={"accept-language": "es"}
    )
    page = text(response)
    assert "Registrar la llegada: Thursday League" in page
    assert "Tu llegada está registrada." in page
