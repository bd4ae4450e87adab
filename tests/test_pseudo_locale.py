"""Every page read in the pseudo-locale (tests/pseudo_locale.py) shows no English outside the
wrapping but the data the scene put in: a string nobody marked fails here, with the page and the
words (docs/decisions.md, "Languages").

The URL patterns are read from the resolver, so a new page is rendered without anyone listing
it; a pattern the scene cannot fill, or one answering what is not a page and is not named below
with its reason, fails. Each is asked by House, a player and a visitor, for an event open with a
waitlist, one started with hands in play, and a finished one in a series with its season; every
form's action is posted empty and what it says back is read the same way.
"""

from __future__ import annotations

import dataclasses
import json
import re
import zoneinfo
from collections.abc import Iterator
from dataclasses import dataclass, field
from html.parser import HTMLParser
from pathlib import Path
from typing import Any

import pytest
from django.apps import apps
from django.conf import settings
from django.contrib.messages import get_messages
from django.db import models, transaction
from django.test import Client, RequestFactory
from django.urls import URLPattern, URLResolver, get_resolver, reverse
from django.utils import translation

from accounts.models import User
from events import services
from events.models import Event
from events.reads.board import board_view
from events.reads.final import final_results
from events.venue import display_path
from organizations import services as organizations
from organizations.models import Organization
from seasons.models import Series
from seasons.reads import public_id
from staff.scopes import Scope
from syndicate import error_pages
from tests import pseudo_locale
from tests.factories import Table, make_table, make_user, rolled_back
from tests.pseudo_locale import CLOSE, CODE, OPEN
from tests.seasons.support import League, make_league

# Routes that answer what is not a page a person reads, each with its reason. Anything else that
# answers other than HTML fails.
NOT_PAGES = {
    "favicon.ico": "a redirect to the icon file",
    "web:js_catalog": "the scripts' words: the JavaScript catalog's own test reads them wrapped",
    "web:health": "the load balancer's probe (plain text)",
    "web:board_snapshot": "JSON the board's script reads",
    "web:display_now": "JSON the display's script reads",
    "house:audit_csv": "the audit export: its words are hashed and signed (stays English)",
    "house:audit_json": "the audit export: its words are hashed and signed (stays English)",
    "seasons:audit_json": "the series' audit export: hashed and signed (stays English)",
    "seasons:season_csv": "a data file for spreadsheets: its columns are keys",
    "seasons:season_json": "a data file for programs: its keys are keys",
    "ledger:night_csv": "a data file for spreadsheets: its columns are keys",
    "privacy:data_download": "a person's data as JSON for programs",
    "push:subscribe": "JSON for the service worker",
    "push:unsubscribe": "JSON for the service worker",
    "push:key": "the push public key",
    "push:service_worker": "a script: what it shows arrives in the pushes",
    "payments:stripe-webhook": "Stripe's webhook",
    "audit:public_key": "the audit's public key",
    "audit:public_key_pem": "the audit's public key file",
}
# Routes that only send the browser on, whoever asks (the page they send to is rendered).
REDIRECTS = {
    "seasons:series_invitation": "a permanent redirect to the one invitation page",
    "admin-login": "the sign-in page for site staff, or the admin once signed in",
    "web:cancel": "a form's action: a GET goes back to the event's page",
    "account_confirm_login_code": "a stage of a sign-in by code, which the site does not offer",
    "account_confirm_reauthentication_code": "a stage of a reauthentication by code, not offered",
    "account_email_verification_sent": "reached only right after a sign-up that sent a code",
    "account_set_password": "for accounts without a password, which the site does not make",
}
# Namespaces that are not the site's pages: the JSON API (codes and messages checked by its own
# tests) and Django's admin (site staff, Django's own catalogs).
NOT_PAGE_NAMESPACES = {"api": "the JSON API", "admin": "Django's admin, for site staff"}
# Names that read the same in every language: brands, and file formats named by their letters.
NAMES = {"Syndicate", "Stripe", "Scoreholio", "Android", "Chrome", "Safari", "iPhone", "iOS"}
NAMES |= {"CSV", "JSON", "PDF", "QR"}
# What a person reads besides the text: these attributes, and a button's or submit's value.
READ_ATTRIBUTES = {
    "title",
    "placeholder",
    "aria-label",
    "alt",
    "label",
    "data-confirm-text",
    "data-label",
    "data-summary",
}
# Not read as words: scripts, styles, and what is typed as it stands (a command, a code).
SKIPPED = ("script", "style", "code", "kbd", "samp")
READ_META = {"description", "application-name", "apple-mobile-web-app-title"}
ENGLISH = re.compile(r"[A-Za-z]+(?:['\u2019][A-Za-z]+)*")
NOT_WORDS = [
    re.compile(r"https?://\S+|\b[\w.+-]+@[\w-]+(?:\.[\w-]+)+\b"),  # addresses
    re.compile(r"(?<![\w/])/[\w\-./?=&%]+"),  # paths
    re.compile(r"\b\d+(?:st|nd|rd|th)\b"),  # English ordinals, the pseudo-locale's own
    re.compile(r"\b(?=[\w-]*\d)(?=[\w-]*[A-Za-z])[\w-]{6,}\b"),  # codes and tokens
    re.compile(r"\b(?:10|[2-9TJQKA])(?:[cdhs]\b|[♠♥♦♣])"),  # cards: codes, rank and suit
    re.compile(r"\b\d+\s?(?:ms|s|min|h)\b"),  # durations in SI symbols
]
# A rank on its own ("every K is wild", "K K K 5 5"): a card, not a word.
RANK = re.compile(r"[AKQJT]")
# A stored code (a format's, a status', a role's name): shown as it is, it is a word to mark.
CODE_VALUE = re.compile(r"[a-z0-9_.-]+")


