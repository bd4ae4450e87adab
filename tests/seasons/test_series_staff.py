"""A series' staff and its House actions (staff/roles.py, docs/decisions.md "Roles"): every
series House action tried by every role of the series, the owner, a director, a cashier, a
scorer, plus a player of a series event and an outsider as controls. An allowed role gets past
the guard (the change is made, or refused for the series' state, never for who asks); a refused
one is told so, and no row of the series, its seasons, staff, invitations or events changes.
Then each staff service on its own: roles, leaving, ownership, invitations."""

from __future__ import annotations

import datetime
from collections.abc import Callable, Iterator
from contextlib import contextmanager
from dataclasses import dataclass
from typing import Any

import pytest

from accounts.models import User
from audit.models import AuditEntry
from events import services as events
from events.errors import DomainError, Invalid, NotAllowed, NotFound, WrongState
from events.models import Event
from seasons import services
from seasons.models import Series
from staff.models import DisplayLink, Invitation, Membership
from staff.scopes import Scope
from tests.factories import make_table, make_user
from tests.refusals import every_field
from tests.seasons.support import seasons_snapshot

pytestmark = pytest.mark.django_db

STAFF_ROLES = ("owner", "director", "cashier", "scorer")
CONTROLS = ("player", "outsider")

# What each role may do in a series, written out here rather than read from the rule table.
SERIES_OWNER_ONLY = {
    "house_member_add",
    "house_member_remove",
    "ownership_transfer",
    "staff_invite",
}
SERIES_ACTIONS = (
    *sorted(SERIES_OWNER_ONLY),
    "series_defaults_set",
    "series_next_event",
    "season_create",
    "season_update",
    "championship_create",
    "display_link_create",
    "display_link_revoke",
)


def series_allowed(role: str, action: str) -> bool:
    if role == "owner":
        return True
    if role == "director":
        return action not in SERIES_OWNER_ONLY
    return False  # a cashier's and a scorer's work is in the events, not the series


@dataclass
class Crew:
    """A series with a past season and one event (Ann registered); each series role is held by
    an account of its own (the owner and the director are site staff too; House of a series who
    is not makes its events as well: tests/seasons/test_series_events.py)."""

    series_id: int
    season_id: int
    event_id: int
    people: dict[str, User]
    spare: User  # a director for the owner to remove or make owner
    newcomer: User  # an account on no staff, to appoint or invite
    link_id: int  # the series' projector link


def make_crew() -> Crew:
    table = make_table(players=0)
    founder = table.house
    series_id = services.series_create(by=founder, name="Thursday League").series_id
    services.event_series_set(event_id=table.event.pk, series_id=series_id, by=founder)
    season_id = services.season_create(
        series_id=series_id,
        by=founder,
        name="Autumn",
        starts_on=datetime.date(2026, 9, 1),
        ends_on=datetime.date(2026, 11, 30),
    ).season_id
    people = {
        "owner": make_user("Owner", staff=True),
        "director": make_user("Director", staff=True),
        "cashier": make_user("Cashier"),
        "scorer": make_user("Scorer"),
        "player": make_user("Ann"),
        "outsider": make_user("Outsider"),
    }
    table.register(people["player"])
    for role in ("director", "cashier", "scorer"):
        events.house_member_add(
            scope=Scope(Series, series_id), by=founder, member=people[role], role=role
        )
    spare = make_user("Spare")
    events.house_member_add(scope=Scope(Series, series_id), by=founder, member=spare)
    events.house_member_add(scope=Scope(Series, series_id), by=founder, member=people["owner"])
    events.ownership_transfer(scope=Scope(Series, series_id), by=founder, member=people["owner"])
    events.house_member_remove(scope=Scope(Series, series_id), by=founder, member=founder)
    link = events.display_link_create(
        scope=Scope(Series, series_id), by=people["owner"], label="Bar screen"
    )
    newcomer = make_user("Newcomer")
    return Crew(series_id, season_id, table.event.pk, people, spare, newcomer, link.link_id)


