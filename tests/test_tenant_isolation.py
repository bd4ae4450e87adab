"""One organizer's staff reach nothing of another's by id: every route of the project that takes
an object's id or token, read from the resolver, is asked by each of world A's staff (owner,
director, cashier, scorer) with world B's ids, in each phase of B's events, with every method it
takes and a plausible body; the two worlds are two organizations (their staff's roles held in
their organization, its series and events at its venues), and again two series of the laptop's
one organization. House's pages answer 404, House's API too (404 `not_found`: not found or not
yours), and nothing in the database changes (every table's rows, counted and hashed before the
sweep, and again after each request for each table PostgreSQL counted a write to during it:
`changed_since` in tests/tenants.py). Public routes answer, and show nothing private of B
(staff's and players' emails, invitations, display links' tokens, the check-in code, the
ledger's notes).

A route that takes an id and is missing from `ROUTES` fails the sweep: a new route is classified
before it ships. The two worlds are built once for the module (tests/tenants.py); each request
runs in a savepoint rolled back after it.
"""

from __future__ import annotations

import json
import uuid
from collections import Counter
from collections.abc import Iterator
from dataclasses import dataclass
from typing import Any

import pytest
from django.contrib.messages import get_messages
from django.db import transaction
from django.http import HttpResponse
from django.test import Client
from django.urls import URLPattern

from tests.factories import rolled_back
from tests.routes import ID_BODIES, ID_FORMS, body, every_route, fill, methods, parameters
from tests.tenants import LEVELS, PHASES, World, build_world, changed_since, fingerprint, writes


@dataclass(frozen=True)
class Kind:
    """What a route is to another tenant's staff, and why."""

    name: str
    reason: str
    swept: bool = True
    # The token a route's `<token>` takes from the world (`World.tokens`).
    token: str = ""


HOUSE_PAGE = Kind(
    "house page",
    "House's page, form or download of one event, series, season or organization: 404 to "
    "anyone who holds no role there (house/views.py, ledger/views.py, seasons/views.py, "
    "house/staff_pages.py, house/organizations.py)",
)
HOUSE_API = Kind(
    "house api",
    "House's API of one event, series, season or organization: 404 `not_found` to a stranger "
    "(no role in its chain, no place in the event), as House's pages answer "
    "(events/runner.py `stranger_refusal`, api/reads.py, events/access.py)",
)
PUBLIC_AND_HOUSE_API = Kind(
    "public read, house write",
    "Anyone reads it (an event's, series' or season's public summary); its writes are House's "
    "and refused to a stranger as House's API is",
)
PLAYER_API = Kind(
    "player api",
    "A player's own place, named by its registration id: 404 `not_found` to anyone but its "
    "player and its House (events/access.py `registration_for`, api/reads.py)",
)
PLAYER_PAGE = Kind(
    "player page",
    "The signed-in player's own place in an event: 404 (or a redirect to the event's public "
    "page) to an account with no place there (web/views.py)",
)
PUBLIC = Kind(
    "public",
    "Public by design (docs/rules.md: boards, final results, season tables, players' "
    "histories): answers anyone, shows nothing private",
)
SELF_SERVICE = Kind(
    "self service",
    "Any account takes a place of its own in a public event (register, check in with the "
    "venue's code): a player's act, open to the staff of any other organizer as to anyone; its "
    "page is read like a public one, its write is not sent",
)
INVITATION = Kind(
    "invitation",
    "A staff invitation's link: only the account with its email accepts it; anyone else is told "
    "it is for another address (staff/invitations.py), and the page shows no email",
    token="invitation",
)
INVITATION_API = Kind(
    "invitation",
    "An invitation accepted over the API with its token: only by the account with its email; "
    "anyone else is refused (403, 404, or 409 when the event is finalized: that is public) "
    "and nothing changes",
)
SERIES_INVITATION = Kind(
    "invitation",
    "A series' invitation's older link, sent on to the one invitation page",
    token="series_invitation",
)
CAPABILITY = Kind(
    "capability",
    "The token is the grant: a display link or a venue's display link that B's House made for "
    "its projector shows B's board to whoever holds it, until revoked (events/display.py, "
    "events/venue.py); a password reset key is allauth's. Nothing to find by id",
    swept=False,
)
NOT_AN_OBJECT = Kind(
    "not an object",
    "Its parameter names a language or a static file, no object of anyone's",
    swept=False,
)
SITE_STAFF = Kind(
    "site staff",
    "Django's admin: site staff only (syndicate/security.py, tests/security/test_admin.py); "
    "an organizer's staff are not site staff",
    swept=False,
)

