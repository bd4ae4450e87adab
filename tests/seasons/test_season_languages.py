"""The season pages in the reader's language (docs/decisions.md, "Languages"): the public season
page, its House page, a player's history, the series page and the new-series form read Spanish
or French when the browser or the account asks for it, dates written the language's way; English
reads as before, and an unknown language reads English."""

from __future__ import annotations

import re
from typing import Any

import pytest
from django.contrib.messages import get_messages
from django.test import Client
from django.urls import reverse
from django.utils import formats, translation

from accounts.models import User
from events import services as staff_changes
from seasons import services
from seasons.models import Series
from seasons.reads import player_history, public_id
from tests.seasons.support import FIRST, WEEK, League, make_league

pytestmark = pytest.mark.django_db


@pytest.fixture
def league() -> League:
    league = make_league(4)
    league.open_season({"min_events": 1, "qualifiers": 2, "best_of": 5})
    league.night(0, league.players, seed=51)
    return league


def _client(user: User | None = None, language: str = "") -> Client:
    if user is not None and language:
        User.objects.filter(pk=user.pk).update(language=language)
        user.refresh_from_db()
    client = Client()
    if user is not None:
        client.force_login(user)
    return client


def _get(client: Client, name: str, *args: Any, accept: str = "") -> str:
    headers = {"accept_language": accept} if accept else {}
    response = client.get(reverse(name, args=args), headers=headers)
    assert response.status_code == 200
    return response.content.decode()


def _text(page: str) -> str:
    """The page's words, tags left out, spaces collapsed."""
    return re.sub(r"\s+", " ", re.sub(r"<[^>]+>", " ", page))


def test_the_public_season_page_reads_spanish_and_french(league: League) -> None:
    anonymous = Client()
    spanish = _get(anonymous, "seasons:season", league.season_id, accept="es-MX,es;q=0.9")
    assert '<html lang="es">' in spanish
    words = _text(spanish)
    assert "del 3 de septiembre de 2026 al 5 de noviembre de 2026" in words
    assert "1 evento contado" in words
    assert "Los 2 primeros con al menos 1 resultado válido se clasifican" in words
    assert "cuentan los 5 mejores eventos de cada jugador" in words
    assert "Jugador" in words and "Puntos" in words and "Clasificado" in words
    assert "Cómo se cuentan los puntos" in words and "Vista para proyector" in words
    assert "How points are counted" not in words and "Qualified" not in words

    french = _text(_get(anonymous, "seasons:season", league.season_id, accept="fr-CA,fr"))
    assert "du 3 septembre 2026 au 5 novembre 2026" in french
    assert "Les 2 premiers avec au moins 1 résultat valide se qualifient" in french
    assert "Joueur" in french and "Qualifié" in french
    assert "Comment les points sont comptés" in french
    assert "Projector view" not in french


def test_the_projector_view_reads_the_series_language_and_a_history_the_readers(
    league: League,
) -> None:
    # On a projector, as an event's board: in the series' language, whatever the browser asks.
    english = _get(Client(), "seasons:season_board", league.season_id, accept="fr")
    assert '<html lang="en">' in english and "Season table" in english
    Series.objects.filter(pk=league.series_id).update(language="fr")
    board = _get(Client(), "seasons:season_board", league.season_id, accept="es")
    assert '<html lang="fr">' in board
    assert "Classement de la saison" in board and "Plein écran" in board
    assert re.search(r"\d+ résultats? valides?", board)

    player = league.players[0]
    own = _text(_get(_client(player, "es"), "seasons:my_history"))
    assert "1 evento" in own and "Mejor mano:" in own and "Fecha" in own
    assert "Best hand" not in own
    # The best hand named as Spanish players say it, not in scoring's English words.
    english = player_history(player, player).best_hand_name
    assert english and english not in own
    history = _text(_get(Client(), "seasons:history", public_id(player), accept="fr"))
    assert "Meilleure main" in history and "Événement" in history