@dataclass
class Scene:
    """What a page is asked with: the ids of each state, its viewers, and the data put in."""

    states: dict[str, dict[str, Any]]
    viewers: dict[str, dict[str, User | None]]
    data: list[str] = field(default_factory=list)


def routes(
    resolver: URLResolver | None = None, prefix: str = "", namespace: str = ""
) -> Iterator[tuple[str, str, URLPattern]]:
    """(name, route, pattern) of every URL pattern outside the API and the admin."""
    for entry in (resolver or get_resolver()).url_patterns:
        route = prefix + str(entry.pattern)
        if isinstance(entry, URLResolver):
            inner = entry.namespace or namespace
            if inner not in NOT_PAGE_NAMESPACES:
                yield from routes(entry, route, inner)
        else:
            name = f"{namespace}:{entry.name}" if namespace else entry.name or route
            yield name, route, entry


def address(route: str, ids: dict[str, Any], name: str) -> str | None:
    """The route filled from `ids` (None when the scene has no value for one of its parts)."""
    if name in ("web:board_venue",):
        ids = {**ids, "token": ids.get("venue_token")}
    elif name in ("web:display", "web:display_now"):
        ids = {**ids, "token": ids.get("display_token")}
    elif "invitation" in name:
        ids = {**ids, "token": ids.get("invitation_token")}
    if "<int:scope_id>" in route:
        ids = {**ids, "scope_id": ids.get("series_id" if "series/" in route else "event_id")}
    missing: list[str] = []

    def fill(match: re.Match[str]) -> str:
        part = match.group(1) or match.group(2)
        value = ids.get(part)
        if value is None:
            missing.append(part)
        return str(value)

    path = re.sub(r"<(?:\w+:)?(\w+)>|\(\?P<(\w+)>[^)]*\)", fill, route)
    if missing:
        return None
    return "/" + path.replace("^", "").replace("$", "")


class ReadText(HTMLParser):
    """The text a person reads on a page: its text outside scripts and styles, and the
    attributes read aloud or shown."""

    def __init__(self) -> None:
        super().__init__(convert_charrefs=True)
        self.read: list[str] = []
        self._skipping = 0

    def handle_starttag(self, tag: str, attrs: list[tuple[str, str | None]]) -> None:
        if tag in SKIPPED:
            self._skipping += 1
        values = dict(attrs)
        for name, value in attrs:
            if value and name in READ_ATTRIBUTES:
                self.read.append(value)
        if tag == "input" and values.get("type") in ("submit", "button", "reset"):
            self.read.append(values.get("value") or "")
        if tag == "meta" and values.get("name") in READ_META:
            self.read.append(values.get("content") or "")

    def handle_endtag(self, tag: str) -> None:
        if tag in SKIPPED:
            self._skipping = max(0, self._skipping - 1)

    def handle_data(self, data: str) -> None:
        if not self._skipping and data.strip():
            self.read.append(data)