def series_calls(crew: Crew) -> dict[str, Callable[[User], object]]:
    """Each series House action, called by `by` on the crew's series."""
    s, season = crew.series_id, crew.season_id
    newcomer = crew.newcomer
    return {
        "house_member_add": lambda by: events.house_member_add(
            scope=Scope(Series, s), by=by, member=newcomer, role="scorer"
        ),
        "house_member_remove": lambda by: events.house_member_remove(
            scope=Scope(Series, s), by=by, member=crew.spare
        ),
        "ownership_transfer": lambda by: events.ownership_transfer(
            scope=Scope(Series, s), by=by, member=crew.spare
        ),
        "staff_invite": lambda by: events.staff_invite(
            scope=Scope(Series, s), by=by, email=newcomer.email, role="cashier"
        ),
        "series_defaults_set": lambda by: services.series_defaults_set(
            series_id=s, by=by, entry_mode="sponsored", minimum_age=21
        ),
        "series_next_event": lambda by: services.series_next_event(series_id=s, by=by),
        "season_create": lambda by: services.season_create(
            series_id=s,
            by=by,
            name="Spring",
            starts_on=datetime.date(2027, 1, 1),
            ends_on=datetime.date(2027, 3, 31),
        ),
        "season_update": lambda by: services.season_update(
            season_id=season, by=by, name="Autumn 2026"
        ),
        "championship_create": lambda by: services.championship_create(
            season_id=season, by=by, date=datetime.date(2026, 12, 10)
        ),
        "display_link_create": lambda by: events.display_link_create(
            scope=Scope(Series, s), by=by, label="Door screen"
        ),
        "display_link_revoke": lambda by: events.display_link_revoke(
            scope=Scope(Series, s), by=by, link_id=crew.link_id
        ),
    }


def everything(crew: Crew) -> dict[str, Any]:
    """Every row of the seasons app, the series' invitations, and every event with its audit."""
    return {
        **seasons_snapshot(),
        "invitations": every_field(Invitation.objects.of_kind(Series).order_by("pk")),
        "displays": every_field(DisplayLink.objects.order_by("pk")),
        "events": list(Event.objects.order_by("pk").values()),
        "audit": AuditEntry.objects.count(),
    }


@contextmanager
def nothing_changes(crew: Crew, what: str = "a refused change") -> Iterator[None]:
    before = everything(crew)
    yield
    assert everything(crew) == before, f"{what} changed something"


def refused_in_series(
    crew: Crew, error: type[DomainError] | tuple[type[DomainError], ...], call: Callable[[], object]
) -> DomainError:
    allowed = error if isinstance(error, tuple) else (error,)
    with nothing_changes(crew), pytest.raises(DomainError) as caught:
        call()
    assert type(caught.value) in allowed, caught.value
    return caught.value


def test_the_matrix_counts_every_case() -> None:
    """11 series House actions x 4 staff roles and 2 controls: 66 cases, 18 of them allowed."""
    cases = [(a, r) for a in SERIES_ACTIONS for r in STAFF_ROLES + CONTROLS]
    refused_cases = [case for case in cases if not series_allowed(case[1], case[0])]
    assert (len(cases), len(refused_cases)) == (66, 66 - 11 - 7)


@pytest.mark.parametrize("role", STAFF_ROLES + CONTROLS)
def test_each_role_is_refused_what_it_may_not_do_in_a_series_and_nothing_changes(
    role: str,
) -> None:
    crew = make_crew()
    calls = series_calls(crew)
    assert sorted(calls) == sorted(SERIES_ACTIONS)
    by = crew.people[role]
    refusals = 0
    for action, call in calls.items():
        if series_allowed(role, action):
            continue
        error = refused_in_series(crew, (NotAllowed, NotFound), lambda: call(by))  # noqa: B023
        if role == "outsider":
            # A stranger to the series is told it is not there (not found or not theirs).
            assert isinstance(error, NotFound), (role, action, error)
            assert error.message == "No such series.", (role, action, error.message)
            refusals += 1
            continue
        assert isinstance(error, NotAllowed), (role, action, error)
        if role in STAFF_ROLES:
            assert f"Your role in this series ({role}) does not include that" in error.message
        else:
            assert "Only House of this" in error.message, (role, action, error.message)
        refusals += 1
    assert refusals == sum(not series_allowed(role, action) for action in calls)


