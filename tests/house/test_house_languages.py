"""House's pages in the reader's language (docs/decisions.md, "Languages"): the dashboard, its
dialogs, Tonight, the events list and the settings form read in Spanish or French for a House
member who asks for it, in English otherwise; stored values stay as they are."""

from __future__ import annotations

import pytest
from django.utils import translation

from accounts.models import User
from staff.scopes import kind_of
from tests.factories import Table, make_table
from tests.house.support import house_client, post, url
from tests.refusals import said

# Words of House's pages in English that a translated page shows none of (each is marked).
ENGLISH = [
    ">Check-in</h2>",
    ">Players</h2>",
    ">Cash box</h2>",
    ">Finalize</h2>",
    "Reason (required)",
    "Submit game",
    "Every status",
    "Needs attention",
    "Download CSV",
    "Pause for review",
    "Are you sure?",
    "Search by name",
    "Checked in",
    "per participant",
]


def _house_page(client, table: Table, name: str, *args: int, **headers: str) -> str:
    response = house_client(client, table).get(url(name, *args), headers=headers)
    assert response.status_code == 200
    return response.content.decode()


def _speaks(table: Table, language: str) -> None:
    User.objects.filter(pk=table.house.pk).update(language=language)
    table.house.refresh_from_db()


@pytest.mark.django_db
def test_the_dashboard_and_its_dialogs_read_in_spanish(client):
    table = make_table("league", players=3, start=True)
    page = _house_page(client, table, "dashboard", table.event.pk, accept_language="es")
    assert '<html lang="es">' in page
    for words in (
        ">Llegadas</h2>",
        ">Jugadores</h2>",
        ">Caja</h2>",
        ">Finalizar</h2>",
        ">Auditoría</h2>",
        "Todos los estados",
        "Requiere atención",
        "Descargar CSV",
        "Motivo (obligatorio)",
        'Enviar la partida <span data-fill="game"></span> de <span data-fill="player"></span>',
        "Pausar para revisión",
        "¿Seguro?",
        "Provisional",
        "$10 por participante",
        "En juego",  # the phase
        "Presente",  # a player's status
        "Tu rol: Propietario.",
    ):
        assert words in page, words
    leftovers = [words for words in ENGLISH if words in page]
    assert not leftovers


@pytest.mark.django_db
def test_the_dashboard_reads_in_french_when_the_account_chose_it(client):
    table = make_table("league", players=3, start=True)
    _speaks(table, "fr")
    page = _house_page(client, table, "dashboard", table.event.pk, accept_language="es")
    assert '<html lang="fr">' in page
    for words in (
        ">Arrivées</h2>",
        ">Caisse</h2>",
        ">Finaliser</h2>",
        "Motif (obligatoire)",
        "Suspendre pour vérification",
        "Êtes-vous sûr ?",
        "Provisoire",
        "10\u00a0$ par participant",
        "En cours",
        "Votre rôle : Propriétaire.",
    ):
        assert words in page, words
    leftovers = [words for words in ENGLISH if words in page]
    assert not leftovers


@pytest.mark.django_db
def test_the_dashboard_stays_english_in_english_and_for_an_unknown_language(client):
    table = make_table("league", players=3, start=True)
    for language in ("en", "xx-YY,zz;q=0.8"):
        page = _house_page(client, table, "dashboard", table.event.pk, accept_language=language)
        assert '<html lang="en">' in page
        for words in ENGLISH:
            assert words in page, (language, words)
        assert "Motivo (obligatorio)" not in page


@pytest.mark.django_db
@pytest.mark.parametrize(
    ("language", "words"),
    [
        ("es", ["Esta noche", "Elecciones pendientes", "Presentes", "Sin llegar", "En juego"]),
        ("fr", ["Ce soir", "Choix en attente", "Présents", "Non arrivés", "En cours"]),
    ],
)
def test_tonight_reads_in_the_readers_language(client, language, words):
    table = make_table("league", players=2, start=True)
    _speaks(table, language)
    page = _house_page(client, table, "tonight")
    assert table.event.name in page
    for word in words:
        assert word in page, word
    for word in ("Not checked in", "Pending choices", "Open reviews", "Every event you run"):
        assert word not in page, word


@pytest.mark.django_db
def test_the_events_list_names_phases_and_columns_in_the_readers_language(client):
    table = make_table("league", players=2, start=True)
    page = _house_page(client, table, "events", accept_language="fr")
    for words in ("Événement", "Phase", "Inscriptions", "Présents", "Inscrits", "En cours"):
        assert words in page, words
    assert ">Started<" not in page and ">Venue<" not in page
    page = _house_page(client, table, "events", accept_language="es")
    for words in ("Evento", "Fase", "Local", "Presentes", "Inscritos", "En juego", "Nuevo evento"):
        assert words in page, words
    assert ">Started<" not in page and "New event" not in page


@pytest.mark.django_db
def test_the_settings_form_reads_in_the_readers_language(client):
    table = make_table("league", players=2)
    _speaks(table, "es")
    page = _house_page(client, table, "event_edit", table.event.pk)
    for words in (
        "Ajustes del evento",
        "Zona horaria",
        "La zona horaria del local",
        "Aportación por participante ($)",
        "Reparto del sobrante",
        "Guardar ajustes",
        ">Personal</h2>",
        "data-role>propietario</span>",  # the role's name; the stored value stays "owner"
    ):
        assert words in page, words
    for words in ("Time zone", "Remainder policy", "Save settings", "Cancelled entries only"):
        assert words not in page, words
    _speaks(table, "fr")
    page = _house_page(client, table, "event_edit", table.event.pk)
    for words in (
        "Réglages de l\u2019événement",
        "Fuseau horaire",
        "Règle du reliquat",
        ">Équipe</h2>",
    ):
        assert words in page, words


@pytest.mark.django_db
def test_an_actions_message_is_said_in_the_readers_language(client):
    table = make_table("league", players=2)
    _speaks(table, "es")
    house_client(client, table)
    response = post(client, "registration_close", table.event.pk)
    assert "La inscripción está cerrada." in said(response)
    _speaks(table, "")
    response = post(client, "registration_open", table.event.pk)
    assert "Registration is open." in said(response)


@pytest.mark.django_db
def test_a_bad_settings_value_is_refused_in_the_readers_language(client):
    table = make_table("league", players=2)
    _speaks(table, "fr")
    house_client(client, table)
    response = client.post(
        url("event_edit", table.event.pk),
        {
            "idempotency_key": "f" * 32,
            "name": "Thursday League",
            "date": "2026-12-03",
            "time_zone": "Mars/Olympus",
            "format": "league",
            "contribution": "10",
            "extra_decks": "1",
            "remainder_policy": "Unallocated dollars roll into the next event.",
        },
    )
    assert response.status_code == 200
    assert "n\u2019est pas un fuseau horaire" in response.content.decode()


@pytest.mark.django_db
def test_an_invitation_names_the_events_date_in_the_readers_language():
    table = make_table("league")
    words = kind_of(table.event).invitation_words
    with translation.override("en"):
        assert words(table.event) == "Thursday League (Thursday 03 December 2026)"
    with translation.override("es"):
        assert words(table.event) == "Thursday League (jueves 3 de diciembre de 2026)"
    with translation.override("fr"):
        assert words(table.event) == "Thursday League (jeudi 3 décembre 2026)"
