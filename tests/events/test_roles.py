"""Staff roles (staff/roles.py, docs/decisions.md "Roles"): every House action tried by every
role, the owner, a director, a cashier, a scorer, plus a player of the event and an outsider as
controls. An allowed role gets past the guard (the change is made, or refused for the event's
state, never for who asks) and its audit entries name the role; a refused one is told so and
nothing changes. The display link, which has no account, is swept over the API in
tests/api/test_roles_api.py."""

from __future__ import annotations

from collections.abc import Callable
from dataclasses import dataclass

import pytest

from accounts.models import User
from audit.models import AuditEntry
from events import services
from events.errors import DomainError, NotAllowed, NotFound
from events.models import Event
from ledger import services as ledger
from seasons import services as seasons
from seasons.models import Series
from staff.models import Membership, scope_type
from staff.scopes import Scope
from tests.events.support import REASON
from tests.factories import Table, make_table, make_user, rolled_back
from tests.refusals import refused

STAFF_ROLES = ("owner", "director", "cashier", "scorer")
CONTROLS = ("player", "outsider")

# What each role may do, written out here rather than read from the rule table it checks.
OWNER_ONLY = {
    "house_member_add",
    "house_member_remove",
    "ownership_transfer",
    "staff_invite",
    "staff_invitation_cancel",
}
CASHIER = {
    "player_check_in",
    "waitlist_promote",
    "check_in_undo",
    "check_in_all",
    "participant_add",
    "payment_mark",
    "entry_paid",
    "entry_refunded",
    "payout_made",
    "sponsor_paid",
}
SCORER = {
    "starting_selection_confirm",
    "result_submit",
    "win_choice_confirm",
    "wild_reveal",
    "review_open",
}


@dataclass
class Scene:
    """A started Standard v1 night: Ann and Bob play, Cy waits to check in, Dee is under review;
    each role is held by an account of its own (none of them site staff)."""

    table: Table
    people: dict[str, User]
    ann: User
    bob: User
    cy: User
    review_id: int
    spare: User  # a director for the owner to remove or make owner
    invitation_id: int  # an invitation not yet accepted, for the owner to withdraw
    link_id: int  # the projector's display link

    def rid(self, player: User) -> int:
        return self.table.rid(player)


def _scene() -> Scene:
    table = make_table("standard-v1")
    ann, bob, dee = table.join("Ann"), table.join("Bob"), table.join("Dee")
    cy = make_user("Cy")
    table.register(cy)
    table.start()
    review = services.review_open(registration_id=table.rid(dee), by=table.house, reason=REASON)
    event_id = table.event.pk
    people = {role: make_user(role.capitalize()) for role in (*STAFF_ROLES, "outsider")}
    people["player"] = ann
    for role in ("director", "cashier", "scorer"):
        services.house_member_add(
            scope=Scope(Event, event_id), by=table.house, member=people[role], role=role
        )
    services.house_member_add(scope=Scope(Event, event_id), by=table.house, member=people["owner"])
    services.ownership_transfer(
        scope=Scope(Event, event_id), by=table.house, member=people["owner"]
    )
    spare = make_user("Spare")
    services.house_member_add(scope=Scope(Event, event_id), by=table.house, member=spare)
    link = services.display_link_create(
        scope=Scope(Event, event_id), by=table.house, label="Projector"
    )
    # The creator (site staff) leaves the staff: only the role holders remain.
    services.house_member_remove(scope=Scope(Event, event_id), by=table.house, member=table.house)
    invited = services.staff_invite(
        scope=Scope(Event, event_id), by=people["owner"], email="invited@example.com", role="scorer"
    )
    return Scene(
        table,
        people,
        ann,
        bob,
        cy,
        review.review_id,
        spare,
        invited.invitation_id,
        link.link_id,
    )


