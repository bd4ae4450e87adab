"""The staff routes answer alike under /api/events/<id>/ and /api/series/<id>/ (api/staff.py):
for each route, the event's form and the series' form give the owner, a director, a cashier, a
scorer, someone of no staff and a visitor the same status, the same error code and the same keys
(the scope named by its kind and id); a scope that does not exist is not found on either."""

from __future__ import annotations

import datetime
import json
import uuid
from dataclasses import dataclass
from typing import Any

import pytest
from django.urls import reverse
from rest_framework.test import APIClient

from accounts.models import User
from api import staff
from events import services as events
from seasons.services import series_create
from tests.factories import make_user, rolled_back

pytestmark = pytest.mark.django_db

ROLES = ("owner", "director", "cashier", "scorer", "outsider", "visitor")
MISSING = 987_654


@dataclass
class Scene:
    """An event or a series with one account a role, a spare member, a newcomer invited by email
    and not yet accepted, and a display link."""

    kind: str
    scope_id: int
    people: dict[str, User]
    spare: User
    newcomer: User
    invitation_id: int
    token: str
    link_id: int

    def path(self, route: str, *, missing: bool = False) -> str:
        prefix = "events" if self.kind == "event" else "series"
        return f"/api/{prefix}/{MISSING if missing else self.scope_id}/{route}"


def _scene(kind: str) -> Scene:
    founder = make_user("Founder", staff=True)
    people = {role: make_user(role.capitalize()) for role in ROLES if role != "visitor"}
    spare, newcomer = make_user("Spare"), make_user("Newcomer")
    if kind == "event":
        scope, scope_id = (
            staff.EVENT,
            events.event_create(
                by=founder,
                name="Friday",
                date=datetime.date(2026, 12, 4),
                format="league",
                contribution=10,
                remainder_policy="Unallocated dollars roll into the next event.",
            ).event_id,
        )
        events.registration_open(event_id=scope_id, by=founder)
    else:
        scope, scope_id = staff.SERIES, series_create(by=founder, name="Thursday League").series_id
    for role in ("director", "cashier", "scorer"):
        staff.perform(scope, "member_add", scope_id, by=founder, member=people[role], role=role)
    staff.perform(scope, "member_add", scope_id, by=founder, member=spare)
    staff.perform(scope, "member_add", scope_id, by=founder, member=people["owner"])
    staff.perform(scope, "ownership_transfer", scope_id, by=founder, member=people["owner"])
    staff.perform(scope, "member_remove", scope_id, by=founder, member=founder)
    owner = people["owner"]
    invited: Any = staff.perform(
        scope, "invite", scope_id, by=owner, email=newcomer.email, role="scorer"
    )
    made: Any = staff.perform(scope, "link_create", scope_id, by=owner, label="Bar screen")
    return Scene(
        kind, scope_id, people, spare, newcomer, invited.invitation_id, invited.token, made.link_id
    )


# Each route with a body that reaches its service, and the calls its refusals come from.
CALLS: dict[str, tuple[str, str, Any]] = {
    "appoint": ("POST", "house-members/", {"user_id": "newcomer", "role": "cashier"}),
    "appoint the owner's role": (
        "POST",
        "house-members/",
        {"user_id": "newcomer", "role": "owner"},
    ),
    "appoint nobody": ("POST", "house-members/", {"user_id": MISSING}),
    "remove": ("DELETE", "house-members/{spare}/", None),
    "leave": ("DELETE", "house-members/{self}/", None),
    "remove nobody": ("DELETE", f"house-members/{MISSING}/", None),
    "hand over": ("POST", "owner/", {"user_id": "spare"}),
    "hand over to a newcomer": ("POST", "owner/", {"user_id": "newcomer"}),
    "invite": ("POST", "staff-invitations/", {"email": "deputy@example.com", "role": "scorer"}),
    "invite no address": ("POST", "staff-invitations/", {"email": "deputy"}),
    "withdraw": ("DELETE", "staff-invitations/{invitation}/", None),
    "withdraw nothing": ("DELETE", f"staff-invitations/{MISSING}/", None),
    "accept someone else's": ("POST", "staff-invitations/accept/", {"token": "token"}),
    "accept nothing": ("POST", "staff-invitations/accept/", {"token": "no-such-token"}),
    "read the links": ("GET", "display-links/", None),
    "make a link": ("POST", "display-links/", {"label": "Door screen"}),
    "revoke a link": ("POST", "display-links/{link}/revoke/", None),
    "revoke nothing": ("POST", f"display-links/{MISSING}/revoke/", None),
}

# The calls whose body is refused, whatever the scope.
REFUSED_BODIES = {"appoint the owner's role", "invite no address"}

# The display links a read lists name their scope's id by its kind.
SCOPE_KEYS = {"event_id": "scope_id", "series_id": "scope_id"}


def _send(scene: Scene, role: str, call: str, *, missing: bool = False) -> tuple[int, Any]:
    method, route, body = CALLS[call]
    user = scene.people.get(role)
    me = user or scene.people["outsider"]
    ids = {
        "spare": scene.spare.pk,
        "self": me.pk,
        "invitation": scene.invitation_id,
        "link": scene.link_id,
    }
    names = {"newcomer": scene.newcomer.pk, "spare": scene.spare.pk, "token": scene.token}
    filled = None if body is None else {k: names.get(v, v) for k, v in body.items()}
    client = APIClient()
    if user is not None:
        client.force_login(user)
    path = scene.path(route.format(**ids), missing=missing)
    headers = {"Idempotency-Key": uuid.uuid4().hex}
    if method == "GET":
        response = client.get(path)
    elif method == "DELETE":
        response = client.delete(path, headers=headers)
    else:
        response = client.post(path, filled or {}, format="json", headers=headers)
    answer = response.json()
    assert response["Content-Type"] == "application/json", (scene.kind, role, call)
    if "error" in answer:
        return response.status_code, ("error", answer["error"]["code"])
    # Both kinds answer the one set of staff answers, which name their scope by its kind.
    assert answer.get("scope", scene.kind) == scene.kind, (scene.kind, role, call, answer)
    return response.status_code, ("keys", sorted(SCOPE_KEYS.get(key, key) for key in answer))