# Every route that takes a value, by its namespaced name (the admin's by its namespace).
ROUTES: dict[str, Kind] = {
    # The API: events
    "api:event": PUBLIC_AND_HOUSE_API,
    "api:board": PUBLIC,
    "api:registration-open": HOUSE_API,
    "api:registration-close": HOUSE_API,
    "api:start": HOUSE_API,
    "api:waitlist": HOUSE_API,
    "api:participants": HOUSE_API,
    "api:pool-confirm": HOUSE_API,
    "api:finalize": HOUSE_API,
    "api:house": HOUSE_API,
    "api:checklist": HOUSE_API,
    "api:cash-box": HOUSE_API,
    "api:ledger-entries": HOUSE_API,
    "api:ledger-refunds": HOUSE_API,
    "api:ledger-payouts": HOUSE_API,
    "api:ledger-sponsor": HOUSE_API,
    "api:audit": HOUSE_API,
    "api:self-check-in-switch": HOUSE_API,
    "api:check-in-all": HOUSE_API,
    "api:announcements": HOUSE_API,
    "api:event-series": HOUSE_API,
    "api:house-members": HOUSE_API,
    "api:house-member": HOUSE_API,
    "api:event-owner": HOUSE_API,
    "api:staff-invitations": HOUSE_API,
    "api:staff-invitation": HOUSE_API,
    "api:display-links": HOUSE_API,
    "api:display-link-revoke": HOUSE_API,
    # An invitation is accepted with its token, which the sweep sends B's of: refused to an
    # account without its email, whichever event the path names.
    "api:staff-invitation-accept": INVITATION_API,
    "api:series-staff-invitation-accept": INVITATION_API,
    # The API: series and seasons
    "api:series": PUBLIC_AND_HOUSE_API,
    "api:next-event": HOUSE_API,
    "api:seasons": HOUSE_API,
    "api:season": PUBLIC_AND_HOUSE_API,
    "api:season-download": PUBLIC,
    "api:championship": HOUSE_API,
    "api:player-history": PUBLIC,
    "api:series-house-members": HOUSE_API,
    "api:series-house-member": HOUSE_API,
    "api:series-owner": HOUSE_API,
    "api:series-staff-invitations": HOUSE_API,
    "api:series-staff-invitation": HOUSE_API,
    "api:series-display-links": HOUSE_API,
    "api:series-display-link-revoke": HOUSE_API,
    # The API: organizations
    "api:venues": HOUSE_API,
    # The API: a registration, House's acts on it or its player's
    "api:promote": HOUSE_API,
    "api:remove": HOUSE_API,
    "api:check-in": PLAYER_API,
    "api:check-in-undo": PLAYER_API,
    "api:payment": PLAYER_API,
    "api:corrections": PLAYER_API,
    "api:reviews": PLAYER_API,
    "api:review-resolve": PLAYER_API,
    "api:wild-reveal": PLAYER_API,
    "api:access-reset": PLAYER_API,
    "api:registration": PLAYER_API,
    "api:cancel": PLAYER_API,
    "api:checkout": PLAYER_API,
    "api:starting-selection": PLAYER_API,
    "api:results": PLAYER_API,
    "api:win-choice": PLAYER_API,
    "api:withdraw": PLAYER_API,
    "api:claim": PLAYER_API,
    "api:me": PLAYER_API,
    "api:register": SELF_SERVICE,
    "api:self-check-in": SELF_SERVICE,
    "api:swagger-asset": NOT_AN_OBJECT,
    # House's pages of an event
    "house:dashboard": HOUSE_PAGE,
    "house:dashboard_partial": HOUSE_PAGE,
    "house:event_edit": HOUSE_PAGE,
    "house:house_member_add": HOUSE_PAGE,
    "house:staff_role": HOUSE_PAGE,
    "house:house_member_remove": HOUSE_PAGE,
    "house:ownership_transfer": HOUSE_PAGE,
    "house:staff_invite": HOUSE_PAGE,
    "house:staff_invitation_cancel": HOUSE_PAGE,
    "house:house_leave": HOUSE_PAGE,
    "house:display_link_create": HOUSE_PAGE,
    "house:display_link_revoke": HOUSE_PAGE,
    "house:registration_open": HOUSE_PAGE,
    "house:registration_close": HOUSE_PAGE,
    "house:event_start": HOUSE_PAGE,
    "house:participant_add": HOUSE_PAGE,
    "house:self_check_in_switch": HOUSE_PAGE,
    "house:check_in_all": HOUSE_PAGE,
    "house:announcement_send": HOUSE_PAGE,
    "house:results_sheet": HOUSE_PAGE,
    "house:pool_confirm": HOUSE_PAGE,
    "house:event_finalize": HOUSE_PAGE,
    "house:audit_csv": HOUSE_PAGE,
    "house:audit_json": HOUSE_PAGE,
    "house:scoreholio_upload": HOUSE_PAGE,
    "house:scoreholio_clear": HOUSE_PAGE,
    "house:review_resolve": HOUSE_PAGE,
    "house:check_in": HOUSE_PAGE,
    "house:check_in_undo": HOUSE_PAGE,
    "house:registration_cancel": HOUSE_PAGE,
    "house:waitlist_promote": HOUSE_PAGE,
    "house:registration_remove": HOUSE_PAGE,
    "house:payment_mark": HOUSE_PAGE,
    "house:result_submit": HOUSE_PAGE,
    "house:win_choice": HOUSE_PAGE,
    "house:starting_selection": HOUSE_PAGE,
    "house:result_correct": HOUSE_PAGE,
    "house:review_open": HOUSE_PAGE,
    "house:withdraw": HOUSE_PAGE,
    "house:access_reset": HOUSE_PAGE,
    "house:wild_reveal": HOUSE_PAGE,
    "ledger:night": HOUSE_PAGE,
    "ledger:night_csv": HOUSE_PAGE,
    "ledger:entry": HOUSE_PAGE,
    "ledger:refund": HOUSE_PAGE,
    "ledger:payout": HOUSE_PAGE,
    "ledger:sponsor": HOUSE_PAGE,
    # House's pages of a series and a season
    "seasons:series": HOUSE_PAGE,
    "seasons:audit_json": HOUSE_PAGE,
    "seasons:event_add": HOUSE_PAGE,
    "seasons:event_remove": HOUSE_PAGE,
    "seasons:staff_add": HOUSE_PAGE,
    "seasons:staff_role": HOUSE_PAGE,
    "seasons:staff_remove": HOUSE_PAGE,
    "seasons:staff_owner": HOUSE_PAGE,
    "seasons:owner": HOUSE_PAGE,
    "seasons:invite": HOUSE_PAGE,
    "seasons:invitation_withdraw": HOUSE_PAGE,
    "seasons:leave": HOUSE_PAGE,
    "seasons:display_link_create": HOUSE_PAGE,
    "seasons:display_link_revoke": HOUSE_PAGE,
    "seasons:defaults": HOUSE_PAGE,
    "seasons:next_event": HOUSE_PAGE,
    "seasons:season_new": HOUSE_PAGE,
    "seasons:season_house": HOUSE_PAGE,
    "seasons:season_rules": HOUSE_PAGE,
    "seasons:championship_new": HOUSE_PAGE,
    # House's pages of an organization
    "organizations:organization": HOUSE_PAGE,
    "organizations:venue_add": HOUSE_PAGE,
    "organizations:staff_add": HOUSE_PAGE,
    "organizations:staff_role": HOUSE_PAGE,
    "organizations:staff_remove": HOUSE_PAGE,
    "organizations:staff_owner": HOUSE_PAGE,
    "organizations:invite": HOUSE_PAGE,
    "organizations:invitation_withdraw": HOUSE_PAGE,
    "organizations:leave": HOUSE_PAGE,
    # Invitations, by their token
    ":staff_invitation": INVITATION,
    "house:invitation": INVITATION,
    "seasons:series_invitation": SERIES_INVITATION,
    # Public pages
    "seasons:season": PUBLIC,
    "seasons:season_board": PUBLIC,
    "seasons:season_csv": PUBLIC,
    "seasons:season_json": PUBLIC,
    "seasons:history": PUBLIC,
    "web:event": PUBLIC,
    "web:board": PUBLIC,
    "web:board_partial": PUBLIC,
    "web:board_final": PUBLIC,
    "web:board_snapshot": PUBLIC,
    "web:self_check_in": SELF_SERVICE,
    "web:register": SELF_SERVICE,
    # A player's own place in an event
    "web:event_partial": PLAYER_PAGE,
    "web:start_confirm": PLAYER_PAGE,
    "web:report": PLAYER_PAGE,
    "web:keep": PLAYER_PAGE,
    "web:leave": PLAYER_PAGE,
    "web:cancel": PLAYER_PAGE,
    "web:claim": PLAYER_PAGE,
    "web:pay": PLAYER_PAGE,
    # Tokens that are the grant, and values that are no object
    "web:board_venue": CAPABILITY,
    "web:display": CAPABILITY,
    "web:display_now": CAPABILITY,
    ":account_reset_password_from_key": CAPABILITY,
    "web:js_catalog": NOT_AN_OBJECT,
    "admin": SITE_STAFF,
}

