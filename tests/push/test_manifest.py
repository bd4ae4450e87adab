"""The installed app's manifest and its service worker speak the reader's language
(push/views.py; docs/decisions.md, "Languages")."""

from __future__ import annotations

import subprocess
from pathlib import Path

import pytest
from django.conf import settings
from django.urls import reverse

from accounts.models import User
from tests.factories import make_user


@pytest.fixture(scope="module", autouse=True)
def compiled() -> None:
    subprocess.run([str(Path(settings.BASE_DIR) / "scripts/compile-messages")], check=True)


def _manifest(client, **headers) -> dict:
    response = client.get(reverse("push:manifest"), headers=headers)
    assert response["Content-Type"].startswith("application/manifest+json")
    assert "Accept-Language" in response["Vary"]
    return response.json()


@pytest.mark.django_db
def test_it_names_the_app_in_english_by_default(client):
    data = _manifest(client)
    assert data["lang"] == "en"
    assert data["name"] == "Syndicate Seven-card Poker" and data["short_name"] == "Poker"
    assert data["description"] == "Seven-card Poker at Syndicate cornhole events."


@pytest.mark.django_db
def test_it_names_the_app_in_the_browsers_language(client):
    es = _manifest(client, accept_language="es-MX,es;q=0.9")
    assert es["lang"] == "es"
    assert es["name"] == "Syndicate Póker de siete cartas" and es["short_name"] == "Póker"
    assert es["description"] == "Póker de siete cartas en los eventos de cornhole de Syndicate."
    fr = _manifest(client, accept_language="fr-CA")
    assert fr["lang"] == "fr"
    assert fr["name"] == "Syndicate Poker à sept cartes"
    assert fr["description"] == "Le Poker à sept cartes des soirées cornhole Syndicate."


@pytest.mark.django_db
def test_the_accounts_language_wins_and_an_unknown_one_reads_english(client):
    ann = make_user("Ann")
    User.objects.filter(pk=ann.pk).update(language="fr")
    client.force_login(ann)
    assert _manifest(client, accept_language="es")["lang"] == "fr"
    client.logout()
    assert _manifest(client, accept_language="xx-YY,zz")["name"] == "Syndicate Seven-card Poker"


@pytest.mark.django_db
@pytest.mark.parametrize(
    ("query", "title"),
    [
        ("?lang=es", "Tu elecci\\u00f3n de carta te espera"),
        ("?lang=fr", "Votre choix de carte vous attend"),
        ("?lang=xx", "Your card choice is waiting"),
        ("", "Your card choice is waiting"),
    ],
)
def test_the_worker_carries_its_fallback_words_in_the_pages_language(client, query, title):
    response = client.get(reverse("push:service_worker") + query)
    script = response.content.decode()
    assert script.startswith("const WORDS = {")
    assert f'"title": "{title}"' in script
    assert "self.registration.showNotification" in script