def _calls(scene: Scene) -> dict[str, Callable[[User], object]]:
    """Each House action, called by `by` on the scene."""
    e, a, b, c = (
        scene.table.event.pk,
        scene.rid(scene.ann),
        scene.rid(scene.bob),
        scene.rid(scene.cy),
    )
    newcomer = make_user("Newcomer")
    return {
        "event_update": lambda by: services.event_update(
            event_id=e, by=by, changes={"venue": "Hall"}
        ),
        "house_member_add": lambda by: services.house_member_add(
            scope=Scope(Event, e), by=by, member=newcomer, role="scorer"
        ),
        "house_member_remove": lambda by: services.house_member_remove(
            scope=Scope(Event, e), by=by, member=scene.spare
        ),
        "ownership_transfer": lambda by: services.ownership_transfer(
            scope=Scope(Event, e), by=by, member=scene.spare
        ),
        "staff_invite": lambda by: services.staff_invite(
            scope=Scope(Event, e), by=by, email="newcomer@example.com", role="cashier"
        ),
        "staff_invitation_cancel": lambda by: services.staff_invitation_cancel(
            scope=Scope(Event, e), by=by, invitation_id=scene.invitation_id
        ),
        "registration_open": lambda by: services.registration_open(event_id=e, by=by),
        "registration_close": lambda by: services.registration_close(event_id=e, by=by),
        "event_start": lambda by: services.event_start(event_id=e, by=by),
        "pool_confirm": lambda by: services.pool_confirm(event_id=e, by=by),
        "event_finalize": lambda by: services.event_finalize(event_id=e, by=by),
        "participant_add": lambda by: services.participant_add(event_id=e, by=by, player=newcomer),
        "registration_cancel": lambda by: services.registration_cancel(registration_id=c, by=by),
        "player_check_in": lambda by: services.player_check_in(registration_id=c, by=by),
        "check_in_undo": lambda by: services.check_in_undo(registration_id=a, by=by),
        "starting_selection_confirm": lambda by: services.starting_selection_confirm(
            registration_id=b, by=by, slots=[0, 1, 2], reason=REASON
        ),
        "result_submit": lambda by: services.result_submit(
            registration_id=b, by=by, game=1, outcome="loss", reason=REASON
        ),
        "win_choice_confirm": lambda by: services.win_choice_confirm(
            registration_id=b, by=by, slot=0, reason=REASON
        ),
        "wild_reveal": lambda by: services.wild_reveal(registration_id=b, by=by),
        "result_correct": lambda by: services.result_correct(
            registration_id=b, by=by, game=1, outcome="win", reason=REASON
        ),
        "review_open": lambda by: services.review_open(registration_id=b, by=by, reason=REASON),
        "review_resolve": lambda by: services.review_resolve(
            review_id=scene.review_id, by=by, reason=REASON
        ),
        "player_withdraw": lambda by: services.player_withdraw(
            registration_id=b, by=by, reason=REASON
        ),
        "access_reset": lambda by: services.access_reset(registration_id=b, by=by, reason=REASON),
        "self_check_in_switch": lambda by: services.self_check_in_switch(
            event_id=e, by=by, enabled=True
        ),
        "check_in_all": lambda by: services.check_in_all(event_id=e, by=by),
        "payment_mark": lambda by: services.payment_mark(registration_id=b, by=by, paid=True),
        "announcement_send": lambda by: services.announcement_send(
            event_id=e, by=by, text="Last games, please."
        ),
        "entry_paid": lambda by: ledger.entry_payment(
            event_id=e, registration_id=b, by=by, method="cash"
        ),
        "entry_refunded": lambda by: ledger.entry_refund(
            event_id=e, registration_id=b, by=by, amount=5, method="cash", reason=REASON
        ),
        "payout_made": lambda by: ledger.payout_record(
            event_id=e, registration_id=b, by=by, amount=5, method="cash", acknowledged=True
        ),
        "sponsor_paid": lambda by: ledger.sponsor_payment(
            event_id=e, by=by, amount=5, method="cash"
        ),
        "display_link_create": lambda by: services.display_link_create(
            scope=Scope(Event, e), by=by, label="Projector by the bar"
        ),
        "display_link_revoke": lambda by: services.display_link_revoke(
            scope=Scope(Event, e), by=by, link_id=scene.link_id
        ),
        "waitlist_promote": lambda by: services.waitlist_promote(
            registration_id=c, by=by, reason=REASON
        ),
        "registration_remove": lambda by: services.registration_remove(
            registration_id=c, by=by, reason=REASON
        ),
    }


