"""The OpenAPI schema (/api/schema/), its validity, its accuracy, and the docs at /api/docs/."""

from __future__ import annotations

import copy
import dataclasses
import os
import re
import subprocess
import sys
from html.parser import HTMLParser
from pathlib import Path
from typing import Any
from urllib.parse import urlsplit

import jsonschema  # type: ignore[import-untyped]
import pytest
from django.urls import URLPattern, resolve

from accounts.models import User
from api import urls
from events.answers import ALL_ANSWERS
from events.models import Event, Registration
from events.reads.board import Board, BoardRow
from events.reads.common import PoolSummary
from events.reads.final import FinalWinners, Winner
from events.reads.player import PlayerState
from ledger.answers import LEDGER_ANSWERS
from organizations.answers import ORGANIZATION_ANSWERS
from payments.answers import PAYMENT_ANSWERS
from seasons.answers import ALL_SEASON_ANSWERS
from tests.api.support import Api
from tests.factories import make_table, make_user
from tests.payments.stripe_server import stripe_running

pytestmark = pytest.mark.django_db

ROOT = Path(__file__).resolve().parents[2]
METHODS = {"get", "post", "patch", "put", "delete"}


def _spec() -> dict[str, Any]:
    response = Api().get("/api/schema/", format="json")
    assert response.status_code == 200
    return response.json()


def test_it_serves_the_schema_as_yaml_and_json() -> None:
    yaml = Api().get("/api/schema/")
    assert yaml.status_code == 200
    assert yaml.content.startswith(b"openapi: 3.1.0")
    spec = _spec()
    assert spec["info"]["title"] == "Syndicate Seven-card Poker API"
    assert "/api/events/{event_id}/board/" in spec["paths"]


def test_it_passes_spectacular_validation_without_warnings(tmp_path: Path) -> None:
    out = tmp_path / "schema.yml"
    result = subprocess.run(
        [sys.executable, "manage.py", "spectacular", "--validate", "--fail-on-warn", "--file", out],
        cwd=ROOT,
        env=os.environ.copy(),
        capture_output=True,
        text=True,
        timeout=120,
    )
    assert result.returncode == 0, result.stdout + result.stderr
    assert "Warning" not in result.stderr
    assert out.read_text().startswith("openapi: 3.1.0")


def _operations(spec: dict[str, Any]) -> set[tuple[str, str]]:
    return {
        (path, method.upper())
        for path, item in spec["paths"].items()
        for method in item
        if method in METHODS
    }


def _route(path: str) -> str:
    """The schema's path template for a request path (`/api/events/{event_id}/`)."""
    route = resolve(urlsplit(path).path).route
    return "/" + re.sub(r"<(?:\w+:)?(\w+)>", r"{\1}", route)


def test_it_documents_every_operation_with_the_key_and_the_errors() -> None:
    spec = _spec()
    for path, method in _operations(spec):
        operation = spec["paths"][path][method.lower()]
        assert operation.get("summary"), (path, method)
        headers = [p["name"] for p in operation.get("parameters", []) if p["in"] == "header"]
        responses = set(operation["responses"])
        if method == "GET":
            assert "Idempotency-Key" not in headers and "404" in responses
        else:
            assert headers == ["Idempotency-Key"], (path, method)
            assert {"400", "403", "404", "409", "422"} <= responses, (path, method)


def test_it_documents_every_route() -> None:
    spec = _spec()
    documented = {path for path, _ in _operations(spec)}
    routes = {
        "/api/" + re.sub(r"<(?:\w+:)?(\w+)>", r"{\1}", str(p.pattern))
        for p in urls.urlpatterns
        if isinstance(p, URLPattern)
        and p.name not in {"schema", "docs", "swagger-asset", "not-found"}
    }
    assert documented == routes


