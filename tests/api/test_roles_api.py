"""The role matrix over the API (staff/roles.py, docs/decisions.md "Roles"): every House
endpoint tried by each staff role of the event (none of them site staff) and by the venue's
display link. A role is refused, with 403 `not_allowed` and nothing changed, exactly the writes
its role does not include; every staff role reads House's views but what its role may not see
(a scorer, the cash box: staff/roles.py `SIGHTS`); the display link, which has no
account, writes nothing and shows no code once House has revoked it."""

from __future__ import annotations

import pytest

from accounts.models import User
from events import services
from events.models import Event
from events.venue import display_path
from seasons.models import Series
from staff import roles as staff
from staff.scopes import Scope
from tests.api.support import Api, error
from tests.api.test_security_sweep import HOUSE, STAFF, Scene, _send
from tests.events.test_roles import allowed
from tests.factories import make_table, make_user
from tests.refusals import unchanged

pytestmark = pytest.mark.django_db

# Each House write of the API, by the engine's action it performs.
ACTIONS = {
    "event": "event_update",
    "registration-open": "registration_open",
    "registration-close": "registration_close",
    "start": "event_start",
    "participants": "participant_add",
    "pool-confirm": "pool_confirm",
    "finalize": "event_finalize",
    "check-in": "player_check_in",
    "check-in-undo": "check_in_undo",
    "promote": "waitlist_promote",
    "remove": "registration_remove",
    "corrections": "result_correct",
    "reviews": "review_open",
    "review-resolve": "review_resolve",
    "wild-reveal": "wild_reveal",
    "access-reset": "access_reset",
    "self-check-in-switch": "self_check_in_switch",
    "check-in-all": "check_in_all",
    "payment": "payment_mark",
    "announcements": "announcement_send",
    "ledger-entries": "entry_paid",
    "ledger-refunds": "entry_refunded",
    "ledger-payouts": "payout_made",
    "ledger-sponsor": "sponsor_paid",
    "house-members": "house_member_add",
    "house-member": "house_member_remove",
    "event-owner": "ownership_transfer",
    "staff-invitations": "staff_invite",
    "staff-invitation": "staff_invitation_cancel",
    "event-series": "event_series_set",
    "display-links": "display_link_create",
    "display-link-revoke": "display_link_revoke",
}
# The series' own endpoints: an event's staff hold no role in its series.
SERIES = {
    "series",
    "series-owner",
    "series-staff-invitations",
    "series-staff-invitation",
    "series-house-members",
    "series-house-member",
    "series-display-links",
    "series-display-link-revoke",
    "next-event",
    "seasons",
    "season",
    "championship",
}
ROLES = ("owner", "director", "cashier", "scorer")
# Each House read of the API that shows what only some roles see (staff/roles.py `SIGHTS`).
SIGHTS = {"cash-box": "money"}


def _staffed(scene: Scene) -> dict[str, User]:
    """The scene's event with one account per role; its creator (site staff) leaves the staff.
    The event is a night of a series, whose owner owns it (docs/decisions.md, "An event's owner
    in a series"): the owner is the series' owner, the others hold their role in the event only."""
    event_id, creator = scene.table.event.pk, scene.table.house
    people = {role: make_user(role.capitalize()) for role in ROLES}
    for role in ("director", "cashier", "scorer"):
        services.house_member_add(
            scope=Scope(Event, event_id), by=creator, member=people[role], role=role
        )
    services.house_member_add(scope=Scope(Series, scene.series), by=creator, member=people["owner"])
    services.ownership_transfer(
        scope=Scope(Series, scene.series), by=creator, member=people["owner"]
    )
    # Leaving the series, the creator leaves its events' staff too.
    services.house_member_remove(scope=Scope(Series, scene.series), by=creator, member=creator)
    return people


def test_every_staff_role_is_refused_over_the_api_what_its_role_does_not_include() -> None:
    scene = Scene()
    people = _staffed(scene)
    writes = [call for call in HOUSE + STAFF if call.method != "GET" and call.name != "events"]
    # Besides: creating a series is site staff's, accepting an invitation its invitee's.
    # An organization's venues are its own staff's (tests/organizations).
    own = {"series-list", "staff-invitation-accept", "series-staff-invitation-accept", "venues"}
    assert {call.name for call in writes} == set(ACTIONS) | SERIES | own
    tried = seen_refused = 0
    for role in ROLES:
        api = Api(people[role])
        for call in writes:
            if call.name in ACTIONS and allowed(role, ACTIONS[call.name]):
                continue
            if call.name in own:
                continue  # tests/api/test_security_sweep.py
            if call.name in SERIES and role == "owner":
                continue  # the series' owner: tests/api/test_series_roles_api.py
            ids = scene.ids(target=scene.table.rid(scene.b))
            with unchanged(scene.table.event, f"{role} {call.name}"):
                response = _send(api, call, ids)
            assert error(response) in {(403, "not_allowed"), (404, "not_found")}, (role, call)
            if call.name in ACTIONS:
                assert error(response) == (403, "not_allowed"), (role, call)
                assert f"({role})" in response.json()["error"]["message"], (role, call)
            tried += 1
        for call in HOUSE:
            if call.method == "GET":
                response = _send(api, call, scene.ids(target=scene.table.rid(scene.b)))
                if call.name in SERIES and role != "owner":  # an event's staff hold no series role
                    assert error(response) == (403, "not_allowed"), (role, call)
                elif call.name in SIGHTS and not staff.may_see({role}, SIGHTS[call.name]):
                    assert error(response) == (403, "not_allowed"), (role, call)
                    assert f"({role})" in response.json()["error"]["message"], (role, call)
                    assert "cash_in" not in response.content.decode(), (role, call)
                    seen_refused += 1
                else:
                    assert response.status_code == 200, (role, call)
    # 32 event writes: the owner is refused none of them, a director 5, a cashier 22 (it
    # promotes from the waitlist but removes no registration), a scorer 30 (of House's endpoints
    # a scorer opens reviews and reveals wilds; assisting a player goes through the player's own
    # endpoints); each role but the owner (the series' owner) is refused the 12 series writes:
    # 93 cases.
    # (The series' own roles are tried over the API in tests/api/test_series_roles_api.py.)
    assert tried == 0 + 5 + 22 + 30 + 3 * len(SERIES) == 93
    # The night's money: a scorer alone is refused the cash box; the owner, a director and a
    # cashier read it (the 200s above).
    assert seen_refused == 1