def allowed(role: str, action: str) -> bool:
    if role == "owner":
        return True
    if role == "director":
        return action not in OWNER_ONLY
    return action in {"cashier": CASHIER, "scorer": SCORER}.get(role, set())


def test_every_house_action_of_the_engine_and_the_ledger_is_in_the_matrix() -> None:
    """A new House action joins the matrix: the runner's actions a player cannot take alone."""
    # No House power in them (an invitation is accepted by its invitee, a place offered claimed
    # by its player).
    own = {
        "event_create",
        "player_register",
        "self_check_in",
        "staff_invitation_accept",
        "place_claim",
    }
    named = {getattr(services, name).name for name in services.__all__}
    ledger_names = {
        getattr(ledger, name).name
        for name in ("entry_payment", "entry_refund", "payout_record", "sponsor_payment")
    }
    assert (named - own) | ledger_names == set(_calls_names())


def _calls_names() -> list[str]:
    return [
        "event_update",
        "house_member_add",
        "house_member_remove",
        "ownership_transfer",
        "staff_invite",
        "staff_invitation_cancel",
        "registration_open",
        "registration_close",
        "event_start",
        "pool_confirm",
        "event_finalize",
        "participant_add",
        "registration_cancel",
        "player_check_in",
        "check_in_undo",
        "starting_selection_confirm",
        "result_submit",
        "win_choice_confirm",
        "wild_reveal",
        "result_correct",
        "review_open",
        "review_resolve",
        "player_withdraw",
        "access_reset",
        "self_check_in_switch",
        "check_in_all",
        "payment_mark",
        "announcement_send",
        "entry_paid",
        "entry_refunded",
        "payout_made",
        "sponsor_paid",
        "display_link_create",
        "display_link_revoke",
        "waitlist_promote",
        "registration_remove",
    ]


@pytest.mark.django_db
@pytest.mark.parametrize("role", STAFF_ROLES + CONTROLS)
def test_each_role_is_refused_what_it_may_not_do_and_nothing_changes(role: str) -> None:
    scene = _scene()
    calls = _calls(scene)
    assert sorted(calls) == sorted(_calls_names())
    by = scene.people[role]
    refusals = 0
    for action, call in calls.items():
        if allowed(role, action):
            continue
        error = refused((NotAllowed, NotFound), scene.table.event, lambda: call(by))  # noqa: B023
        if role in STAFF_ROLES:
            # Staff are told it is their role, in plain words.
            assert isinstance(error, NotAllowed), (role, action, error)
            assert f"Your role in this event ({role}) does not include that" in error.message
        refusals += 1
    assert refusals == sum(not allowed(role, action) for action in calls)


@pytest.mark.django_db
@pytest.mark.parametrize("role", STAFF_ROLES)
def test_each_role_gets_past_the_guard_for_what_it_may_do(role: str) -> None:
    """Each allowed case on the night as it was built (what the one before wrote is rolled
    back): the action is made, or refused for the night's state (a started event does not open
    again), never for who asks; what it writes names the role."""
    actions = [action for action in _calls_names() if allowed(role, action)]
    made = []
    scene = _scene()
    by = scene.people[role]
    for action in actions:
        with rolled_back():
            before = scene.table.event.audit_entries.count()
            try:
                _calls(scene)[action](by)
            except DomainError as error:
                # Refused for the night's state (a missing result is a NotFound of its own),
                # never as someone who may not act on the registration.
                assert not isinstance(error, NotAllowed), (role, action, error)
                assert error.message != "No such registration.", (role, action)
                continue
            written = AuditEntry.objects.filter(event=scene.table.event).order_by("seq")[before:]
            assert written, (role, action)
            assert all(
                entry.actor_role == role for entry in written if entry.actor_kind == "house"
            ), (role, action)
        made.append(action)
    # The scene lets each role make at least its own kind of change.
    assert set(made) >= MADE_AT_LEAST[role], (role, made)