class Recorder(Api):
    """Keeps every JSON answer, to check it against the schema afterwards."""

    def __init__(self, seen: list[tuple[str, str, int, Any]], user=None) -> None:
        super().__init__(user)
        self.seen = seen

    def get(self, path: str, **query: Any) -> Any:
        return self._keep("GET", path, super().get(path, **query))

    def post(self, path: str, body: Any = None, **kwargs: Any) -> Any:
        return self._keep("POST", path, super().post(path, body, **kwargs))

    def patch(self, path: str, body: Any = None, **kwargs: Any) -> Any:
        return self._keep("PATCH", path, super().patch(path, body, **kwargs))

    def delete(self, path: str, **kwargs: Any) -> Any:
        return self._keep("DELETE", path, super().delete(path, **kwargs))

    def _keep(self, method: str, path: str, response: Any) -> Any:
        if response["Content-Type"] == "application/json":
            self.seen.append((_route(path), method, response.status_code, response.json()))
        return response


def _strict(schema: Any) -> Any:
    """Refuse undocumented keys: every object with listed properties gets no others."""
    if isinstance(schema, dict):
        schema = {key: _strict(value) for key, value in schema.items()}
        if "properties" in schema and "additionalProperties" not in schema:
            schema["additionalProperties"] = False
    elif isinstance(schema, list):
        schema = [_strict(value) for value in schema]
    return schema


