"""Schemathesis against /api/schema/ (docs/rules.md section 11.2): every answer is one the schema
documents.

The schema is loaded from the app in-process (WSGI, no network). Each operation runs against a
fresh scene: a started League event, an open Standard v1 event and a draft, the League House
signed in with a session (House and site staff, so every operation is reachable), the CSRF token
sent as SessionAuthentication expects, and a fresh `Idempotency-Key` on every write. Generated
path parameters are swapped, some of the time, for the ids of the scene, so the fuzzer reaches
real events, registrations, reviews and accounts instead of only 404s.

`test_api_answers_as_documented` is the contract and must pass: no 5xx; the status code, content
type, headers and body are ones documented for that operation; a required header left out
(`Idempotency-Key`) is refused; an operation that needs a session refuses the same request
without one or with a made-up one; a method the schema does not list gets 405.

`test_api_validates_as_the_schema_says` holds the request side to the schema (schema-valid input
accepted or refused only for state, rights or existence; schema-invalid input refused): the
request schemas state what the serializers enforce (`api.schema.strict_request_bodies`).

Both run in `make unit` at CI's budget (the same examples every run); `FUZZ_EXAMPLES` raises the
budget and draws new examples each time (`make fuzz`, `make slow`).
"""

from __future__ import annotations

import datetime
import os
import uuid
from collections.abc import Iterator
from typing import Any

import pytest
import schemathesis
from django.conf import settings as django_settings
from django.contrib.sessions.models import Session
from django.core.signals import request_finished, request_started
from django.db import close_old_connections
from django.test import Client
from django.utils.crypto import get_random_string
from hypothesis import HealthCheck, settings
from hypothesis import strategies as st
from pytest_django.fixtures import Settings
from schemathesis import Case, CheckFunction
from schemathesis.checks import not_a_server_error
from schemathesis.specs.openapi.checks import (
    content_type_conformance,
    ignored_auth,
    missing_required_header,
    negative_data_rejection,
    positive_data_acceptance,
    response_headers_conformance,
    response_schema_conformance,
    status_code_conformance,
    unsupported_method,
)

from events import services
from seasons import services as seasons
from seasons.models import Series
from seasons.reads import public_id
from staff.scopes import Scope
from syndicate.wsgi import application
from tests.factories import make_table, make_user

EXAMPLES = int(os.environ.get("FUZZ_EXAMPLES", "10"))

CONTRACT: list[CheckFunction] = [
    not_a_server_error,
    status_code_conformance,
    content_type_conformance,
    response_headers_conformance,
    response_schema_conformance,
    missing_required_header,
    ignored_auth,
    unsupported_method,
]
# Refusals that turn on who acts or on the event's format, which no request schema can state: House
# gives a reason where the player acting for themself gives none, and the format sets how many
# starting cards are kept. Every other 400 or 422 for schema-valid data is a gap in the schema.
ACTOR_OR_FORMAT = frozenset({"reason_required", "wrong_count"})


def positive_data_accepted(ctx: Any, response: Any, case: Case) -> bool | None:
    """`positive_data_acceptance`, but for the refusals of `ACTOR_OR_FORMAT`."""
    if response.status_code == 400:
        try:
            code = response.json()["error"]["code"]
        except (ValueError, KeyError, TypeError):
            code = None
        if code in ACTOR_OR_FORMAT:
            return None
    return positive_data_acceptance(ctx, response, case)


REQUEST_SCHEMA: list[CheckFunction] = [positive_data_accepted, negative_data_rejection]
schema = schemathesis.openapi.from_wsgi("/api/schema/?format=json", application)

# The ids of the current scene by path parameter name, filled by the `scene` fixture.
SCENE: dict[str, list[int | str]] = {}
# Schemathesis applies credentials while it generates cases, some of them before any fixture
# runs, so the scene's House session is stored under a key chosen up front.
SESSION_KEY = get_random_string(32)


@schema.hook
def flatmap_path_parameters(context: Any, path_parameters: dict[str, Any] | None) -> Any:
    """Each generated id, or one of the scene's ids of that kind."""
    if not path_parameters:
        return st.just(path_parameters)
    return st.fixed_dictionaries(
        {
            name: st.sampled_from([value, *SCENE.get(name, [])])
            for name, value in path_parameters.items()
        }
    )