# House's pages without an id, which list what their viewer runs, and the public lists.
LISTS = ("/house/", "/house/tonight", "/api/events/", "/api/series/", "/me/history/", "/")


def kind_of(name: str) -> Kind | None:
    return ROUTES.get(name) or ROUTES.get(name.split(":")[0])


def routes_taking_a_value() -> list[tuple[str, str, URLPattern]]:
    return [item for item in every_route() if parameters(item[0])]


@pytest.fixture(scope="module", params=LEVELS)
def built(
    request: pytest.FixtureRequest, django_db_setup: None, django_db_blocker: Any
) -> Iterator[tuple[World, World]]:
    """Both worlds, their staff's roles held at one level (two organizations, or two series of
    the laptop's organization), built once for the module per level in a transaction rolled
    back after its last test (each test's own is a savepoint inside it, as in
    tests/test_pseudo_locale.py)."""
    with django_db_blocker.unblock():
        block = transaction.atomic()
        block._from_testcase = True  # type: ignore[attr-defined]
        with block:
            yield build_world("Alpha", request.param), build_world("Bravo", request.param)
            transaction.set_rollback(True)


@pytest.fixture
def two_tenants(built: tuple[World, World], db: None) -> tuple[World, World]:
    """World A and world B: two organizers on one deployment, with nothing in common."""
    return built