def unmarked(texts: list[str], data: list[str]) -> list[str]:
    """Every text holding English outside the pseudo wrapping once the data is taken out."""
    found = []
    for text in texts:
        rest = text
        for value in data:
            rest = rest.replace(value, " ")
        for pattern in NOT_WORDS:
            rest = pattern.sub(" ", rest)
        rest = rest.replace(OPEN, " ").replace(CLOSE, " ")
        words = [w for w in ENGLISH.findall(rest) if w not in NAMES and not RANK.fullmatch(w)]
        if words:
            found.append(text.strip())
    return found


def page_words(html: str, data: list[str]) -> list[str]:
    reader = ReadText()
    reader.feed(html)
    return unmarked(reader.read, data)


@pytest.fixture(scope="module")
def pseudo_folder(tmp_path_factory: pytest.TempPathFactory) -> Path:
    return pseudo_locale.build(tmp_path_factory.mktemp("pseudo-locale"))


@pytest.fixture
def in_pseudo(pseudo_folder: Path, settings: Any) -> None:
    """The pseudo-locale offered as a language beside the shipped ones."""
    settings.LANGUAGES = [*settings.LANGUAGES, (CODE, pseudo_locale.pseudo("Pseudo"))]
    # The deployment's language too: an event or a series with none chosen (the scene's) writes
    # its board, final page and sheets in it; the database holds only shipped codes.
    settings.LANGUAGE_CODE = CODE
    settings.LOCALE_PATHS = [pseudo_folder, *settings.LOCALE_PATHS]


def stored_text() -> list[str]:
    """Every free text the scene stored (names, addresses, reasons, announcements, stored English
    such as scoring's descriptions), longest first: data, not the page's own words."""
    values: set[str] = set()
    for model in apps.get_models():
        text = [
            f.attname
            for f in model._meta.concrete_fields
            if isinstance(f, models.CharField | models.TextField) and not f.choices
        ]
        structured = [
            f.attname for f in model._meta.concrete_fields if isinstance(f, models.JSONField)
        ]
        for row in model._default_manager.values_list(*text, *structured):
            for value in row[: len(text)]:
                if (
                    isinstance(value, str)
                    and len(value.strip()) >= 3
                    and not CODE_VALUE.fullmatch(value)
                ):
                    values.add(value.strip())
            for value in row[len(text) :]:
                values.update(leaf for leaf in _leaves(value) if len(leaf) >= 3 and " " in leaf)
    return sorted(values, key=len, reverse=True)


def _leaves(value: Any) -> Iterator[str]:
    if isinstance(value, str):
        yield value
    elif isinstance(value, dict):
        for inner in value.values():
            yield from _leaves(inner)
    elif isinstance(value, list):
        for inner in value:
            yield from _leaves(inner)


def _renamed(house: User) -> User:
    """House's account named as a person: "House" is a word of the pages, not data."""
    User.objects.filter(pk=house.pk).update(display_name="Hattie Hollis")
    house.refresh_from_db()
    return house


def open_with_waitlist() -> tuple[Table, dict[str, Any]]:
    table = make_table("league", players=2)
    _renamed(table.house)
    Event.objects.filter(pk=table.event.pk).update(capacity=2, venue="The Anchor")
    waiting = make_user("Wanda Waitlisted")
    table.register(waiting)
    services.self_check_in_switch(event_id=table.event.pk, by=table.house, enabled=True)
    services.announcement_send(event_id=table.event.pk, by=table.house, text="Doors at seven")
    invited = services.staff_invite(
        scope=Scope.of(table.event), by=table.house, email="sam@example.com", role="scorer"
    )
    link = services.display_link_create(
        scope=Scope.of(table.event), by=table.house, label="Bar screen"
    )
    venue = display_path(table.refresh())
    assert venue is not None
    return table, {
        "venue_token": venue.rstrip("/").rsplit("/", 1)[1],
        "display_token": link.path.rstrip("/").rsplit("/", 1)[1],
        "invitation_token": invited.token,
        "invitation_id": invited.invitation_id,
        "registration_id": table.rid(waiting),
    }