@schema.auth(refresh_interval=None)
class HouseSession:
    """The schema's `cookieAuth`: the scene's House session (so `ignored_auth` can remove it)."""

    def get(self, case: Case, context: Any) -> str:
        return SESSION_KEY

    def set(self, case: Case, data: str, context: Any) -> None:
        case.cookies = {**(case.cookies or {}), django_settings.SESSION_COOKIE_NAME: data}


@pytest.fixture(autouse=True)
def _keep_test_connection() -> Iterator[None]:
    """The app runs in-process inside the test's transaction: keep Django from closing it."""
    request_started.disconnect(close_old_connections)
    request_finished.disconnect(close_old_connections)
    yield
    request_started.connect(close_old_connections)
    request_finished.connect(close_old_connections)


@pytest.fixture
def scene(db: None, settings: Settings) -> None:
    league = make_table("league", players=3, start=True)
    standard = make_table("standard-v1", players=1)
    draft = services.event_create(
        by=league.house, name="Draft night", date=datetime.date(2026, 12, 10), format="switch"
    ).event_id
    review = services.review_open(
        registration_id=league.rid(league.players[0]), by=league.house, reason="Score checked"
    )
    outsider = make_user("Outsider")
    SCENE.clear()
    SCENE["event_id"] = [league.event.pk, standard.event.pk, draft]
    SCENE["registration_id"] = [
        *(league.rid(p) for p in league.players),
        standard.rid(standard.players[0]),
    ]
    SCENE["review_id"] = [int(review.review_id)]
    SCENE["user_id"] = [league.house.pk, outsider.pk, league.players[1].pk]
    # A series with the open Standard v1 event and a season around the nights.
    series = seasons.series_create(by=league.house, name="Thursday League").series_id
    services.house_member_add(scope=Scope(Series, series), by=league.house, member=standard.house)
    seasons.event_series_set(event_id=standard.event.pk, series_id=series, by=standard.house)
    season = seasons.season_create(
        series_id=series,
        by=league.house,
        name="Winter",
        starts_on=league.event.date,
        ends_on=league.event.date + datetime.timedelta(days=60),
    ).season_id
    SCENE["series_id"] = [series]
    SCENE["season_id"] = [season]
    SCENE["player_id"] = [public_id(league.players[0])]
    client = Client()
    client.force_login(league.house)
    Session.objects.filter(session_key=client.session.session_key).update(session_key=SESSION_KEY)


def call_and_check(case: Case, checks: list[CheckFunction]) -> None:
    """Send the case with a CSRF token and, in place of the generated key, a fresh one (a key
    reused across examples would replay an earlier answer); a case that leaves the key out on
    purpose is sent without one."""
    csrf = get_random_string(32)
    headers = {"X-CSRFToken": csrf}
    if case.method.upper() != "GET" and "Idempotency-Key" in (case.headers or {}):
        headers["Idempotency-Key"] = uuid.uuid4().hex
    case.call_and_validate(headers=headers, cookies={"csrftoken": csrf}, checks=checks)


FUZZ_SETTINGS = settings(
    max_examples=EXAMPLES,
    deadline=None,
    # CI's budget explores the same examples every run, so a red run names a change, not a draw;
    # a larger budget (`make fuzz`, `make slow`) draws new examples each time.
    derandomize="FUZZ_EXAMPLES" not in os.environ,
    # One scene per operation, shared by its examples on purpose: what an earlier example changed
    # (a review resolved, a player withdrawn) is state for the later ones to meet.
    suppress_health_check=[
        HealthCheck.function_scoped_fixture,
        HealthCheck.too_slow,
        HealthCheck.filter_too_much,
    ],
)


@pytest.mark.django_db
@schema.parametrize()
@FUZZ_SETTINGS
def test_api_answers_as_documented(case: Case, scene: None) -> None:
    call_and_check(case, CONTRACT)


@pytest.mark.django_db
@schema.parametrize()
@FUZZ_SETTINGS
def test_api_validates_as_the_schema_says(case: Case, scene: None) -> None:
    call_and_check(case, REQUEST_SCHEMA)