def ids_for(route: str, world: World, phase: str, kind: Kind) -> dict[str, Any]:
    """The world's ids (and token) a route takes: a series' invitations and display links under
    series/, an event's elsewhere."""
    ids = dict(world.ids[phase])
    if "series/" in route:
        ids["invitation_id"], ids["link_id"] = ids["series_invitation_id"], ids["series_link_id"]
    if "organizations/" in route:
        ids["invitation_id"] = ids["organization_invitation_id"]
    if kind.token:
        ids["token"] = world.tokens[kind.token]
    return ids


def send(client: Client, method: str, path: str, name: str, ids: dict[str, Any]) -> HttpResponse:
    """One request as a browser or an API client sends it, with a plausible body."""
    key = uuid.uuid4().hex
    if path.startswith("/api/"):
        content = json.dumps(body(name, ids)) if method != "GET" else ""
        return client.generic(  # type: ignore[return-value]
            method,
            path,
            content,
            content_type="application/json",
            headers={"Idempotency-Key": key},
        )
    if method == "GET":
        return client.get(path)  # type: ignore[return-value]
    form = {"idempotency_key": key, **body(name, ids, form=True)}
    return client.generic(  # type: ignore[return-value]
        method, path, _encoded(form), content_type="application/x-www-form-urlencoded"
    )