def test_the_nights_coming_up_read_french() -> None:
    league = make_league(1)
    league.open_season()
    house, day = league.house, FIRST + WEEK
    night = staff_changes.event_create(
        by=house, name="Roomy Night", date=day, format="league"
    ).event_id
    services.event_series_set(event_id=night, series_id=league.series_id, by=house)
    staff_changes.event_update(
        event_id=night, by=house, changes={"capacity": 10, "venue": "The Dock"}
    )
    staff_changes.registration_open(event_id=night, by=house)

    page = _get(Client(), "seasons:season", league.season_id, accept="fr")
    with translation.override("fr"):
        shortened = formats.date_format(day, "D j M")
    with translation.override("en"):
        assert shortened != formats.date_format(day, "D j M")  # the day's French name
    words = _text(page)
    assert "À venir" in words
    assert f"Roomy Night , {shortened} à The Dock." in words
    assert "10 places libres sur 10." in words
    assert f'href="{reverse("web:event", args=[night])}">M\u2019inscrire</a>' in page
    assert "Coming up" not in words and "places left" not in words


def test_the_season_house_page_reads_the_accounts_language(league: League) -> None:
    french = _text(_get(_client(league.house, "fr"), "seasons:season_house", league.season_id))
    assert "Saison et règles" in french and "Règles des points" in french
    assert "Points par place en haute" in french and "Créer le championnat" in french
    assert "du 3 septembre 2026 au 5 novembre 2026" in french
    assert "Season and rules" not in french

    # The account's choice wins over the browser's.
    spanish = _text(
        _get(_client(league.house, "es"), "seasons:season_house", league.season_id, accept="fr")
    )
    assert "Temporada y reglas" in spanish and "Reglas de puntos" in spanish
    assert "Saison et règles" not in spanish


def test_the_series_page_and_its_messages_read_spanish(league: League) -> None:
    client = _client(league.house, "es")
    words = _text(_get(client, "seasons:series", league.series_id))
    assert "Valores predeterminados de los eventos de la serie" in words
    assert "Próximo evento" in words and "Temporadas" in words and "Abrir una temporada" in words
    assert "Inscripción: de pago" in words and "Plazas: sin límite" in words
    assert "Las inscripciones abren: cuando la casa las abre" in words
    assert "3 de septiembre de 2026" in words
    assert "Defaults for the series' events" not in words

    saved = client.post(
        reverse("seasons:defaults", args=[league.series_id]),
        {"idempotency_key": "lang-1", "entry_mode": "paid", "capacity": "12"},
    )
    said = [str(m) for m in get_messages(saved.wsgi_request)]
    assert said == [
        "Los valores predeterminados de la serie están guardados: inscripción de pago, "
        "sin edad requerida, 12 plazas."
    ]
    refused = client.post(
        reverse("seasons:defaults", args=[league.series_id]),
        {"idempotency_key": "lang-2", "entry_mode": "paid", "capacity": "doce"},
    )
    assert [str(m) for m in get_messages(refused.wsgi_request)][-1] == (
        "El número de plazas: «doce» no es un número entero igual o mayor que 0."
    )


def test_the_new_series_form_reads_french_and_refuses_in_french() -> None:
    staff = _client(make_league(0).house, "fr")
    words = _text(_get(staff, "seasons:series_new"))
    assert "Nouvelle série" in words and "Fuseau horaire" in words
    assert "Ouvrir la série" in words and "Âge minimum" in words
    assert "New series" not in words

    refused = staff.post(
        reverse("seasons:series_new"),
        {"idempotency_key": "lang-3", "name": "Ligue", "time_zone": "UTC", "entry_mode": "troc"},
    )
    assert refused.status_code == 400
    assert "Le mode d\u2019inscription est paid ou sponsored." in refused.content.decode()


def test_english_reads_as_before_and_an_unknown_language_reads_english(league: League) -> None:
    anonymous = Client()
    for accept in ("", "xx-YY,zz;q=0.8"):
        page = _get(anonymous, "seasons:season", league.season_id, accept=accept)
        assert '<html lang="en">' in page
        words = _text(page)
        assert "Thu 3 Sep 2026 to Thu 5 Nov 2026 · 1 event counted" in words
        assert (
            "The top 2 with at least 1 eligible finish qualify for the championship; a player's "
            "best 5 events count." in words
        )
        assert "How points are counted" in words and "Qualified" in words

    house = _client(league.house)
    series = _text(_get(house, "seasons:series", league.series_id))
    assert "Entry: paid · Age: none asked" in series
    assert "Places: no cap · Registration opens: when House opens it" in series
    season = _text(_get(house, "seasons:season_house", league.season_id))
    assert "Season and rules" in season and "High place points" in season
    assert "Create the championship" in season
    assert "New series" in _text(_get(_client(make_league(0).house), "seasons:series_new"))
