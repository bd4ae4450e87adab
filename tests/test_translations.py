"""The shipped languages stay complete: every marked string translated in each, none fuzzy, the
placeholders alike; and a person reads the pages in their language (docs/decisions.md,
"Languages")."""

from __future__ import annotations

import itertools
import re
import shutil
import subprocess
from pathlib import Path
from typing import Any

import pytest
from django.conf import settings
from django.urls import reverse
from django.utils import translation

from accounts.models import User
from events.player_words import hand_words
from scoring.evaluator import evaluate_high, evaluate_low
from tests.catalogs import po_entries
from tests.factories import make_table, make_user

LOCALE = Path(settings.BASE_DIR) / "locale"
SHIPPED = [code for code, _ in settings.LANGUAGES if code != settings.LANGUAGE_CODE]
# The pages' and emails' words (django), and the words static/js/*.js say (djangojs).
DOMAINS = ["django", "djangojs"]
# python-format (`%(name)s`, `%%`) and brace (`{name}`) placeholders.
PLACEHOLDER = re.compile(r"%\([a-z_]+\)[sd]|%%|\{[a-z_]*\}")


@pytest.fixture(scope="module", autouse=True)
def compiled() -> None:
    """The .mo files are build output: compile them as `make test` does."""
    subprocess.run([str(Path(settings.BASE_DIR) / "scripts/compile-messages")], check=True)


def catalog(code: str | Path, domain: str = "django") -> list[dict[str, Any]]:
    """The .po's entries (a shipped language's, or the .po at a path): flags, msgid, msgid_plural
    and msgstr forms (no polib needed)."""
    po = code if isinstance(code, Path) else LOCALE / code / "LC_MESSAGES" / f"{domain}.po"
    return po_entries(po.read_text())


@pytest.mark.parametrize("domain", DOMAINS)
@pytest.mark.parametrize("code", SHIPPED)
def test_every_marked_string_is_translated_and_none_is_fuzzy(code, domain):
    assert shutil.which("msgfmt"), "msgfmt is missing: apt-get install gettext"
    checked = subprocess.run(
        ["msgfmt", "--check", "--statistics", "-o", "/dev/null", "-"],
        input=(LOCALE / code / "LC_MESSAGES" / f"{domain}.po").read_bytes(),
        capture_output=True,
        check=False,
    )
    assert checked.returncode == 0, checked.stderr.decode()
    statistics = checked.stderr.decode()
    assert re.fullmatch(r"\d+ translated messages\.\n", statistics), statistics
    entries = catalog(code, domain)
    assert not [e for e in entries if "fuzzy" in e["flags"]]


def mismatched_placeholders(entries: list[dict[str, Any]]) -> list[tuple[str, str]]:
    """(msgid, msgstr) of each translation whose placeholders differ from its original's."""
    wrong = []
    for entry in entries[1:]:  # after the header
        originals = [entry["msgid"], entry.get("msgid_plural", entry["msgid"])]
        for name, value in entry.items():
            if not name.startswith("msgstr"):
                continue
            found = sorted(PLACEHOLDER.findall(str(value)))
            # A singular form may leave out the count its plural shows.
            if not any(found == sorted(PLACEHOLDER.findall(str(o))) for o in originals):
                wrong.append((entry["msgid"], value))
    return wrong


@pytest.mark.parametrize("domain", DOMAINS)
@pytest.mark.parametrize("code", SHIPPED)
def test_each_translation_has_the_placeholders_of_its_original(code, domain):
    assert not mismatched_placeholders(catalog(code, domain))


def test_a_missing_or_extra_placeholder_is_caught(tmp_path):
    po = tmp_path / "django.po"
    po.write_text(
        'msgid ""\nmsgstr ""\n"Content-Type: text/plain; charset=UTF-8\\n"\n\n'
        'msgid "Hello %(name)s"\nmsgstr "Hola"\n\n'
        'msgid "%(count)s left"\nmsgstr "quedan %(count)s de %(total)s"\n\n'
        'msgid "{count} cards"\nmsgstr "{count} cartas"\n\n'
        'msgid "100%% sure"\nmsgstr "100 seguro"\n'
    )
    assert mismatched_placeholders(catalog(po)) == [
        ("Hello %(name)s", "Hola"),
        ("%(count)s left", "quedan %(count)s de %(total)s"),
        ("100%% sure", "100 seguro"),
    ]


@pytest.mark.parametrize("domain", DOMAINS)
def test_the_catalogs_mark_the_same_strings(domain):
    ids = [{(e.get("msgctxt"), e["msgid"]) for e in catalog(code, domain)} for code in SHIPPED]
    assert all(one == ids[0] for one in ids)