def _encoded(form: dict[str, Any]) -> str:
    from urllib.parse import urlencode

    return urlencode(form)


def error_code(response: HttpResponse) -> str | None:
    try:
        return str(json.loads(response.content)["error"]["code"])
    except (ValueError, KeyError, TypeError):
        return None


def shown(response: HttpResponse) -> str:
    """Everything the answer carries: its body, its redirect and the messages it leaves."""
    text = b"".join(response) if response.streaming else response.content
    messages = [str(m) for m in get_messages(response.wsgi_request)]  # type: ignore[attr-defined]
    return " ".join([text.decode(errors="replace"), response.get("Location", ""), *messages])


def refused_as(kind: Kind, method: str, response: HttpResponse, event_page: str) -> bool:
    """Whether the answer is the route's refusal of a non-member (a method the route does not
    take is refused before any object is read: 405)."""
    status, code = response.status_code, error_code(response)
    if status == 405:
        return True
    if kind is HOUSE_PAGE:
        return status == 404
    if kind is PLAYER_PAGE:
        return status == 404 or (status == 302 and response["Location"] == event_page)
    if kind is INVITATION_API:
        return status in (403, 404, 409) and code is not None
    if kind is PLAYER_API:
        return (status, code) == (404, "not_found")
    # House's API, and the writes of a public read: not found or not yours
    return (status, code) == (404, "not_found")


def leaked(text: str, private: set[str], sent: str = "") -> list[str]:
    """The private values an answer shows, but those the request sent itself."""
    return sorted(secret for secret in private if secret in text and secret not in sent)


def test_every_route_that_takes_a_value_is_classified() -> None:
    names = {name for _route, name, _entry in routes_taking_a_value()}
    unclassified = sorted(name for name in names if kind_of(name) is None)
    assert not unclassified, f"classify these routes in ROUTES: {unclassified}"
    stale = sorted(set(ROUTES) - names - {n.split(":")[0] for n in names})
    assert not stale, f"ROUTES names routes that no longer exist: {stale}"


def test_another_tenants_staff_reach_nothing_by_id(
    two_tenants: tuple[World, World], capsys: pytest.CaptureFixture[str]
) -> None:
    a, b = two_tenants
    clients = []
    for user in a.staff:
        client = Client()
        client.force_login(user)
        clients.append(client)
    callers = tuple(user.pk for user in a.staff)
    # What public reads make on first need (a player's public id, a signed head) is made by
    # anyone's first visit: made here, before the fingerprint.
    visitor = Client()
    for phase in PHASES:
        for route, name, _entry in routes_taking_a_value():
            kind = kind_of(name)
            if kind in (PUBLIC, PUBLIC_AND_HOUSE_API):
                visitor.get(fill(route, ids_for(route, b, phase, kind)))
    before = fingerprint(callers)
    requests: Counter[str] = Counter()
    routes: Counter[str] = Counter()
    failures: list[str] = []
    refusing: set[str] = set()  # routes that must refuse
    reached: set[str] = set()  # those that did, past the method
    for route, name, entry in routes_taking_a_value():
        kind = kind_of(name)
        assert kind is not None
        if not kind.swept:
            continue
        routes[kind.name] += 1
        if kind not in (PUBLIC, SELF_SERVICE, INVITATION, SERIES_INVITATION):
            refusing.add(route)
        asked: set[tuple[str, str]] = set()
        for phase in PHASES:
            ids = ids_for(route, b, phase, kind)
            path = fill(route, ids)
            event_page = f"/events/{ids['event_id']}/"
            for method in methods(entry):
                if (path, method) in asked or (kind is SELF_SERVICE and method != "GET"):
                    continue
                asked.add((path, method))
                for user, client in zip(a.staff, clients, strict=True):
                    with rolled_back():
                        written = writes()
                        response = send(client, method, path, entry.name or "", ids)
                        changed = changed_since(before, written, callers)
                    requests[kind.name] += 1
                    said = f"{user.display_name}: {method} {path} ({name})"
                    if changed:
                        failures.append(f"{said} changed {changed} ({response.status_code})")
                    sent = path + json.dumps(body(entry.name or "", ids))
                    if secrets := leaked(shown(response), b.private, sent):
                        failures.append(f"{said} showed {secrets}")
                    if kind in (PUBLIC, SELF_SERVICE) or (
                        kind is PUBLIC_AND_HOUSE_API and method == "GET"
                    ):
                        if response.status_code >= 500 or (
                            method == "GET" and response.status_code not in (200, 405)
                        ):
                            failures.append(f"{said} answered {response.status_code}")
                    elif kind is INVITATION or kind is SERIES_INVITATION:
                        if response.status_code not in (200, 301, 302):
                            failures.append(f"{said} answered {response.status_code}")
                    elif not refused_as(kind, method, response, event_page):
                        failures.append(
                            f"{said} answered {response.status_code} {error_code(response)}"
                        )
                    elif response.status_code != 405:
                        reached.add(route)
    assert not failures, "\n".join(failures)
    assert refusing == reached, f"never asked past the method: {sorted(refusing - reached)}"
    with capsys.disabled():
        print(
            f"\ntenant isolation: {sum(routes.values())} routes, {sum(requests.values())} "
            f"requests; routes {dict(routes)}; requests {dict(requests)}"
        )
    assert requests[HOUSE_PAGE.name] and requests[HOUSE_API.name] and requests[PUBLIC.name]


