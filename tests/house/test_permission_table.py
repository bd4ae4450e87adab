"""The permission table walked (staff/roles.py: `SIGHTS` and `may`): for every role (owner,
director, cashier, scorer, a display link, a player, a visitor), every House page, every House
action and every API read serve or refuse exactly what the table says. (Each live part pushed to
a House socket: tests/live/test_permission_table_sockets.py.)"""

from __future__ import annotations

import uuid
from typing import Any

import pytest
from django.test import Client
from django.urls import NoReverseMatch, reverse

from house.read_model import HOUSE_FORMS, sight
from staff import roles as staff
from tests.api.support import Api, error
from tests.api.test_roles_api import _staffed
from tests.api.test_security_sweep import HOUSE, PUBLIC, Scene, _send
from tests.house.permissions import (
    OTHERS,
    ROLES,
    Night,
    allowed,
    night,
    offered,
    shows_money,
)
from tests.house.test_staff_pages import READS
from tests.refusals import said, unchanged

pytestmark = pytest.mark.django_db

# Every page House opens with a GET, and whether it shows the night's money alone.
PAGES = {
    "house:events": False,
    "house:tonight": False,
    "house:dashboard": False,
    "house:dashboard_partial": False,
    "house:event_edit": False,
    "house:results_sheet": False,
    "house:audit_csv": False,
    "house:audit_json": False,
    "ledger:night": True,
    "ledger:night_csv": True,
}
# Pages that show some of the night's money beside other things: it is left out for a role that
# may not see it.
WITH_MONEY = {"house:dashboard", "house:dashboard_partial", "house:results_sheet", "house:tonight"}
# Forms that change nothing the table guards: the Scoreholio check reads a file into the
# member's own session (tests/house/test_scoreholio.py).
SESSION_ONLY = {"house:scoreholio_upload", "house:scoreholio_clear"}


def client_of(scene: Night, who: str) -> Client:
    client = Client()
    if who == "display":
        assert client.get(scene.link).status_code == 200  # the laptop opened its link
    elif who != "anonymous":
        client.force_login(scene.people[who])
    return client


def address(name: str, scene: Night) -> str:
    for kwargs in (
        {},
        {"event_id": scene.event_id},
        # The staff and display links sections' forms name their scope (house/staff_pages.py).
        {"scope_id": scene.event_id},
        {"event_id": scene.event_id, "registration_id": scene.rid(1)},
        {"event_id": scene.event_id, "review_id": scene.review_id},
    ):
        try:
            return reverse(name, kwargs=kwargs)
        except NoReverseMatch:
            continue
    raise LookupError(name)


def test_the_walk_covers_every_house_page_and_form() -> None:
    # The settings' staff forms, a new event (site staff) and an invitation (its invitee) are
    # walked with the staff: tests/house/test_staff_pages.py.
    assert set(PAGES) == READS | {"house:event_edit"}
    assert set(PAGES) > WITH_MONEY


def test_every_house_page_is_served_to_exactly_whom_the_table_says() -> None:
    scene = night()
    for who in ROLES + OTHERS:
        client = client_of(scene, who)
        roles = {who} if who in ROLES else set()
        for name, money_alone in PAGES.items():
            response = client.get(address(name, scene))
            where = (who, name)
            if who in ("anonymous", "display"):
                assert response.status_code == 302 and "/login" in response["Location"], where
                continue
            if who == "player":
                event_page = name not in ("house:events", "house:tonight")
                assert response.status_code == (404 if event_page else 200), where
                if name == "house:tonight":
                    assert scene.table.event.name not in response.content.decode(), where
                continue
            body = response.content.decode()
            if money_alone and not staff.may_see(roles, "money"):
                assert response.status_code == 403, where
                assert f"Your role in this event ({who}) does not include that" in body, where
                continue
            assert response.status_code == 200, where
            if name in WITH_MONEY:
                assert shows_money(body) == staff.may_see(roles, "money"), where