def _walk_every_endpoint() -> list[tuple[str, str, int, Any]]:
    seen: list[tuple[str, str, int, Any]] = []
    house_user = make_user("Staff", staff=True)
    house = Recorder(seen, house_user)
    a, b = Recorder(seen, make_user("Ann")), Recorder(seen, make_user("Ben"))
    visitor = Recorder(seen)
    helper = make_user("Helper")

    event = house.post(
        "/api/events/", {"name": "Schema", "date": "2026-12-04", "format": "league"}
    ).json()["event_id"]
    e = f"/api/events/{event}"
    house.patch(f"{e}/", {"contribution": 10, "remainder_policy": "Rolls over."})
    # An organizer's organization, its venue, and a night at it.
    made = a.post("/api/organizations/", {"name": "Harbour League"}).json()
    o = f"/api/organizations/{made['organization_id']}"
    venue = a.post(f"{o}/venues/", {"name": "The Dock", "time_zone_name": "UTC"}).json()
    b.post(f"{o}/venues/", {"name": "Not theirs"})  # another organizer: 403
    a.post(
        "/api/events/",
        {
            "name": "Harbour Night",
            "date": "2026-12-05",
            "format": "league",
            "organization_id": made["organization_id"],
            "venue_id": venue["venue_id"],
        },
    )
    # A night of a series' season.
    series = house.post("/api/series/", {"name": "Thursday League", "time_zone": "UTC"}).json()
    s = f"/api/series/{series['series_id']}"
    house.post(f"{s}/house-members/", {"user_id": helper.pk})
    house.post(f"{s}/house-members/", {"user_id": helper.pk, "role": "cashier"})
    house.delete(f"{s}/house-members/{helper.pk}/")
    house.patch(f"{s}/", {"entry_mode": "paid", "minimum_age": 0})
    invited = house.post(
        f"{s}/staff-invitations/", {"email": "deputy@example.com", "role": "scorer"}
    ).json()["token"]
    deputy = make_user("Deputy")
    User.objects.filter(pk=deputy.pk).update(email="deputy@example.com")
    deputy.refresh_from_db()
    Recorder(seen, deputy).post(f"{s}/staff-invitations/accept/", {"token": invited})
    late = house.post(f"{s}/staff-invitations/", {"email": "late@example.com"}).json()
    house.delete(f"{s}/staff-invitations/{late['invitation_id']}/")
    house.post(f"{s}/owner/", {"user_id": deputy.pk})
    Recorder(seen, deputy).post(f"{s}/owner/", {"user_id": house_user.pk})
    season = house.post(
        f"{s}/seasons/",
        {"name": "Autumn", "starts_on": "2026-12-01", "ends_on": "2026-12-04", "rules": {}},
    ).json()["season_id"]
    house.post(f"{e}/series/", {"series_id": series["series_id"]})
    house.get(f"{s}/display-links/")
    screen = house.post(f"{s}/display-links/", {"label": "Bar screen"}).json()["link_id"]
    house.post(f"{s}/display-links/{screen}/revoke/")
    house.post(f"{s}/next-event/", {})
    house.patch(f"/api/seasons/{season}/", {"name": "Autumn 2026"})
    house.post(f"{e}/house-members/", {"user_id": helper.pk, "role": "cashier"})
    # Ownership is handed over in an event of no series (a series' event is its owner's).
    lone = house.post(
        "/api/events/", {"name": "Lone", "date": "2026-12-05", "format": "league"}
    ).json()["event_id"]
    house.post(f"/api/events/{lone}/house-members/", {"user_id": helper.pk})
    house.post(f"/api/events/{lone}/owner/", {"user_id": helper.pk})
    token = house.post(f"{e}/staff-invitations/", {"email": "guest@example.com"}).json()["token"]
    guest = make_user("Guest")
    User.objects.filter(pk=guest.pk).update(email="guest@example.com")
    guest.refresh_from_db()
    Recorder(seen, guest).post(f"{e}/staff-invitations/accept/", {"token": token})
    withdrawn = house.post(f"{e}/staff-invitations/", {"email": "late@example.com"}).json()
    house.delete(f"{e}/staff-invitations/{withdrawn['invitation_id']}/")
    Recorder(seen, helper).post(f"/api/events/{lone}/owner/", {"user_id": house_user.pk})
    house.delete(f"{e}/house-members/{helper.pk}/")
    house.post(f"{e}/registration/open/")
    ra = a.post(f"{e}/register/").json()["registration_id"]
    rb = b.post(f"{e}/register/").json()["registration_id"]
    rc = Recorder(seen, make_user("Cal")).post(f"{e}/register/").json()["registration_id"]
    house.post(
        f"{e}/ledger/entries/", {"registration_id": rc, "method": "online", "reference": "r1"}
    )
    house.post(f"/api/registrations/{rc}/cancel/")
    house.post(
        f"{e}/ledger/refunds/",
        {"registration_id": rc, "amount": 10, "method": "online", "reason": "Cannot come"},
    )
    for rid in (ra, rb):
        house.post(f"/api/registrations/{rid}/check-in/")
    house.post(f"/api/registrations/{rb}/check-in/undo/")
    house.post(f"/api/registrations/{rb}/check-in/")
    for client in (visitor, a):
        client.get("/api/events/")
        client.get(f"{e}/")
        client.get(f"{e}/board/")
        client.get("/api/formats/")
    house.post(f"{e}/start/")
    late = house.post(f"{e}/participants/", {"user_id": make_user("Late").pk}).json()
    a.get(f"{e}/me/")
    house.get(f"{e}/house/")
    a.post(f"/api/registrations/{ra}/starting-selection/", {"slots": [0]})
    b.post(f"/api/registrations/{rb}/starting-selection/", {"slots": [2]})
    a.post(f"/api/registrations/{ra}/results/", {"game": 1, "outcome": "win"})
    a.get(f"/api/registrations/{ra}/")  # a pending face-up choice
    a.post(f"/api/registrations/{ra}/win-choice/", {"slot": 0})
    b.post(f"/api/registrations/{rb}/results/", {"game": 1, "outcome": "loss"})
    review = house.post(
        f"/api/registrations/{rb}/corrections/", {"game": 1, "outcome": "win", "reason": "Check"}
    ).json()["review_id"]
    house.post(f"/api/reviews/{review}/resolve/", {"reason": "Confirmed"})
    review = house.post(f"/api/registrations/{ra}/reviews/", {"reason": "Look"}).json()
    house.post(f"/api/reviews/{review['review_id']}/resolve/", {"reason": "Fine"})
    # Closed by House while the late participant still waits for a first result (their
    # withdrawal would close it by itself).
    house.post(f"{e}/registration/close/")
    house.post(f"/api/registrations/{late['registration_id']}/withdraw/", {"reason": "Left"})
    house.post(f"/api/registrations/{rb}/access-reset/", {"reason": "Lost phone"})
    for game in range(2, 7):
        a.post(f"/api/registrations/{ra}/results/", {"game": game, "outcome": "loss"})
        house.post(
            f"/api/registrations/{rb}/results/",
            {"game": game, "outcome": "loss", "reason": "Assist"},
        )
    house.get(f"{e}/checklist/")
    house.get(f"{e}/audit/")
    house.post(f"{e}/pool/confirm/", {"adjustments": [{"amount": -5, "explanation": "Refund"}]})
    house.post(f"{e}/finalize/")
    winner = Registration.objects.filter(event_id=event, award__gt=0).order_by("pk").first()
    assert winner is not None and winner.award
    house.post(
        f"{e}/ledger/payouts/",
        {
            "registration_id": winner.pk,
            "amount": winner.award,
            "method": "cash",
            "handed_by": "Dana",
            "acknowledged": True,
        },
    )
    house.get(f"{e}/cash-box/")
    for client in (house, a):
        client.get(f"{e}/board/")
        client.get(f"/api/registrations/{ra}/")
    a.get(f"{e}/me/")
    house.get(f"{e}/audit/")

    # Standard v1: House reveals each wild.
    table = make_table("standard-v1", players=2, start=True)
    table.play_out(table.players[0])
    Recorder(seen, table.house).post(
        f"/api/registrations/{table.rid(table.players[0])}/wild-reveal/"
    )

    # House's tools: self check-in, everyone at once, paid flags, announcements.
    tools = make_table("league", players=1)
    staff = Recorder(seen, tools.house)
    t = f"/api/events/{tools.event.pk}"
    code = staff.post(f"{t}/self-check-in/", {"enabled": True}).json()["code"]
    dee, eve = Recorder(seen, make_user("Dee")), Recorder(seen, make_user("Eve"))
    dee.post(f"{t}/register/")
    eve.post(f"{t}/register/")
    dee.post(f"{t}/check-in/", {"code": code})
    staff.post(f"{t}/check-in-all/")
    staff.post(f"/api/registrations/{tools.rid(tools.players[0])}/payment/", {"paid": True})
    staff.post(f"{t}/announcements/", {"text": "Round 2 at 8:30"})
    link = staff.post(f"{t}/display-links/", {"label": "Projector by the bar"}).json()
    staff.get(f"{t}/display-links/")
    staff.post(f"{t}/display-links/{link['link_id']}/revoke/")
    staff.get(f"{t}/display-links/")

    # A capped event: the waitlist, an offer claimed, House's promotion and removal.
    capped = make_table("league")
    desk = Recorder(seen, capped.house)
    c = f"/api/events/{capped.event.pk}"
    desk.patch(
        f"{c}/",
        {"capacity": 1, "hold_minutes": 20, "registration_closes_at": "2030-01-01T18:00:00Z"},
    )
    fay, gus = Recorder(seen, make_user("Fay")), Recorder(seen, make_user("Gus"))
    first = fay.post(f"{c}/register/").json()["registration_id"]
    second = gus.post(f"{c}/register/").json()["registration_id"]  # waitlisted, position 1
    third = Recorder(seen, make_user("Hal")).post(f"{c}/register/").json()["registration_id"]
    fourth = Recorder(seen, make_user("Ivy")).post(f"{c}/register/").json()["registration_id"]
    gus.get(f"/api/registrations/{second}/")
    fay.post(f"/api/registrations/{first}/cancel/")  # Gus is offered the place
    desk.get(f"{c}/waitlist/")
    gus.get(f"/api/registrations/{second}/")
    gus.post(f"/api/registrations/{second}/claim/")
    desk.post(f"/api/registrations/{third}/promote/", {"reason": "Regular"})
    desk.post(f"/api/registrations/{fourth}/remove/", {"reason": "Asked to"})
    desk.get(f"{c}/")

    # A free-entry event's sponsor money, a line of its cash box.
    free = make_table("league", players=1, contribution=0)
    Event.objects.filter(pk=free.event.pk).update(entry_mode="sponsored", sponsored_pool=200)
    Recorder(seen, free.house).post(
        f"/api/events/{free.event.pk}/ledger/sponsor/", {"amount": 200, "method": "cash"}
    )

    # The first event's season, past by now: its table, download, histories and championship.
    for client in (visitor, a):
        client.get("/api/series/")
        client.get(f"{s}/")
        client.get(f"/api/seasons/{season}/download/")  # records the finalized night
        client.get(f"/api/seasons/{season}/")
    a.get("/api/me/history/")
    player_id = a.get(f"/api/seasons/{season}/").json()["rows"][0]["player_id"]
    visitor.get(f"/api/players/{player_id}/history/")
    house.post(f"/api/seasons/{season}/championship/", {"date": "2026-12-11"})

    # And one refusal of each status.
    a.post(f"/api/registrations/{ra}/results/", {"game": "x", "outcome": "loss"})  # 400
    a.post(f"{e}/finalize/")  # 403
    a.get(f"/api/registrations/{rb}/")  # 404
    a.post(f"{e}/register/")  # 409
    a.post(f"{e}/register/", key="same")
    a.post(f"/api/registrations/{ra}/withdraw/", key="same")  # 422
    return seen


