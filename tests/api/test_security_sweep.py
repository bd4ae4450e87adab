"""Nobody reads or acts beyond their rights, on any endpoint (docs/rules.md sections 1.2, 8.1
and 11.2).

- player A gets 404, exactly as for a registration that does not exist, on every endpoint that
  names player B's registration;
- a signed-in user who is not the event's House (a player, another event's House, site staff)
  gets 403 or 404 on every House endpoint;
- a visitor gets 403 on everything but the public reads.
Each refusal changes nothing. The tables below must cover every route of api/urls.py.
"""

from __future__ import annotations

from dataclasses import dataclass

import pytest
from django.urls import URLPattern

from api import urls
from events.services import display_link_create, staff_invite
from seasons.models import Series
from seasons.reads import public_id
from seasons.services import (
    event_series_set,
    season_create,
    series_create,
)
from staff.scopes import Scope
from tests.api.support import Api, error
from tests.factories import make_table, make_user
from tests.refusals import unchanged

pytestmark = pytest.mark.django_db


@dataclass(frozen=True)
class Call:
    name: str  # the route name in api/urls.py
    method: str
    path: str  # formatted with the ids of the scene below
    body: dict | None = None


# Endpoints that name a registration and that its own player may use.
PLAYER = [
    Call("registration", "GET", "/api/registrations/{target}/"),
    Call("cancel", "POST", "/api/registrations/{target}/cancel/"),
    Call(
        "starting-selection",
        "POST",
        "/api/registrations/{target}/starting-selection/",
        {"slots": [0]},
    ),
    Call("results", "POST", "/api/registrations/{target}/results/", {"game": 2, "outcome": "loss"}),
    Call("win-choice", "POST", "/api/registrations/{target}/win-choice/", {"slot": 0}),
    Call("withdraw", "POST", "/api/registrations/{target}/withdraw/", {"reason": "bye"}),
    Call("claim", "POST", "/api/registrations/{target}/claim/"),
    Call("checkout", "POST", "/api/registrations/{target}/checkout/"),
]