MADE_AT_LEAST = {
    "owner": {
        "house_member_add",
        "house_member_remove",
        "ownership_transfer",
        "staff_invitation_cancel",
        "review_resolve",
        "display_link_create",
        "display_link_revoke",
    },
    "director": {
        "review_resolve",
        "registration_close",
        "payment_mark",
        "result_submit",
        "display_link_create",
        "display_link_revoke",
    },
    "cashier": {"participant_add", "player_check_in", "payment_mark", "entry_paid"},
    "scorer": {"result_submit", "review_open"},
}


@pytest.mark.django_db
def test_the_matrix_counts_every_case() -> None:
    """actions x roles: 36 House actions, 4 staff roles and 2 controls."""
    cases = [(action, role) for action in _calls_names() for role in STAFF_ROLES + CONTROLS]
    refused_cases = [case for case in cases if not allowed(case[1], case[0])]
    assert (len(cases), len(refused_cases)) == (216, 216 - 36 - 31 - 10 - 5)


@pytest.mark.django_db
def test_the_bad_inputs_a_cashier_finalizing_and_a_scorer_confirming_the_pool() -> None:
    scene = _scene()
    event = scene.table.event
    error = refused(
        NotAllowed,
        event,
        lambda: services.event_finalize(event_id=event.pk, by=scene.people["cashier"]),
    )
    assert error.message == (
        "Your role in this event (cashier) does not include that (event finalize)."
    )
    refused(
        NotAllowed,
        event,
        lambda: services.pool_confirm(event_id=event.pk, by=scene.people["scorer"]),
    )


@pytest.mark.django_db
def test_a_series_role_holds_in_every_event_of_the_series() -> None:
    table = make_table("league")
    event = table.event
    bob = table.join("Bob")
    series = seasons.series_create(by=table.house, name="Thursday League").series_id
    seasons.event_series_set(event_id=event.pk, series_id=series, by=table.house)
    cashier = make_user("Series cashier")
    Membership.objects.create(
        scope_type=scope_type(Series), scope_id=series, user=cashier, role="cashier"
    )
    assert not Membership.objects.filter(event=event, user=cashier).exists()
    services.payment_mark(registration_id=table.rid(bob), by=cashier, paid=True)
    assert AuditEntry.objects.filter(event=event).order_by("-seq")[0].actor_role == "cashier"
    refused(NotAllowed, event, lambda: services.event_finalize(event_id=event.pk, by=cashier))


@pytest.mark.django_db
def test_an_event_keeps_one_owner() -> None:
    scene = _scene()
    event = scene.table.event
    owner = scene.people["owner"]
    refused(
        NotAllowed,
        event,
        lambda: services.house_member_remove(scope=Scope.of(event), by=owner, member=owner),
    )
    # A director may leave of their own accord.
    services.house_member_remove(
        scope=Scope.of(event), by=scene.people["director"], member=scene.people["director"]
    )
    services.ownership_transfer(scope=Scope.of(event), by=owner, member=scene.spare)
    assert list(
        Membership.objects.filter(event=event, role="owner").values_list("user", flat=True)
    ) == [scene.spare.pk]
    assert Membership.objects.get(event=event, user=owner).role == "director"
    refused(
        NotAllowed,
        event,
        lambda: services.ownership_transfer(scope=Scope.of(event), by=owner, member=scene.spare),
    )
