"""The words static/js/*.js say: one catalog script per language, kept by the browser for good
(web/js_catalog.py), loaded before the pages' own scripts."""

from __future__ import annotations

import json
import re
import subprocess
from pathlib import Path

import pytest
from django.conf import settings
from django.urls import reverse

from accounts.models import User
from tests.factories import make_table


@pytest.fixture(scope="module", autouse=True)
def compiled() -> None:
    subprocess.run([str(Path(settings.BASE_DIR) / "scripts/compile-messages")], check=True)


def _catalog(client, language: str):
    return client.get(reverse("web:js_catalog", args=[language]))


@pytest.mark.django_db
@pytest.mark.parametrize(
    ("language", "words"),
    [("es", ["En vivo", "Reconectando…", "Sin conexión"]), ("fr", ["En direct", "Hors ligne"])],
)
def test_it_answers_in_the_language_named(client, language, words):
    response = _catalog(client, language)
    assert response.status_code == 200
    assert response["Content-Type"].startswith("text/javascript")
    script = response.content.decode()
    assert "function gettext" in script or "django.gettext" in script
    for word in words:
        assert json.dumps(word) in script  # as the catalog writes it, "Reconectando\u2026"
    # The plural rule of the language, for ngettext.
    assert "pluralidx" in script


@pytest.mark.django_db
def test_english_has_the_functions_and_no_other_language(client):
    script = _catalog(client, "en").content.decode()
    assert "django.gettext" in script and "interpolate" in script
    assert '"En vivo"' not in script and '"En direct"' not in script


@pytest.mark.django_db
def test_an_unknown_language_is_not_found(client):
    assert _catalog(client, "de").status_code == 404
    assert _catalog(client, "xx").status_code == 404


@pytest.mark.django_db
def test_the_browser_keeps_it_and_the_accounts_language_does_not_change_it(client):
    """Its address names its language and version: no Accept-Language or account changes it."""
    response = client.get(reverse("web:js_catalog", args=["fr"]), headers={"accept-language": "es"})
    kept = response["Cache-Control"]
    assert "immutable" in kept and "max-age=31536000" in kept
    assert '"En direct"' in response.content.decode()


@pytest.mark.django_db
@pytest.mark.parametrize("language", ["es", "fr", "en"])
def test_the_players_page_loads_its_languages_catalog_before_its_scripts(client, language):
    table = make_table("league", players=2, start=True)
    player = table.players[0]
    User.objects.filter(pk=player.pk).update(language=language if language != "en" else "")
    client.force_login(player)
    html = client.get(reverse("web:event", args=[table.event.pk])).content.decode()
    scripts = re.findall(r'<script src="([^"]+)"', html)
    catalog = [src for src in scripts if src.startswith(f"/jsi18n/{language}.js?v=")]
    assert len(catalog) == 1
    ours = [src for src in scripts if "/js/" in src]
    assert ours and scripts.index(catalog[0]) < min(scripts.index(src) for src in ours)
    assert _catalog(client, language).status_code == 200


@pytest.mark.django_db
def test_the_board_loads_the_catalog_before_its_scripts(client):
    table = make_table("league", players=2, start=True)
    client.force_login(table.house)
    html = client.get(reverse("web:board", args=[table.event.pk])).content.decode()
    scripts = re.findall(r'<script src="([^"]+)"', html)
    catalog = [i for i, src in enumerate(scripts) if src.startswith("/jsi18n/")]
    board = [i for i, src in enumerate(scripts) if src.endswith(("live.js", "board.js"))]
    assert len(catalog) == 1 and board and catalog[0] < min(board)