def started_with_hands() -> tuple[Table, dict[str, Any]]:
    table = make_table("league", players=3, start=True)
    _renamed(table.house)
    ann, bob, cy = table.players
    table.choose_start(ann)
    table.win(ann, 1)  # a Win offer waiting for Ann's choice
    table.play_out(bob, "wl" + "l" * (table.event.rules.games - 2))
    review = services.review_open(registration_id=table.rid(cy), by=table.house, reason="Bag count")
    services.announcement_send(event_id=table.event.pk, by=table.house, text="Round two now")
    return table, {"review_id": review.review_id, "registration_id": table.rid(ann)}


def finished_in_a_season() -> tuple[League, int]:
    league = make_league(4)
    _renamed(league.house)
    league.open_season({"min_events": 1, "qualifiers": 2})
    event_id = league.night(0, league.players, seed=7)
    return league, event_id


@pytest.fixture(scope="module")
def built(django_db_setup: None, django_db_blocker: Any) -> Iterator[Scene]:
    """The scene, built once for the module in a transaction rolled back after its last test
    (each test's own transaction is a savepoint inside it); marked as Django's TestCase marks
    its class-wide block, so the services' durable blocks run inside it as in any test."""
    with django_db_blocker.unblock():
        block = transaction.atomic()
        block._from_testcase = True  # type: ignore[attr-defined]
        with block:
            yield _build()
            transaction.set_rollback(True)


@pytest.fixture
def scene(built: Scene, db: None) -> Scene:
    return built


def _build() -> Scene:
    opened, opened_ids = open_with_waitlist()
    started, started_ids = started_with_hands()
    league, finished_id = finished_in_a_season()
    series_invited = services.staff_invite(
        scope=Scope(Series, league.series_id), by=league.house, email="kim@example.com"
    )
    # An organization the league's House owns, with a venue and a staff invitation: its page.
    organization = organizations.organization_create(by=league.house, name="Harbour League")
    organizations.venue_create(
        organization_id=organization.organization_id, by=league.house, name="The Dock"
    )
    services.staff_invite(
        scope=Scope(Organization, organization.organization_id),
        by=league.house,
        email="lou@example.com",
    )
    finished = Event.objects.get(pk=finished_id)
    someone = league.players[0]
    registration = finished.registrations.get(player=someone)
    common = {"uidb36": "0", "key": "set-by-nobody"}
    states = {
        "open": {
            **common,
            **opened_ids,
            "event_id": opened.event.pk,
            "user_id": opened.house.pk,
            "player_id": public_id(opened.players[0]),
        },
        "started": {
            **common,
            **started_ids,
            "event_id": started.event.pk,
            "user_id": started.house.pk,
            "player_id": public_id(started.players[0]),
        },
        "finished": {
            **common,
            "event_id": finished_id,
            "invitation_id": series_invited.invitation_id,
            "invitation_token": series_invited.token,
            "registration_id": registration.pk,
            "series_id": league.series_id,
            "organization_id": organization.organization_id,
            "season_id": league.season_id,
            "user_id": league.house.pk,
            "player_id": public_id(someone),
        },
    }
    viewers = {
        "open": {"house": opened.house, "player": opened.players[0], "visitor": None},
        "started": {"house": started.house, "player": started.players[0], "visitor": None},
        "finished": {"house": league.house, "player": someone, "visitor": None},
    }
    return Scene(states=states, viewers=viewers, data=[*stored_text(), *_fixed_data()])


def _fixed_data() -> list[str]:
    """Data no row holds: the hands' descriptions (scoring's, English by decision), language
    names (each in its own language), time zones and the site's host."""
    described: set[str] = set()
    for event in Event.objects.all():
        _descriptions(board_view(event), described)
        _descriptions(final_results(event), described)
    return sorted(
        described
        | {name for _, name in settings.LANGUAGES}
        | {zone for zone in zoneinfo.available_timezones() if "/" in zone or zone == "UTC"}
        | {"testserver"},
        key=len,
        reverse=True,
    )


def _descriptions(value: Any, into: set[str]) -> None:
    """Every `description` in a read model."""
    if dataclasses.is_dataclass(value) and not isinstance(value, type):
        for item in dataclasses.fields(value):
            inner = getattr(value, item.name)
            if item.name == "description" and isinstance(inner, str):
                into.add(inner)
            else:
                _descriptions(inner, into)
    elif isinstance(value, list | tuple):
        for inner in value:
            _descriptions(inner, into)