# House endpoints (site staff for the House members and for creating events).
HOUSE = [
    Call("event", "PATCH", "/api/events/{event}/", {"venue": "Mine now"}),
    Call("registration-open", "POST", "/api/events/{event}/registration/open/"),
    Call("registration-close", "POST", "/api/events/{event}/registration/close/"),
    Call("start", "POST", "/api/events/{event}/start/"),
    Call("participants", "POST", "/api/events/{event}/participants/", {"user_id": "{outsider}"}),
    Call("pool-confirm", "POST", "/api/events/{event}/pool/confirm/"),
    Call("finalize", "POST", "/api/events/{event}/finalize/"),
    Call("house", "GET", "/api/events/{event}/house/"),
    Call("checklist", "GET", "/api/events/{event}/checklist/"),
    Call("audit", "GET", "/api/events/{event}/audit/"),
    Call("audit", "GET", "/api/events/{event}/audit/?format=csv"),
    Call("check-in", "POST", "/api/registrations/{waiting}/check-in/"),
    Call("check-in-undo", "POST", "/api/registrations/{target}/check-in/undo/"),
    Call(
        "corrections",
        "POST",
        "/api/registrations/{target}/corrections/",
        {"game": 1, "outcome": "loss", "reason": "x"},
    ),
    Call("reviews", "POST", "/api/registrations/{target}/reviews/", {"reason": "x"}),
    Call("review-resolve", "POST", "/api/reviews/{review}/resolve/", {"reason": "x"}),
    Call("wild-reveal", "POST", "/api/registrations/{target}/wild-reveal/"),
    Call("access-reset", "POST", "/api/registrations/{target}/access-reset/", {"reason": "x"}),
    Call("self-check-in-switch", "POST", "/api/events/{event}/self-check-in/", {"enabled": True}),
    Call("check-in-all", "POST", "/api/events/{event}/check-in-all/"),
    Call("waitlist", "GET", "/api/events/{event}/waitlist/"),
    Call("promote", "POST", "/api/registrations/{waiting}/promote/", {"reason": "x"}),
    Call("remove", "POST", "/api/registrations/{waiting}/remove/", {"reason": "x"}),
    Call("payment", "POST", "/api/registrations/{target}/payment/", {"paid": True}),
    Call("announcements", "POST", "/api/events/{event}/announcements/", {"text": "Mine now"}),
    Call("display-links", "GET", "/api/events/{event}/display-links/"),
    Call("display-links", "POST", "/api/events/{event}/display-links/", {"label": "Mine now"}),
    Call("display-link-revoke", "POST", "/api/events/{event}/display-links/{link}/revoke/"),
    # House of the event's series.
    Call(
        "series-house-members",
        "POST",
        "/api/series/{series}/house-members/",
        {"user_id": "{outsider}"},
    ),
    Call("series-house-member", "DELETE", "/api/series/{series}/house-members/{house}/"),
    Call("series", "PATCH", "/api/series/{series}/", {"minimum_age": 21}),
    Call("series-owner", "POST", "/api/series/{series}/owner/", {"user_id": "{outsider}"}),
    Call(
        "series-staff-invitations",
        "POST",
        "/api/series/{series}/staff-invitations/",
        {"email": "newcomer@example.com", "role": "cashier"},
    ),
    Call(
        "series-staff-invitation",
        "DELETE",
        "/api/series/{series}/staff-invitations/{series_invitation}/",
    ),
    Call("series-display-links", "GET", "/api/series/{series}/display-links/"),
    Call("series-display-links", "POST", "/api/series/{series}/display-links/", {"label": "Mine"}),
    Call(
        "series-display-link-revoke",
        "POST",
        "/api/series/{series}/display-links/{series_link}/revoke/",
    ),
    Call("next-event", "POST", "/api/series/{series}/next-event/", {}),
    Call(
        "seasons",
        "POST",
        "/api/series/{series}/seasons/",
        {"name": "Mine", "starts_on": "2027-01-07", "ends_on": "2027-03-25"},
    ),
    Call("event-series", "POST", "/api/events/{event}/series/", {"series_id": None}),
    Call("season", "PATCH", "/api/seasons/{season}/", {"name": "Mine now"}),
    Call("championship", "POST", "/api/seasons/{season}/championship/", {"date": "2026-12-31"}),
    Call("cash-box", "GET", "/api/events/{event}/cash-box/"),
    Call(
        "ledger-entries",
        "POST",
        "/api/events/{event}/ledger/entries/",
        {"registration_id": "{target}", "method": "cash"},
    ),
    Call(
        "ledger-refunds",
        "POST",
        "/api/events/{event}/ledger/refunds/",
        {"registration_id": "{target}", "amount": 10, "method": "cash", "reason": "x"},
    ),
    Call(
        "ledger-payouts",
        "POST",
        "/api/events/{event}/ledger/payouts/",
        {"registration_id": "{target}", "amount": 1, "method": "cash", "acknowledged": True},
    ),
    Call(
        "ledger-sponsor",
        "POST",
        "/api/events/{event}/ledger/sponsor/",
        {"amount": 1, "method": "cash"},
    ),
    # The event's organization (the laptop's): its venues are its owner's and directors'.
    Call("venues", "POST", "/api/organizations/{organization}/venues/", {"name": "Mine"}),
]
STAFF = [
    Call(
        "events", "POST", "/api/events/", {"name": "Mine", "date": "2026-12-04", "format": "league"}
    ),
    Call("house-members", "POST", "/api/events/{event}/house-members/", {"user_id": "{outsider}"}),
    Call("house-member", "DELETE", "/api/events/{event}/house-members/{house}/"),
    Call("event-owner", "POST", "/api/events/{event}/owner/", {"user_id": "{outsider}"}),
    Call(
        "staff-invitations",
        "POST",
        "/api/events/{event}/staff-invitations/",
        {"email": "newcomer@example.com"},
    ),
    Call("staff-invitation", "DELETE", "/api/events/{event}/staff-invitations/{invitation}/"),
    Call(
        "staff-invitation-accept",
        "POST",
        "/api/events/{event}/staff-invitations/accept/",
        {"token": "not-an-invitation"},
    ),
    Call("series-list", "POST", "/api/series/", {"name": "Mine"}),
    Call(
        "series-staff-invitation-accept",
        "POST",
        "/api/series/{series}/staff-invitations/accept/",
        {"token": "not-an-invitation"},
    ),
]

# What anyone may read, signed in or not.
PUBLIC = [
    Call("events", "GET", "/api/events/"),
    Call("event", "GET", "/api/events/{event}/"),
    Call("board", "GET", "/api/events/{event}/board/"),
    Call("formats", "GET", "/api/formats/"),
    Call("series-list", "GET", "/api/series/"),
    Call("series", "GET", "/api/series/{series}/"),
    Call("season", "GET", "/api/seasons/{season}/"),
    Call("season-download", "GET", "/api/seasons/{season}/download/"),
    Call("season-download", "GET", "/api/seasons/{season}/download/?format=csv"),
    Call("player-history", "GET", "/api/players/{player}/history/"),
    Call("schema", "GET", "/api/schema/"),
    Call("docs", "GET", "/api/docs/"),
    Call("swagger-asset", "GET", "/api/docs/assets/swagger-ui.css"),
]
# A signed-in user's own things.
SIGNED_IN = [
    Call("register", "POST", "/api/events/{event}/register/"),
    Call("me", "GET", "/api/events/{event}/me/"),
    Call("self-check-in", "POST", "/api/events/{event}/check-in/", {"code": "ABCDEF"}),
    Call("my-history", "GET", "/api/me/history/"),
    # Anyone signed in makes an organization of their own.
    Call("organizations", "POST", "/api/organizations/", {"name": "Mine"}),
]