def test_a_body_naming_another_tenants_object_is_refused(two_tenants: tuple[World, World]) -> None:
    """A's owner, on A's own event or series, names B's registration, series, link, event or
    invitation in the body: refused, and nothing changes."""
    a, b = two_tenants
    owner = a.house.owner
    client = Client()
    client.force_login(owner)
    callers = (owner.pk,)
    before = fingerprint(callers)
    asked = 0
    failures = []
    named = {**ID_BODIES, **ID_FORMS}
    for route, name, entry in routes_taking_a_value():
        bare = entry.name or ""
        carried = named.get(bare, {})
        if not carried or set(carried.values()) <= {"user_id"}:
            continue  # an account is nobody's object: any owner may appoint any account
        if (bare in ID_BODIES) != route.startswith("api/"):
            continue
        for phase in PHASES:
            ids = {**ids_for(route, b, phase, ROUTES[name])}
            own = ids_for(route, a, phase, ROUTES[name])
            path = fill(route, own)
            for method in methods(entry):
                if method == "GET":
                    continue
                with rolled_back():
                    written = writes()
                    response = send(client, method, path, bare, ids)
                    changed = changed_since(before, written, callers)
                asked += 1
                said = f"{method} {path} naming B's {sorted(carried)}"
                if changed:
                    failures.append(f"{said} changed {changed}")
                if response.status_code < 300 or response.status_code >= 500:
                    failures.append(f"{said} answered {response.status_code}")
                sent = path + json.dumps(body(bare, ids, form=bare in ID_FORMS))
                if secrets := leaked(shown(response), b.private, sent):
                    failures.append(f"{said} showed {secrets}")
    assert not failures, "\n".join(failures)
    assert asked >= 20


def test_house_lists_show_nothing_of_another_tenant(two_tenants: tuple[World, World]) -> None:
    """House's event list, Tonight and the public lists, as each of A's staff: no House address
    of B's events or series, nothing private of B."""
    a, b = two_tenants
    houses = [f"/house/events/{ids['event_id']}/" for ids in b.ids.values()]
    houses.append(f"/house/series/{b.house.series.pk}/")
    houses.append(f"/house/organizations/{b.house.organization_id}/")
    for user in a.staff:
        client = Client()
        client.force_login(user)
        for path in LISTS:
            response = client.get(path)
            assert response.status_code == 200, (path, response.status_code)
            text = response.content.decode()
            assert not [h for h in houses if h in text], (user.display_name, path)
            assert not leaked(text, b.private), (user.display_name, path)
        own = client.get("/house/").content.decode()
        assert f"/house/events/{a.ids['open']['event_id']}/" in own  # the list does list A's
