"""The pages shown to a room in the event's language (docs/decisions.md, "Languages"): the
projector board, its final page, the display link's message and the printed sheet follow the
event's language whatever the browser asks; the night report follows its reader's; money is
written as each language writes it."""

from __future__ import annotations

import csv
import datetime
import io

import pytest
from django.test import Client
from django.urls import reverse
from django.utils import translation

from events import player_words, services
from events.models import Event
from events.money import dollars, signed_dollars
from ledger import services as ledger
from staff.scopes import Scope
from tests.events.support import complete_table
from tests.factories import Table, make_table, make_user
from tests.house.support import house_client, url

pytestmark = pytest.mark.django_db

NBSP = "\N{NO-BREAK SPACE}"


def in_language(table: Table, language: str) -> Event:
    services.event_update(event_id=table.event.pk, by=table.house, changes={"language": language})
    return table.refresh()


def board_page(client: Client, event_id: int, browser: str) -> tuple[str, str]:
    response = client.get(reverse("web:board", args=[event_id]), HTTP_ACCEPT_LANGUAGE=browser)
    assert response.status_code == 200
    return response.content.decode(), response.headers["Content-Language"]


def test_the_board_is_in_the_events_language_whatever_the_browser_asks(client: Client) -> None:
    table = make_table(players=3, contribution=10)
    in_language(table, "es")
    table.start()
    table.choose_start(table.players[0])
    page, language = board_page(client, table.event.pk, "fr-CA,fr;q=0.9")
    assert language == "es"
    assert '<html lang="es">' in page
    assert "Tablero" in page and "Pantalla completa" in page
    assert '<h2 id="high-title">Alta</h2>' in page and '<h2 id="low-title">Baja</h2>' in page
    assert "cartas guardadas" in page and "3 jugadores" in page
    assert "Bote $30 (provisional)" in page
    # The format too, though the browser reading the board asks for French.
    assert '<span class="chip">Liga</span>' in page
    assert "cards kept" not in page and "Plein écran" not in page and "Ligue" not in page
    # The partial the board reloads with, in the same language.
    partial = client.get(
        reverse("web:board_partial", args=[table.event.pk]), HTTP_ACCEPT_LANGUAGE="fr"
    )
    assert "cartas guardadas" in partial.content.decode()


def test_a_board_without_a_language_reads_the_venues_not_the_browsers(client: Client) -> None:
    table = make_table(players=2, start=True)
    page, language = board_page(client, table.event.pk, "es")
    assert language == "en"
    assert '<html lang="en">' in page
    assert "Full screen" in page and "cards kept" in page
    assert "Pantalla completa" not in page


def test_the_french_board_names_hands_as_players_say_them(client: Client) -> None:
    table = make_table(players=2, contribution=10)
    in_language(table, "fr")
    table.start()
    for player in table.players:
        table.choose_start(player)
    page, _ = board_page(client, table.event.pk, "en-US")
    with translation.override("fr"):
        for player in table.players:
            kept = tuple(table.kept(player))
            high = player_words.shown_hand_words(kept, None, low=False)
            assert high in page
    assert "Cagnotte 20" + NBSP + "$ (provisoire)" in page
    assert "Haute" in page and "Basse" in page


def test_the_final_page_is_in_the_events_language(client: Client) -> None:
    table = complete_table("switch", players=3, contribution=10)
    in_language(table, "fr")
    services.pool_confirm(event_id=table.event.pk, by=table.house)
    services.event_finalize(event_id=table.event.pk, by=table.house)
    response = client.get(
        reverse("web:board_final", args=[table.event.pk]), HTTP_ACCEPT_LANGUAGE="es"
    )
    page = response.content.decode()
    assert response.headers["Content-Language"] == "fr"
    assert "Résultats finaux" in page and "Gagnants" in page and "La cagnotte" in page
    assert "a gagné" in page and "Le mélange" in page
    assert "30" + NBSP + "$" in page
    assert "Winners" not in page and "Ganadores" not in page
    # The board of the finalized event links to it in French too.
    board, _ = board_page(client, table.event.pk, "es")
    assert "Résultats finaux : gagnants, gains, la cagnotte et la graine" in board