def test_a_scorer_sees_no_money_over_the_api_and_the_owner_director_and_cashier_do() -> None:
    scene = Scene()
    people = _staffed(scene)
    path = f"/api/events/{scene.table.event.pk}/cash-box/"
    for role in ROLES:
        with unchanged(scene.table.event, role):
            response = Api(people[role]).get(path)
        if role == "scorer":
            assert error(response) == (403, "not_allowed")
            assert (
                "Your role in this event (scorer) does not include that"
                in (response.json()["error"]["message"])
            )
            assert "cash_in" not in response.content.decode()
        else:
            assert response.status_code == 200 and "cash_in" in response.json(), role


def test_the_display_link_writes_nothing_and_a_revoked_one_shows_no_code() -> None:
    scene = Scene()
    tonight = make_table(players=2)  # before the start, while the display shows the code
    house = tonight.house
    services.self_check_in_switch(event_id=tonight.event.pk, by=house, enabled=True)
    link = display_path(tonight.refresh())
    assert link is not None
    display = Api()  # the projector's laptop: no account, only the link
    laptop = display.client
    page = laptop.get(link)
    assert page.status_code == 200
    code = tonight.refresh().check_in_code
    assert code in page.content.decode()
    # The laptop has no account: every House write is refused, and nothing changes.
    ids = scene.ids(target=scene.table.rid(scene.b))
    with unchanged(scene.table.event, "a display link writing"), unchanged(tonight.event):
        for call in HOUSE + STAFF:
            assert error(_send(display, call, ids)) == (403, "not_allowed"), call
            own = {**ids, "event": tonight.event.pk}
            assert error(_send(display, call, own)) == (403, "not_allowed"), call
    # House revokes the link (a new code); reused, it shows the board and no code.
    services.self_check_in_switch(event_id=tonight.event.pk, by=house, enabled=False)
    services.self_check_in_switch(event_id=tonight.event.pk, by=house, enabled=True)
    new_code = tonight.refresh().check_in_code
    stale = laptop.get(link).content.decode()
    assert code not in stale and new_code not in stale
    assert "This display link is out of date" in stale


def test_a_display_link_writes_nothing_and_once_revoked_shows_nothing() -> None:
    scene = Scene()
    tonight = make_table(players=2)  # before the start, while the display shows the code
    house = tonight.house
    services.self_check_in_switch(event_id=tonight.event.pk, by=house, enabled=True)
    made = Api(house).post(
        f"/api/events/{tonight.event.pk}/display-links/", {"label": "Projector by the bar"}
    )
    assert made.status_code == 201
    link = made.json()["path"]
    laptop = Api()  # the projector's laptop: no account, only the link
    page = laptop.client.get(link)
    assert page.status_code == 200
    code = tonight.refresh().check_in_code
    assert code in page.content.decode()
    # The laptop has no session: every House write is refused, and nothing changes, in the
    # event it shows as in another.
    ids = {**scene.ids(target=scene.table.rid(scene.b)), "link": made.json()["link_id"]}
    with unchanged(scene.table.event, "a display link writing"), unchanged(tonight.event):
        for call in HOUSE + STAFF:
            assert error(_send(laptop, call, ids)) == (403, "not_allowed"), call
            own = {**ids, "event": tonight.event.pk}
            assert error(_send(laptop, call, own)) == (403, "not_allowed"), call
        # The page's own addresses take no write.
        for path in (link, link + "now"):
            assert laptop.client.post(path).status_code == 405
    # House revokes it: reused, it says so and shows no board and no code.
    Api(house).post(
        f"/api/events/{tonight.event.pk}/display-links/{made.json()['link_id']}/revoke/"
    )
    gone = laptop.client.get(link)
    assert gone.status_code == 410
    text = gone.content.decode()
    assert "This display link was revoked by House." in text
    assert code not in text and "check-in-code" not in text and 'id="board"' not in text
    with unchanged(tonight.event, "a revoked display link writing"):
        for call in HOUSE + STAFF:
            own = {**ids, "event": tonight.event.pk}
            assert error(_send(laptop, call, own)) == (403, "not_allowed"), call