def _client(user: User | None) -> Client:
    client = Client(headers={"accept-language": CODE})
    if user is not None:
        client.force_login(user)
    return client


# A room's screens: written in the event's (or the series') language, whatever the browser
# showing them asks for (events/event_language.py).
ROOM_SCREENS = (
    "web:board",
    "web:board_partial",
    "web:board_final",
    "web:board_venue",
    "web:display",
    "house:results_sheet",
    "seasons:season_board",
)


def test_a_rooms_screens_read_the_events_language_not_the_browsers(
    scene: Scene, in_pseudo: None
) -> None:
    """The scene's events and series chose no language: theirs is the deployment's, here the
    pseudo-locale. A browser asking for English must still read every word of them wrapped: a
    word read in the browser's language (a read model that names things as it reads) shows."""
    found: dict[str, set[str]] = {}
    rendered: set[str] = set()
    screens = {name: route for name, route, _ in routes() if name in ROOM_SCREENS}
    assert set(screens) == set(ROOM_SCREENS)
    for name, route in screens.items():
        for state, ids in scene.states.items():
            path = address(route, ids, name)
            if path is None:
                continue
            for user in scene.viewers[state].values():
                client = Client(headers={"accept-language": "en-US,en;q=0.9"})
                if user is not None:
                    client.force_login(user)
                response = client.get(path)
                if response.status_code != 200:
                    continue
                rendered.add(name)
                words = page_words(response.content.decode(), scene.data)
                if words:
                    found.setdefault(name, set()).update(words)
    assert rendered == set(ROOM_SCREENS), sorted(set(ROOM_SCREENS) - rendered)
    assert not found, json.dumps({k: sorted(v) for k, v in found.items()}, indent=1)


def test_every_page_reads_in_the_pseudo_locale(scene: Scene, in_pseudo: None) -> None:
    found: dict[str, set[str]] = {}
    rendered: set[str] = set()
    form_actions: set[str] = set()
    answers: dict[str, list[str]] = {}
    mislisted: set[str] = set()
    clients = {
        state: {who: _client(user) for who, user in viewers.items()}
        for state, viewers in scene.viewers.items()
    }
    for name, route, _pattern in routes():
        needs_state = "<" in route or "(?P<" in route
        for state, ids in scene.states.items() if needs_state else [("open", {})]:
            path = address(route, ids, name)
            if path is None:
                answers.setdefault(name, []).append(f"{state}: nothing to fill {route}")
                continue
            for who, client in clients[state].items():
                response = client.get(path)
                kind = response.get("Content-Type", "")
                answers.setdefault(name, []).append(f"{state}/{who}: {response.status_code} {kind}")
                if response.status_code == 405:
                    form_actions.add(name)
                    break
                if response.status_code != 200:
                    continue
                if name in NOT_PAGES:
                    if kind.startswith("text/html"):
                        mislisted.add(name)
                    continue
                body = response.content.decode()
                if name == "push:manifest":
                    texts = [
                        str(v)
                        for k, v in json.loads(body).items()
                        if "name" in k or k == "description"
                    ]
                    words = unmarked(texts, scene.data)
                elif kind.startswith("text/html"):
                    words = page_words(body, scene.data)
                else:
                    continue
                rendered.add(name)
                if words:
                    found.setdefault(name, set()).update(words)
            if name in form_actions:
                break
    names = {name for name, _, _ in routes()}
    missed = sorted(names - rendered - form_actions - set(NOT_PAGES) - set(REDIRECTS))
    assert not missed, "pages not rendered: " + json.dumps(
        {n: answers.get(n) for n in missed}, indent=1
    )
    assert not mislisted, f"listed as not pages, but answer a page: {sorted(mislisted)}"
    assert not found, _report(found)


def _report(found: dict[str, set[str]]) -> str:
    lines = [f"{sum(len(w) for w in found.values())} unmarked texts on {len(found)} routes:"]
    for page, words in sorted(found.items()):
        lines.append(f"  {page}:")
        lines += [f"    {word!r}" for word in sorted(words)]
    return "\n".join(lines)