def _walk_paying_ahead(seen: list[tuple[str, str, int, Any]]) -> None:
    """An event that asks for the entry ahead, with Stripe configured (the local Stripe server):
    a player registers and starts paying through Stripe Checkout."""
    table = make_table("league", contribution=10)
    e = f"/api/events/{table.event.pk}"
    Recorder(seen, table.house).patch(f"{e}/", {"pay_ahead": True})
    player = Recorder(seen, make_user("Jo"))
    rid = player.post(f"{e}/register/").json()["registration_id"]
    player.get(f"/api/registrations/{rid}/")
    started = player.post(f"/api/registrations/{rid}/checkout/")
    assert started.status_code == 200, started.content


def test_it_answers_exactly_as_the_schema_documents(settings: Any) -> None:
    spec = _spec()
    components = _strict(copy.deepcopy(spec["components"]))
    seen = _walk_every_endpoint()
    # Stripe's webhook is not the API's: no delivery is needed, so no live server either.
    with stripe_running(settings) as stripe:
        _walk_paying_ahead(seen)
    assert len(stripe.sessions) == 1
    answered = set()
    for path, method, status, body in seen:
        operation = spec["paths"][path][method.lower()]
        documented = operation["responses"].get(str(status))
        assert documented is not None, (path, method, status, body)
        schema = _strict(documented["content"]["application/json"]["schema"])
        jsonschema.Draft202012Validator({**schema, "components": components}).validate(body)
        if status < 300:
            answered.add((path, method))
    assert answered == _operations(spec)  # every operation's answer was checked
    assert {status for _, _, status, _ in seen} >= {200, 201, 400, 403, 404, 409, 422}