def test_the_display_message_is_in_the_events_language(client: Client) -> None:
    house = make_user("House", staff=True)
    made = services.event_create(
        by=house, name="Jeudi", date=datetime.date(2026, 12, 3), format="league", language="fr"
    )
    event = Event.objects.get(pk=made.event_id)
    link = services.display_link_create(scope=Scope.of(event), by=house, label="Projecteur")
    response = Client().get(link.path, HTTP_ACCEPT_LANGUAGE="es")
    page = response.content.decode()
    assert response.status_code == 200
    assert "Le tableau s\N{RIGHT SINGLE QUOTATION MARK}ouvre quand le tournoi ouvre." in page
    assert '<html lang="fr">' in page
    # An unknown link names no event: the browser's language.
    unknown = Client().get("/display/no-such-token/", HTTP_ACCEPT_LANGUAGE="es")
    assert "Este enlace de pantalla no existe" in unknown.content.decode()


def test_the_printed_sheet_is_in_the_events_language(client: Client) -> None:
    table = complete_table("switch", players=3, contribution=7)
    in_language(table, "es")
    services.pool_confirm(event_id=table.event.pk, by=table.house)
    services.event_finalize(event_id=table.event.pk, by=table.house)
    house_client(client, table)
    response = client.get(url("results_sheet", table.event.pk), HTTP_ACCEPT_LANGUAGE="fr")
    page = response.content.decode()
    assert response.headers["Content-Language"] == "es"
    assert "resultados y premios" in page and "Recibido por" in page and "(firma)" in page
    assert "$7 \N{MULTIPLICATION SIGN} 3 = $21" in page
    assert "Imprimir o guardar como PDF" in page
    assert "results and payouts" not in page and "Reçu par" not in page
    # The date as Spanish writes it, never an English month.
    assert "diciembre" in page and "Dec" not in page


def test_the_sheet_before_the_end_says_so_in_french(client: Client) -> None:
    table = make_table(players=2)
    in_language(table, "fr")
    table.start()
    house_client(client, table)
    page = client.get(url("results_sheet", table.event.pk)).content.decode()
    assert "Provisoire : ce tournoi est en cours." in page
    assert "— (révélée à la clôture)" in page


def test_the_night_report_is_in_its_readers_language_and_its_csv_stays_english() -> None:
    table = make_table(players=2, contribution=10)
    ann, _ = table.players
    ledger.entry_payment(
        event_id=table.event.pk, by=table.house, registration_id=table.rid(ann), method="cash"
    )
    client = Client()
    client.force_login(table.house)
    night = reverse("ledger:night", kwargs={"event_id": table.event.pk})
    spanish = client.get(night, HTTP_ACCEPT_LANGUAGE="es").content.decode()
    assert "Informe de la noche" in spanish and "Efectivo recibido" in spanish
    assert "<td>inscripción</td><td>efectivo</td>" in spanish
    assert '<option value="cash">efectivo</option>' in spanish
    assert "$10 por inscripción" in spanish
    french = client.get(night, HTTP_ACCEPT_LANGUAGE="fr").content.decode()
    assert "Rapport de la soirée" in french and "10" + NBSP + "$ par inscription" in french
    english = client.get(night, HTTP_ACCEPT_LANGUAGE="en").content.decode()
    assert "Night report" in english and "$10 per entry" in english
    csv_text = client.get(
        reverse("ledger:night_csv", kwargs={"event_id": table.event.pk}),
        HTTP_ACCEPT_LANGUAGE="fr",
    ).content.decode()
    rows = list(csv.reader(io.StringIO(csv_text)))
    assert rows[0][:6] == ["seq", "time", "player", "line", "method", "dollars"]
    assert rows[1][3:6] == ["entry", "cash", "10"]


@pytest.mark.parametrize(
    ("language", "thirty", "minus", "plus"),
    [
        ("en", "$30", "\N{MINUS SIGN}$30", "+$5"),
        ("es", "$30", "\N{MINUS SIGN}$30", "+$5"),
        ("fr", "30" + NBSP + "$", "\N{MINUS SIGN}30" + NBSP + "$", "+5" + NBSP + "$"),
    ],
)
def test_money_is_written_as_each_language_writes_it(
    language: str, thirty: str, minus: str, plus: str
) -> None:
    with translation.override(language):
        assert (dollars(30), dollars(-30), signed_dollars(5)) == (thirty, minus, plus)
        assert signed_dollars(0) == dollars(0)
        assert dollars(1500) in ("$1500", "1500" + NBSP + "$")


def test_money_in_english_reads_as_it_always_did() -> None:
    with translation.override("en"):
        assert [dollars(n) for n in (0, 7, 1500, -30)] == ["$0", "$7", "$1500", "\u2212$30"]
        assert [signed_dollars(n) for n in (5, 0, -10)] == ["+$5", "$0", "\u2212$10"]
