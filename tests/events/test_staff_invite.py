"""`staff_invite` and `staff_invitation_accept`: the owner invites by email with a role; a
signed-in user with that email joins the staff once (docs/decisions.md, "Roles")."""

from __future__ import annotations

import datetime
from functools import partial

import pytest

from accounts.models import User
from audit.models import AuditEntry
from events import services
from events.errors import Invalid, NotAllowed, NotFound, WrongState
from events.models import Event
from staff.models import Invitation, Membership
from staff.scopes import Scope
from tests.factories import make_table, make_user
from tests.refusals import refused

pytestmark = pytest.mark.django_db


def _invitee(email: str) -> User:
    user = make_user("Casey")
    User.objects.filter(pk=user.pk).update(email=email)
    user.refresh_from_db()
    return user


def test_the_invitee_joins_in_the_role_once_and_the_audit_holds_no_email() -> None:
    table = make_table()
    event = table.event
    invited = services.staff_invite(
        scope=Scope.of(event), by=table.house, email="casey@example.com", role="cashier"
    )
    casey, stranger = _invitee("Casey@Example.com"), make_user("Stranger")
    refused(
        NotAllowed,
        event,
        lambda: services.staff_invitation_accept(
            scope=Scope.of(event), by=stranger, token=invited.token
        ),
    )
    refused(
        NotFound,
        event,
        lambda: services.staff_invitation_accept(scope=Scope.of(event), by=casey, token="forged"),
    )
    accepted = services.staff_invitation_accept(
        scope=Scope.of(event), by=casey, token=invited.token
    )
    assert accepted.role == "cashier"
    assert Membership.objects.get(event=event, user=casey).role == "cashier"
    refused(
        WrongState,
        event,
        lambda: services.staff_invitation_accept(
            scope=Scope.of(event), by=casey, token=invited.token
        ),
    )
    written = AuditEntry.objects.filter(event=event, action__in=["staff_invited"]).get()
    assert written.details == {"invitation": invited.invitation_id, "role": "cashier"}
    assert "example.com" not in str(list(AuditEntry.objects.filter(event=event).values()))


def test_only_the_owner_invites_and_only_to_a_role_below_owner() -> None:
    table = make_table()
    event = table.event
    director = make_user("Dee")
    services.house_member_add(scope=Scope.of(event), by=table.house, member=director)
    error = refused(
        NotAllowed,
        event,
        lambda: services.staff_invite(scope=Scope.of(event), by=director, email="x@example.com"),
    )
    assert "(director)" in error.message
    for email, role in (("x@example.com", "owner"), ("not an email", "scorer")):
        refused(Invalid, event, partial(_invite, event.pk, table.house, email, role))
    assert not Invitation.objects.of_kind(Event).exists()


def _invite(event_id: int, by: User, email: str, role: str) -> object:
    return services.staff_invite(scope=Scope(Event, event_id), by=by, email=email, role=role)


def test_an_invitation_to_a_draft_event_can_be_accepted() -> None:
    site = make_user("Site", staff=True)

    event_id = services.event_create(
        by=site, name="Friday", date=datetime.date(2026, 12, 5), format="league"
    ).event_id
    token = services.staff_invite(
        scope=Scope(Event, event_id), by=site, email="s@example.com"
    ).token
    scorer = _invitee("s@example.com")
    assert (
        services.staff_invitation_accept(scope=Scope(Event, event_id), by=scorer, token=token).role
        == "director"
    )


def test_a_withdrawn_invitation_cannot_be_accepted_and_an_accepted_one_cannot_be_withdrawn() -> (
    None
):
    table = make_table()
    event = table.event
    first = services.staff_invite(scope=Scope.of(event), by=table.house, email="one@example.com")
    second = services.staff_invite(scope=Scope.of(event), by=table.house, email="two@example.com")
    services.staff_invitation_cancel(
        scope=Scope.of(event), by=table.house, invitation_id=first.invitation_id
    )
    one = _invitee("one@example.com")
    refused(
        NotFound,
        event,
        lambda: services.staff_invitation_accept(scope=Scope.of(event), by=one, token=first.token),
    )
    two = _invitee("two@example.com")
    services.staff_invitation_accept(scope=Scope.of(event), by=two, token=second.token)
    refused(
        WrongState,
        event,
        lambda: services.staff_invitation_cancel(
            scope=Scope.of(event), by=table.house, invitation_id=second.invitation_id
        ),
    )
    refused(
        NotFound,
        event,
        lambda: services.staff_invitation_cancel(
            scope=Scope.of(event), by=table.house, invitation_id=first.invitation_id
        ),
    )
    assert Invitation.objects.filter(event=event).count() == 1