class Tags(HTMLParser):
    def __init__(self) -> None:
        super().__init__()
        self.tags: list[tuple[str, dict[str, str | None]]] = []

    def handle_starttag(self, tag: str, attrs: list[tuple[str, str | None]]) -> None:
        self.tags.append((tag, dict(attrs)))


def test_it_serves_swagger_ui_under_the_content_security_policy() -> None:
    client = Api()
    page = client.get("/api/docs/")
    assert page.status_code == 200 and page["Content-Type"].startswith("text/html")
    policy = page["Content-Security-Policy"]
    nonce = re.search(r"'nonce-([^']+)'", policy)
    assert nonce and "unsafe-inline" not in policy and "unsafe-eval" not in policy
    parser = Tags()
    parser.feed(page.content.decode())
    scripts = [attrs for tag, attrs in parser.tags if tag == "script"]
    styles = [attrs for tag, attrs in parser.tags if tag == "style"]
    links = [attrs for tag, attrs in parser.tags if tag == "link"]
    assert len(scripts) == 3
    for attrs in scripts + styles:
        assert attrs.get("nonce") == nonce.group(1)
    assets = [str(attrs["src"]) for attrs in scripts] + [str(attrs["href"]) for attrs in links]
    for url in assets:
        assert url.startswith("/api/"), url  # same origin: no CDN, works offline
        response = client.get(url)
        assert response.status_code == 200, url
        body = b"".join(response.streaming_content) if response.streaming else response.content
        assert body, url
    init = client.get(assets[2])
    assert init["Content-Type"].startswith("application/javascript")
    assert b"SwaggerUIBundle" in init.content and b"/api/schema/" in init.content