def _send_rolled_back(
    scene: Scene, role: str, call: str, *, missing: bool = False
) -> tuple[int, Any]:
    """`_send`, with what it writes undone afterwards: the scene stays as it was built."""
    with rolled_back():
        return _send(scene, role, call, missing=missing)


@pytest.mark.parametrize("call", list(CALLS))
def test_the_event_and_the_series_answer_each_role_alike(call: str) -> None:
    """Each role meets the scopes as they were built: what the one before made is rolled back."""
    scenes = _scene("event"), _scene("series")
    for role in ROLES:
        event, series = (_send_rolled_back(scene, role, call) for scene in scenes)
        assert event == series, (call, role, event, series)


@pytest.mark.parametrize("call", list(CALLS))
def test_a_scope_that_does_not_exist_is_not_found_under_either(call: str) -> None:
    scenes = _scene("event"), _scene("series")
    for role in ("owner", "outsider"):
        event, series = (_send_rolled_back(scene, role, call, missing=True) for scene in scenes)
        assert event == series, (call, role, event, series)
        if call not in REFUSED_BODIES:  # those are refused alike before any scope is looked up
            assert event == (404, ("error", "not_found")), (call, role, event)


def test_a_refused_role_is_named_in_the_same_words_on_both() -> None:
    for kind, noun in (("event", "event"), ("series", "series")):
        scene = _scene(kind)
        client = APIClient()
        client.force_login(scene.people["cashier"])
        response = client.post(
            scene.path("owner/"),
            {"user_id": scene.spare.pk},
            format="json",
            headers={"Idempotency-Key": uuid.uuid4().hex},
        )
        assert response.status_code == 403
        message = response.json()["error"]["message"]
        assert message.startswith(f"Your role in this {noun} (cashier) does not include that ("), (
            message
        )


def test_the_routes_keep_their_names_for_both_kinds() -> None:
    names = {
        "house-members": "house-members/",
        "house-member": "house-members/5/",
        "owner": "owner/",
        "staff-invitations": "staff-invitations/",
        "staff-invitation-accept": "staff-invitations/accept/",
        "staff-invitation": "staff-invitations/5/",
        "display-links": "display-links/",
        "display-link-revoke": "display-links/5/revoke/",
    }
    for name, route in names.items():
        extra = {
            "house-member": "user_id",
            "staff-invitation": "invitation_id",
            "display-link-revoke": "link_id",
        }.get(name)
        more = {extra: 5} if extra else {}
        event_name = "event-owner" if name == "owner" else name
        event = reverse(f"api:{event_name}", kwargs={"event_id": 3, **more})
        series = reverse(f"api:series-{name}", kwargs={"series_id": 3, **more})
        assert (event, series) == (f"/api/events/3/{route}", f"/api/series/3/{route}")


# The operations that take a request body.
BODIED = {
    ("house-members/", "post"),
    ("owner/", "post"),
    ("staff-invitations/", "post"),
    ("staff-invitations/accept/", "post"),
    ("display-links/", "post"),
}


def test_the_schema_documents_both_forms_of_each_route_with_its_kind_s_shapes() -> None:
    spec = json.loads(APIClient().get("/api/schema/", {"format": "json"}).content)
    paths = spec["paths"]
    for route, method, event_answer, series_answer in (
        ("house-members/", "post", "StaffChanged", "StaffChanged"),
        ("house-members/{user_id}/", "delete", "StaffChanged", "StaffChanged"),
        ("owner/", "post", "OwnershipTransferred", "OwnershipTransferred"),
        ("staff-invitations/", "post", "StaffInvited", "StaffInvited"),
        (
            "staff-invitations/accept/",
            "post",
            "StaffInvitationAccepted",
            "StaffInvitationAccepted",
        ),
        (
            "staff-invitations/{invitation_id}/",
            "delete",
            "StaffInvitationCancelled",
            "StaffInvitationCancelled",
        ),
        ("display-links/", "get", "DisplayLinks", "SeriesDisplayLinks"),
        ("display-links/", "post", "DisplayLinkCreated", "DisplayLinkCreated"),
        (
            "display-links/{link_id}/revoke/",
            "post",
            "DisplayLinkRevoked",
            "DisplayLinkRevoked",
        ),
    ):
        for prefix, answer in (
            ("/api/events/{event_id}/", event_answer),
            ("/api/series/{series_id}/", series_answer),
        ):
            operation = paths[prefix + route][method]
            assert operation["summary"], (prefix, route)
            answered = {
                media["schema"].get("$ref", "")
                for status, shape in operation["responses"].items()
                if status.startswith("2")
                for media in shape.get("content", {}).values()
            }
            assert answered == {f"#/components/schemas/{answer}"}, (prefix, route, answered)
            bodied = (route, method) in BODIED
            assert ("requestBody" in operation) is bodied, (prefix, route, method)
