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
from typing import Any

import pytest
from django.contrib.messages import get_messages
from django.test import Client

from accounts.models import User
from events import services
from events.models import Event, Registration, Review
from seasons.services import series_create
from staff.models import DisplayLink, Invitation, scope_type
from tests.factories import make_table, make_user
from tests.refusals import unchanged
from tests.routes import BODIES, FORMS, every_route, fill, methods

ID_NAMES = ("event_id", "scope_id", "registration_id", "review_id", "user_id")
MISSING = 987_654_321


ROUTES = sorted(
    (
        (route, entry)
        for route, _name, entry in every_route()
        if any(f"<int:{n}>" in route for n in ID_NAMES)
    ),
    key=lambda item: item[0],
)


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