@pytest.mark.parametrize("role", ("owner", "director"))
def test_each_role_gets_past_the_guard_for_what_it_may_do_in_a_series(role: str) -> None:
    made = []
    for action in SERIES_ACTIONS:
        if not series_allowed(role, action):
            continue
        crew = make_crew()
        try:
            series_calls(crew)[action](crew.people[role])
        except DomainError as error:
            assert not isinstance(error, NotAllowed), (role, action, error)
            continue
        made.append(action)
    assert set(made) == {a for a in SERIES_ACTIONS if series_allowed(role, a)}, made


# Appointing and roles -----------------------------------------------------------------------


def _role(crew: Crew, user: User) -> str | None:
    held = Membership.objects.filter(series=crew.series_id, user=user).first()
    return None if held is None else held.role


def test_the_owner_appoints_with_a_role_and_changes_it_by_appointing_again() -> None:
    crew = make_crew()
    owner = crew.people["owner"]
    newcomer = crew.newcomer
    events.house_member_add(scope=Scope(Series, crew.series_id), by=owner, member=newcomer)
    assert _role(crew, newcomer) == "director"  # the default
    events.house_member_add(
        scope=Scope(Series, crew.series_id), by=owner, member=newcomer, role="cashier"
    )
    assert _role(crew, newcomer) == "cashier"
    # The new role holds in the series' events: a cashier checks players in, nothing more.
    refused_in_series(
        crew,
        NotAllowed,
        lambda: events.event_update(event_id=crew.event_id, by=newcomer, changes={"venue": "X"}),
    )


def test_owner_is_not_a_role_to_give_and_the_owner_keeps_theirs() -> None:
    crew = make_crew()
    owner = crew.people["owner"]
    error = refused_in_series(
        crew,
        Invalid,
        lambda: events.house_member_add(
            scope=Scope(Series, crew.series_id), by=owner, member=crew.spare, role="owner"
        ),
    )
    assert "handed over" in error.message
    refused_in_series(
        crew,
        Invalid,
        lambda: events.house_member_add(
            scope=Scope(Series, crew.series_id), by=owner, member=crew.spare, role="display"
        ),
    )
    refused_in_series(
        crew,
        NotAllowed,
        lambda: events.house_member_add(
            scope=Scope(Series, crew.series_id), by=owner, member=owner, role="scorer"
        ),
    )


def test_a_member_leaves_and_the_owner_does_not() -> None:
    crew = make_crew()
    for role in ("director", "cashier", "scorer"):
        person = crew.people[role]
        events.house_member_remove(scope=Scope(Series, crew.series_id), by=person, member=person)
        assert _role(crew, person) is None
    owner = crew.people["owner"]
    error = refused_in_series(
        crew,
        NotAllowed,
        lambda: events.house_member_remove(
            scope=Scope(Series, crew.series_id), by=owner, member=owner
        ),
    )
    assert "hands ownership over first" in error.message
    # Someone who is not on the staff cannot "leave" it: the series is not theirs.
    outsider = crew.people["outsider"]
    refused_in_series(
        crew,
        NotFound,
        lambda: events.house_member_remove(
            scope=Scope(Series, crew.series_id), by=outsider, member=outsider
        ),
    )


