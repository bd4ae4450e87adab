"""A draft, or another House's draft, answers exactly as a missing event does to anyone who is not
its House: every URL that takes an event, registration or review id, read or write, API or page.

The URL patterns are read from the resolver, so a new route is swept without anyone listing it.
Each is called by a plain player and by the House of another event, with the ids of a draft (its
registration and review made directly: nothing public can name them) and with ids that name
nothing; status, error code and message must match, and nothing changes.
"""

from __future__ import annotations

import datetime
import json
import re
import uuid
from collections.abc import Iterator
from typing import Any

import pytest
from django.contrib.messages import get_messages
from django.test import Client
from django.urls import URLPattern, URLResolver, get_resolver

from accounts.models import User
from events import services
from events.models import Event, Registration, Review
from seasons.services import series_create
from staff.models import DisplayLink, Invitation, scope_type
from tests.factories import make_table, make_user
from tests.refusals import unchanged

ID_NAMES = ("event_id", "scope_id", "registration_id", "review_id", "user_id")
MISSING = 987_654_321
# A plausible body for each API write, so the request reaches the event rather than stopping at
# the body's checks (which answer alike for every id anyway).
BODIES: dict[str, dict[str, Any]] = {
    "event": {"name": "Renamed"},
    "starting-selection": {"slots": [0]},
    "results": {"game": 1, "outcome": "loss"},
    "win-choice": {"slot": 0},
    "withdraw": {"reason": "Left"},
    "house-members": {"user_id": 1},
    "participants": {"email": "someone@example.com"},
    "pool-confirm": {"adjustments": []},
    "corrections": {"game": 1, "outcome": "win", "reason": "Checked"},
    "reviews": {"reason": "Checked"},
    "review-resolve": {"reason": "Checked"},
    "access-reset": {"reason": "Lost phone"},
    "event-series": {"series_id": None},
    "display-links": {"label": "Projector"},
}
FORMS: dict[str, dict[str, str]] = {
    "report": {"game": "1", "outcome": "loss"},
    "keep": {"slot": "0"},
    "start_confirm": {"slot": "0"},
    "result_submit": {"game": "1", "outcome": "loss", "reason": "Hand"},
    "result_correct": {"game": "1", "outcome": "win", "reason": "Checked"},
    "win_choice": {"slot": "0", "reason": "Asked"},
    "starting_selection": {"slot": "0", "reason": "Asked"},
    "review_open": {"reason": "Checked"},
    "review_resolve": {"reason": "Checked"},
    "withdraw": {"reason": "Left"},
    "access_reset": {"reason": "Lost phone"},
    "participant_add": {"email": "someone@example.com"},
    "pool_confirm": {"amount": "5", "explanation": "Tip"},
    "house_member_add": {"email": "someone@example.com"},
    "display_link_create": {"label": "Projector"},
}


def patterns(resolver: URLResolver | None = None, prefix: str = "") -> Iterator[tuple[str, Any]]:
    """(route, pattern) for every URL pattern that takes an id."""
    resolver = resolver or get_resolver()
    for entry in resolver.url_patterns:
        route = prefix + str(entry.pattern)
        if isinstance(entry, URLResolver):
            yield from patterns(entry, route)
        elif isinstance(entry, URLPattern) and any(f"<int:{n}>" in route for n in ID_NAMES):
            yield route, entry


ROUTES = sorted(patterns(), key=lambda item: item[0])


def fill(route: str, ids: dict[str, int]) -> str:
    # The staff pages name their scope's id `scope_id`: an event's under events/, a series' under
    # series/.
    scope = "series_id" if "series/<int:scope_id>" in route else "event_id"
    ids = {**ids, "scope_id": ids[scope]}
    path = re.sub(r"<int:(\w+)>", lambda m: str(ids[m.group(1)]), route)
    return "/" + path.lstrip("^").rstrip("$")


def methods(entry: URLPattern) -> list[str]:
    view = entry.callback
    cls = getattr(view, "view_class", None) or getattr(view, "cls", None)
    if cls is not None:
        return [m.upper() for m in ("get", "post", "patch", "delete") if hasattr(cls, m)]
    return ["GET", "POST"]


def answer(client: Client, method: str, path: str, name: str) -> tuple[Any, ...]:
    """What the caller learns: status, and the error or the messages shown."""
    key = uuid.uuid4().hex
    if path.startswith("/api/"):
        body = json.dumps(BODIES.get(name, {}))
        response = client.generic(
            method,
            path,
            body if method != "GET" else "",
            content_type="application/json",
            headers={"Idempotency-Key": key},
        )
        try:
            shown: Any = response.json()
        except ValueError:
            shown = response.content
        return response.status_code, shown
    if method == "GET":
        response = client.get(path)
    else:
        response = client.post(path, {"idempotency_key": key, **FORMS.get(name, {})})
    messages = [str(m) for m in get_messages(response.wsgi_request)]
    return response.status_code, response.get("Location", ""), messages


@pytest.fixture
def scene(db: None, settings: Any) -> dict[str, Any]:
    house = make_user("Other House")
    draft = services.event_create(
        by=make_user("Staff", staff=True),
        name="Secret draft",
        date=datetime.date(2026, 12, 10),
        format="league",
    ).event_id
    public = make_table("league", players=2)
    public.event.staff.create(user=house)  # House of another event (not site staff, who see drafts)
    someone = make_user("Someone")
    registration = Registration.objects.create(event_id=draft, player=someone, label="Someone")
    review = Review.objects.create(registration=registration, reason="Why", opened_by="House")
    series = series_create(by=make_user("Series staff", staff=True), name="League").series_id
    link = DisplayLink.objects.create(
        scope_type=scope_type(Event), scope_id=draft, label="Projector", token_hash="draft"
    )
    invitation = Invitation.objects.create(
        scope_type=scope_type(Event),
        scope_id=draft,
        email="invited@example.com",
        role="scorer",
        token="draft",
    )
    return {
        "draft": {
            "event_id": draft,
            "registration_id": registration.pk,
            "review_id": review.pk,
            "user_id": someone.pk,
            "series_id": series,
            "link_id": link.pk,
            "invitation_id": invitation.pk,
        },
        "missing": {
            "event_id": MISSING,
            "registration_id": MISSING,
            "review_id": MISSING,
            "user_id": someone.pk,
            "series_id": series,
            "link_id": MISSING,
            "invitation_id": MISSING,
        },
        "users": [make_user("Plain player"), house],
        "draft_id": draft,
    }


@pytest.mark.parametrize(("route", "entry"), ROUTES, ids=[route for route, _ in ROUTES])
def test_a_draft_answers_as_a_missing_event(scene: dict[str, Any], route: str, entry: Any) -> None:
    name = entry.name or ""
    for user in scene["users"]:
        assert isinstance(user, User)
        client = Client()
        client.force_login(user)
        for method in methods(entry):
            with unchanged(scene["draft_id"], f"{method} {route}"):
                draft = answer(client, method, fill(route, scene["draft"]), name)
                missing = answer(client, method, fill(route, scene["missing"]), name)
                assert draft[0] < 500, (route, method, draft)
                assert _same(draft, missing), (route, method, user.display_name, draft, missing)


def _same(one: tuple[Any, ...], other: tuple[Any, ...]) -> bool:
    """Equal, once the ids themselves (which the caller sent) are taken out of the answers."""
    return _strip(one) == _strip(other)


def _strip(value: Any) -> Any:
    text = value.decode(errors="replace") if isinstance(value, bytes) else json.dumps(value)
    return re.sub(r"\d+", "N", text)