def test_it_serves_only_the_listed_swagger_files() -> None:
    response = Api().get("/api/docs/assets/swagger-ui-bundle.js.map")
    assert response.status_code == 404
    assert response.json()["error"]["code"] == "not_found"
    assert Api().get("/api/docs/assets/..%2F..%2Fsettings.py").status_code == 404


def test_it_documents_each_service_answer_from_its_dataclass() -> None:
    spec = _spec()
    components = spec["components"]["schemas"]
    for kind in (
        *ALL_ANSWERS,
        *ALL_SEASON_ANSWERS,
        *ORGANIZATION_ANSWERS,
        *LEDGER_ANSWERS,
        *PAYMENT_ANSWERS,
    ):
        component = components.get(kind.__name__)
        assert component is not None, kind
        fields = dataclasses.fields(kind)  # type: ignore[arg-type]
        assert list(component["properties"]) == [f.name for f in fields]
        assert sorted(component["required"]) == sorted(
            f.name for f in fields if f.default is dataclasses.MISSING
        )
        assert component["description"] == kind.__doc__
    # The result of a loss has no `offered`, of a win no `card`: optional, never null.
    result = components["ResultSubmitted"]["properties"]
    assert result["card"] == {"type": "string", "description": "A loss: the card kept."}
    assert result["offered"]["type"] == "array"
    # Every write answers with one of them, and each of them answers a write.
    answered = {
        response["content"]["application/json"]["schema"]["$ref"].rsplit("/", 1)[-1]
        for path, method in _operations(spec)
        if method != "GET"
        for status, response in spec["paths"][path][method.lower()]["responses"].items()
        if int(status) < 300
    }
    assert answered == {
        kind.__name__
        for kind in (
            *ALL_ANSWERS,
            *ALL_SEASON_ANSWERS,
            *ORGANIZATION_ANSWERS,
            *LEDGER_ANSWERS,
            *PAYMENT_ANSWERS,
        )
    }


def test_it_documents_each_read_model_from_its_dataclass() -> None:
    components = _spec()["components"]["schemas"]
    for kind, name in (
        (Board, "Board"),
        (BoardRow, "StandingRow"),
        (PlayerState, "PlayerSnapshot"),
        (PoolSummary, "Pool"),
        (FinalWinners, "FinalWinners"),
        (Winner, "Winner"),
    ):
        component = components[name]
        shown = [f.name for f in dataclasses.fields(kind) if not f.metadata.get("page_only")]
        assert list(component["properties"]) == shown, name
        assert component["description"] == kind.__doc__
    # The page's own fields are not in the JSON, so not in the schema either.
    assert "stands_for" not in components["Winner"]["properties"]
    # A live board row has no award: optional, and never null.
    assert "award" not in components["StandingRow"]["required"]
    assert components["StandingRow"]["properties"]["award"]["type"] == "integer"