def test_each_role_page_offers_exactly_the_actions_the_table_lets_it_do() -> None:
    scene = night()
    pages = ("house:dashboard", "house:dashboard_partial", "ledger:night")
    owners = {
        name: offered(client_of(scene, "owner").get(address(name, scene)).content.decode())
        for name in pages
    }
    # The night offers something of every role.
    for role in ROLES:
        assert allowed(role, owners["house:dashboard"]), role
    assert {"payment_mark", "result_submit", "review_resolve", "win_choice_confirm"} <= owners[
        "house:dashboard"
    ]
    assert {"starting_selection_confirm", "pool_confirm"} <= owners["house:dashboard"]
    for role in ROLES:
        client = client_of(scene, role)
        for name in pages:
            response = client.get(address(name, scene))
            if name == "ledger:night" and not staff.may_see({role}, "money"):
                assert response.status_code == 403
                continue
            body = response.content.decode()
            assert offered(body) == allowed(role, owners[name]), (role, name)
            assert "<style nonce" not in body  # nothing hidden: left out


def test_every_house_action_is_refused_to_exactly_the_roles_the_table_leaves_it_out_of() -> None:
    scene = night()
    body: dict[str, Any] = {
        "game": "2",
        "outcome": "loss",
        "opponent": "",
        "score": "",
        "reason": "Checked on the board.",
        "slot": "0",
        "paid": "1",
        "enabled": "1",
        "text": "Boards 1 and 2",
        "email": "nobody@example.com",
        "registration": str(scene.rid(1)),
        "amount": "10",
        "method": "cash",
        "link": str(scene.link_id),
        "label": "Projector",
    }
    refused = 0
    for who in ROLES + OTHERS:
        client = client_of(scene, who)
        for name, action in HOUSE_FORMS.items():
            if name in SESSION_ONLY or (who in ROLES and staff.may(who, action)):
                continue  # what a role may do is each action's own tests'
            where = (who, name)
            with unchanged(scene.table.event, f"{who} {name}"):
                response = client.post(
                    address(name, scene), {**body, "idempotency_key": uuid.uuid4().hex}
                )
            if who in ("anonymous", "display"):
                assert response.status_code == 302 and "/login" in response["Location"], where
            elif who == "player":
                assert response.status_code == 404, where
            else:
                words = f"Your role in this event ({who}) does not include that"
                assert any(words in text for text in said(response)), (where, said(response))
                refused += 1
    # A director is refused nothing on these pages (staff changes are the settings page's), a
    # cashier everything but check-in and money, a scorer everything but results and reviews.
    actions = {a for name, a in HOUSE_FORMS.items() if name not in SESSION_ONLY}
    expected = sum(
        len([n for n, a in HOUSE_FORMS.items() if n not in SESSION_ONLY and not staff.may(r, a)])
        for r in ROLES
    )
    assert refused == expected > 0
    assert sight({"owner"}) == sight({"director"})  # one sight: the same page
    assert actions - set(sight({"cashier"}).does) and actions - set(sight({"scorer"}).does)


def test_every_api_read_is_served_to_exactly_whom_the_table_says() -> None:
    scene = Scene()
    people = _staffed(scene)
    reads = [call for call in HOUSE if call.method == "GET"]
    public = [call for call in PUBLIC if call.method == "GET"]
    money = {"cash-box"}  # the API's reads of the night's money (staff/roles.py `SIGHTS`)
    callers: dict[str, Api] = {role: Api(people[role]) for role in ROLES}
    callers["player"] = Api(scene.a)
    callers["anonymous"] = callers["display"] = Api()
    ids = scene.ids(target=scene.table.rid(scene.b))
    for who, api in callers.items():
        roles = {who} if who in ROLES else set()
        for call in reads:
            with unchanged(scene.table.event, f"{who} {call.name}"):
                response = _send(api, call, ids)
            where = (who, call.name)
            if not roles:
                assert error(response) in {(403, "not_allowed"), (404, "not_found")}, where
                continue
            if call.name in money and not staff.may_see(roles, "money"):
                assert error(response) == (403, "not_allowed"), where
                assert f"({who})" in response.json()["error"]["message"], where
            elif call.name.startswith("series") or call.name in {"seasons", "next-event"}:
                continue  # a series' own reads: tests/api/test_series_roles_api.py
            else:
                assert response.status_code == 200, where
        for call in public:  # the board and the event's public reads: everyone's
            assert _send(api, call, ids).status_code == 200, (who, call.name)