def test_the_error_pages_read_in_the_pseudo_locale(scene: Scene, in_pseudo: None) -> None:
    request = RequestFactory().get("/somewhere/")
    request.user = scene.viewers["open"]["player"]  # type: ignore[assignment]
    with translation.override(CODE):
        pages = {
            "400": error_pages.bad_request(request, None),
            "403": error_pages.permission_denied(request, None),
            "404": error_pages.page_not_found(request, None),
            "500": error_pages.server_error(request),
        }
    found = {
        status: words
        for status, response in pages.items()
        if (words := page_words(response.content.decode(), scene.data))
    }
    assert not found, found


def test_the_pseudo_locale_keeps_placeholders_tags_and_formats() -> None:
    assert pseudo_locale.pseudo("Your hand") == "⟦Ýöûŕ ĥåñð⟧"
    assert pseudo_locale.pseudo("Hi %(name)s, {count} left: 100%%") == (
        "⟦Ĥî %(name)s, {count} ļéƒţ: 100%%⟧"
    )
    assert pseudo_locale.pseudo('<a href="/x">Go</a> &amp; stay') == (
        '⟦<a href="/x">Ĝö</a> &amp; šţåý⟧'
    )
    assert pseudo_locale.pseudo("D j M") == "D j M"  # a date format keeps its letters


def test_a_marked_page_reads_wrapped_and_the_check_sees_english(in_pseudo: None, db: None) -> None:
    table = make_table("league", players=2, start=True)
    html = _client(table.players[0]).get(f"/events/{table.event.pk}/").content.decode()
    assert f'<html lang="{CODE}">' in html
    assert pseudo_locale.pseudo("Your hand") in html and "Your hand" not in html
    data = ["Thursday League", "Ann Smith"]
    assert page_words("<p>⟦Ýöûŕ ĥåñð⟧ · Thursday League · 3rd · K♠ · 7:42</p>", data) == []
    assert page_words("<p>Ann Smith <b>kept</b></p><script>var x = 'Hi'</script>", data) == ["kept"]
    assert page_words('<input type="submit" value="Send"><img alt="⟦Ļöĝö⟧">', data) == ["Send"]


def test_the_javascript_catalog_is_wrapped_in_the_pseudo_locale(
    pseudo_folder: Path, in_pseudo: None
) -> None:
    ours = [Path(path) / "es" / "LC_MESSAGES" / "djangojs.po" for path in settings.LOCALE_PATHS]
    catalogs = [po for po in ours if po.exists()]
    if not catalogs:
        pytest.skip("no djangojs catalog on this branch yet")
    path = reverse("web:js_catalog", args=[CODE])
    script = _client(None).get(path).content.decode()
    catalog = json.loads(re.search(r"const newcatalog = (\{.*?\});\n", script, re.S).group(1))  # type: ignore[union-attr]
    wanted = {entry["msgid"] for po in catalogs for entry in pseudo_locale.entries(po)}
    missing = sorted(wanted - {key.split("\x04")[-1] for key in catalog})
    assert not missing, f"JavaScript strings the served catalog lacks: {missing}"
    bare = [
        (key, value)
        for key, value in catalog.items()
        for text in (value if isinstance(value, list) else [value])
        if not (text.startswith(OPEN) and text.endswith(CLOSE))
        and not pseudo_locale.DATE_FORMAT.fullmatch(text)
    ]
    assert not bare, f"JavaScript strings the pseudo-locale does not wrap: {bare}"


def test_every_forms_answer_reads_in_the_pseudo_locale(scene: Scene, in_pseudo: None) -> None:
    """What a form's action says back (its refusal or its confirmation, shown on the page it
    sends to): each asked empty, by House on House's pages and by a player on the others, in
    each state, then undone."""
    found: dict[str, set[str]] = {}
    said = 0
    clients = {
        (state, who): _client(scene.viewers[state][who])
        for state in scene.states
        for who in ("house", "player")
    }
    for name, route, _pattern in routes():
        if name in NOT_PAGES:
            continue
        who = "house" if route.startswith("house/") else "player"
        for state, ids in scene.states.items():
            path = address(route, ids, name)
            if path is None:
                continue
            with rolled_back():
                response = clients[state, who].post(path, {"idempotency_key": f"{name}-{state}"})
                messages = [str(m) for m in get_messages(response.wsgi_request)]
            clients[state, who].cookies.pop("messages", None)  # read here, not on the next page
            if response.status_code == 405:
                break
            said += len(messages)
            if words := unmarked(messages, scene.data):
                found.setdefault(name, set()).update(words)
    assert said > 20  # the forms did answer
    assert not found, _report(found)