def test_english_hand_words_are_scorings_names():
    cards = [rank + suit for rank in "23456789TJQKA" for suit in "cdhs"]
    with translation.override("en"):
        for hand in itertools.islice(itertools.combinations(cards, 5), 0, 2_598_960, 997):
            for wild in (None, "7"):
                assert (
                    hand_words(evaluate_high(hand, wild)) == evaluate_high(hand, wild).description
                )
            assert hand_words(evaluate_low(hand)) == evaluate_low(hand).description


def test_hand_words_as_players_say_them():
    flush = ["Ts", "Js", "Qs", "Ks", "As"]
    with translation.override("es"):
        assert hand_words(evaluate_high(flush)) == "Escalera real"
        assert hand_words(evaluate_high(["9s", *flush[:4]])) == "Escalera de color hasta rey"
        assert hand_words(evaluate_high(["Kc", "Kd", "Kh", "5s", "5c"])) == "Full de reyes y cincos"
    with translation.override("fr"):
        assert hand_words(evaluate_high(flush)) == "Quinte flush royale"
        assert hand_words(evaluate_high(["Kc", "Kd", "Kh", "Ks", "5c"])) == "Carré de rois"


# A person's language


def _page(client, table, player, **headers) -> str:
    client.force_login(player)
    return client.get(reverse("web:event", args=[table.event.pk]), headers=headers).content.decode()


@pytest.mark.django_db
def test_accept_language_es_shows_the_players_page_in_spanish(client):
    table = make_table("league", players=2, start=True)
    ann = table.players[0]
    html = _page(client, table, ann, accept_language="es-MX,es;q=0.9,en;q=0.5")
    assert '<html lang="es">' in html
    assert "Tu mano" in html and "Partidas" in html
    assert re.search(r"Elige \d+ de \d+ cartas iniciales", html)
    assert "Your hand" not in html


@pytest.mark.django_db
def test_the_accounts_choice_wins_over_the_browsers(client):
    table = make_table("league", players=2, start=True)
    ann = table.players[0]
    User.objects.filter(pk=ann.pk).update(language="fr")
    ann.refresh_from_db()
    html = _page(client, table, ann, accept_language="es")
    assert '<html lang="fr">' in html
    assert "Votre main" in html and "Tu mano" not in html


@pytest.mark.django_db
def test_an_unknown_language_falls_back_to_english(client):
    table = make_table("league", players=2, start=True)
    html = _page(client, table, table.players[0], accept_language="xx-YY,zz;q=0.8")
    assert '<html lang="en">' in html
    assert "Your hand" in html


@pytest.mark.django_db
def test_settings_save_the_language_and_the_page_follows(client):
    user = make_user("Ann")
    client.force_login(user)
    response = client.post(reverse("web:settings"), {"language": "es"}, follow=True)
    user.refresh_from_db()
    assert user.language == "es"
    assert "Ajustes guardados." in response.content.decode()
    client.post(reverse("web:settings"), {"language": ""})
    user.refresh_from_db()
    assert user.language == ""


@pytest.mark.django_db
@pytest.mark.parametrize("code", ["de", "xx", "es-419 ", "EN", "<script>", "e" * 40])
def test_settings_refuse_an_unknown_language_and_change_nothing(client, code):
    user = make_user("Ann")
    client.force_login(user)
    response = client.post(
        reverse("web:settings"), {"language": code, "four_colour_deck": "on"}, follow=True
    )
    assert response.status_code == 200
    assert "Choose one of the languages offered: nothing was changed." in response.content.decode()
    user.refresh_from_db()
    assert user.language == "" and user.four_colour_deck is False


def test_every_string_the_scripts_mark_is_in_their_catalog():
    """A word marked in static/js but missing from djangojs.po (makemessages not run) would show
    in English to every reader: xgettext reads the scripts as makemessages does."""
    scripts = sorted(str(path) for path in (Path(settings.BASE_DIR) / "static" / "js").glob("*.js"))
    extracted = subprocess.run(
        [
            *("xgettext", "--language=JavaScript", "--from-code=UTF-8", "-o", "-"),
            *("--keyword=pgettext:1c,2", "--keyword=npgettext:1c,2,3", *scripts),
        ],
        capture_output=True,
        check=True,
    ).stdout.decode()
    marked = {(e.get("msgctxt"), e["msgid"]) for e in po_entries(extracted)[1:]}
    assert len(marked) > 30
    for code in SHIPPED:
        assert marked <= {(e.get("msgctxt"), e["msgid"]) for e in catalog(code, "djangojs")}