class Scene:
    """A started League event: A and B play (B mid-game, paused for review), C waits."""

    def __init__(self) -> None:
        self.table = make_table(players=0)
        self.a = self.table.join("Alice")
        self.b = self.table.join("Bob")
        self.c = make_user("Cleo")
        self.waiting = self.table.register(self.c)
        # The event is a night of a series' season, whose House is the event's.
        self.series = series_create(by=self.table.house, name="Thursday League").series_id
        event_series_set(event_id=self.table.event.pk, series_id=self.series, by=self.table.house)
        self.season = season_create(
            series_id=self.series,
            by=self.table.house,
            name="Winter",
            starts_on=self.table.event.date,
            ends_on=self.table.event.date,
        ).season_id
        self.player = public_id(self.a)
        self.table.start()
        self.table.choose_start(self.b)
        self.table.report(self.b, 1, "win")
        self.review = (
            Api(self.table.house)
            .post(
                f"/api/registrations/{self.table.rid(self.b)}/reviews/", {"reason": "Check game 1"}
            )
            .json()["review_id"]
        )
        self.outsider = make_user("Outsider")
        self.invitation = staff_invite(
            scope=Scope.of(self.table.event), by=self.table.house, email="invited@example.com"
        ).invitation_id
        self.series_invitation = staff_invite(
            scope=Scope(Series, self.series), by=self.table.house, email="invited@example.com"
        ).invitation_id
        # The series' projector link, and the one House made for the night.
        self.series_link = display_link_create(
            scope=Scope(Series, self.series), by=self.table.house, label="Bar screen"
        ).link_id
        self.link = display_link_create(
            scope=Scope.of(self.table.event), by=self.table.house, label="Projector"
        ).link_id

    def ids(self, target: int) -> dict[str, int | str]:
        return {
            "event": self.table.event.pk,
            "target": target,
            "waiting": self.waiting,
            "review": self.review,
            "outsider": self.outsider.pk,
            "house": self.table.house.pk,
            "series": self.series,
            "season": self.season,
            "player": self.player,
            "invitation": self.invitation,
            "series_invitation": self.series_invitation,
            "link": self.link,
            "series_link": self.series_link,
            "organization": self.table.event.organization_id or 0,
        }


def _fill(value, ids: dict[str, int | str]):
    if isinstance(value, str) and value.startswith("{") and value.endswith("}"):
        return ids[value[1:-1]]
    if isinstance(value, dict):
        return {key: _fill(inner, ids) for key, inner in value.items()}
    return value


def _send(api: Api, call: Call, ids: dict[str, int | str]):
    return api.send(call.method, call.path.format(**ids), _fill(call.body, ids))


def test_it_covers_every_route_of_the_api() -> None:
    names = {p.name for p in urls.urlpatterns if isinstance(p, URLPattern)} - {"not-found"}
    swept = {call.name for call in PLAYER + HOUSE + STAFF + PUBLIC + SIGNED_IN}
    assert swept == names


def test_it_hides_another_players_registration_on_every_endpoint() -> None:
    scene = Scene()
    alice = Api(scene.a)
    missing = scene.ids(target=987654)
    with unchanged(scene.table.event):
        for target in (scene.table.rid(scene.b), scene.waiting):
            for call in PLAYER:
                response = _send(alice, call, scene.ids(target=target))
                assert error(response) == (404, "not_found"), call
                # Exactly the answer for a registration that does not exist: nothing leaks.
                assert response.json() == _send(alice, call, missing).json(), call
                assert "Bob" not in response.content.decode()


def test_it_refuses_house_endpoints_to_everyone_but_house() -> None:
    scene = Scene()
    other_house = make_table().house  # House of another event, and site staff
    staff = make_user(staff=True)
    with unchanged(scene.table.event):
        for user, calls in (
            (scene.a, HOUSE + STAFF),
            (scene.outsider, HOUSE + STAFF),
            (other_house, HOUSE),
            (staff, HOUSE),
        ):
            api = Api(user)
            for target in (scene.table.rid(scene.a), scene.table.rid(scene.b)):
                for call in calls:
                    status, code = error(_send(api, call, scene.ids(target=target)))
                    assert (status, code) in {(403, "not_allowed"), (404, "not_found")}, (
                        user,
                        call,
                    )
    assert scene.table.event.staff.count() == 1


def test_it_refuses_visitors_everything_but_the_public_reads() -> None:
    scene = Scene()
    visitor = Api()
    with unchanged(scene.table.event):
        ids = scene.ids(target=scene.table.rid(scene.b))
        for call in PLAYER + HOUSE + STAFF + SIGNED_IN:
            response = _send(visitor, call, ids)
            assert error(response) == (403, "not_allowed"), call
        for call in PUBLIC:
            assert _send(visitor, call, ids).status_code == 200, call


def test_it_lets_each_owner_use_their_own_registration() -> None:
    """The sweep's refusals are about who asks: the same calls work for their owner."""
    scene = Scene()
    bob = Api(scene.b)
    path = f"/api/registrations/{scene.table.rid(scene.b)}/"
    assert bob.get(path).status_code == 200
    assert bob.post(path + "win-choice/", {"slot": 0}).status_code == 200
    assert Api(scene.table.house).post(path + "withdraw/", {"reason": "Left"}).status_code == 200