def test_ownership_is_handed_to_a_member_and_the_series_keeps_one_owner() -> None:
    crew = make_crew()
    owner = crew.people["owner"]
    refused_in_series(
        crew,
        NotAllowed,
        lambda: events.ownership_transfer(
            scope=Scope(Series, crew.series_id), by=owner, member=crew.people["outsider"]
        ),
    )
    answer = events.ownership_transfer(
        scope=Scope(Series, crew.series_id), by=owner, member=crew.spare
    )
    assert answer.owner == crew.spare.pk
    owners = Membership.objects.filter(series=crew.series_id, role="owner")
    assert list(owners.values_list("user_id", flat=True)) == [crew.spare.pk]
    assert _role(crew, owner) == "director"
    # The former owner is a director now: staff changes are no longer theirs.
    refused_in_series(
        crew,
        NotAllowed,
        lambda: events.ownership_transfer(
            scope=Scope(Series, crew.series_id), by=owner, member=owner
        ),
    )
    # Handing it to the owner again changes nothing.
    again = events.ownership_transfer(
        scope=Scope(Series, crew.series_id), by=crew.spare, member=crew.spare
    )
    assert again.owner == crew.spare.pk
    assert owners.count() == 1


# Invitations --------------------------------------------------------------------------------


def test_an_invitation_is_accepted_once_by_the_account_with_its_email() -> None:
    crew = make_crew()
    invited = events.staff_invite(
        scope=Scope(Series, crew.series_id),
        by=crew.people["owner"],
        email=f" {crew.newcomer.email.upper()} ",
        role="scorer",
    )
    assert invited.role == "scorer" and len(invited.token) >= 24
    row = Invitation.objects.get(pk=invited.invitation_id)
    assert row.email == crew.newcomer.email.upper() and row.invited_by == crew.people["owner"]
    # Someone else, signed in, is refused and changes nothing.
    error = refused_in_series(
        crew,
        NotAllowed,
        lambda: events.staff_invitation_accept(
            scope=Scope(Series, crew.series_id), by=crew.people["outsider"], token=invited.token
        ),
    )
    assert "another email address" in error.message
    refused_in_series(
        crew,
        NotFound,
        lambda: events.staff_invitation_accept(
            scope=Scope(Series, crew.series_id), by=crew.people["outsider"], token="not-a-token"
        ),
    )
    newcomer = crew.newcomer
    accepted = events.staff_invitation_accept(
        scope=Scope(Series, crew.series_id), by=newcomer, token=invited.token
    )
    assert accepted.role == "scorer" and _role(crew, newcomer) == "scorer"
    refused_in_series(
        crew,
        WrongState,
        lambda: events.staff_invitation_accept(
            scope=Scope(Series, crew.series_id), by=newcomer, token=invited.token
        ),
    )


def test_an_invitation_for_a_member_changes_their_role_but_never_the_owners() -> None:
    crew = make_crew()
    owner = crew.people["owner"]
    cashier = crew.people["cashier"]
    token = events.staff_invite(
        scope=Scope(Series, crew.series_id), by=owner, email=cashier.email, role="director"
    ).token
    events.staff_invitation_accept(scope=Scope(Series, crew.series_id), by=cashier, token=token)
    assert _role(crew, cashier) == "director"
    token = events.staff_invite(
        scope=Scope(Series, crew.series_id), by=owner, email=owner.email, role="scorer"
    ).token
    answer = events.staff_invitation_accept(
        scope=Scope(Series, crew.series_id), by=owner, token=token
    )
    assert answer.role == "owner" and _role(crew, owner) == "owner"


def test_bad_invitations_change_nothing() -> None:
    crew = make_crew()
    owner = crew.people["owner"]
    address = crew.newcomer.email
    for email, role in (("not an email", "cashier"), (address, "owner"), (address, "boss")):

        def invite(email: str = email, role: str = role) -> object:
            return events.staff_invite(
                scope=Scope(Series, crew.series_id), by=owner, email=email, role=role
            )

        refused_in_series(crew, Invalid, invite)
