"""An event always has one owner, and every House entry names the role House acted in
(docs/decisions.md, "Roles" and "Staff changes name their role")."""

from __future__ import annotations

from functools import partial

import pytest

from audit.export import audit_entries
from audit.models import AuditEntry
from audit.verify import check_chain
from events import services
from events.errors import NotAllowed
from staff.models import Membership
from staff.scopes import Scope
from tests.events.support import entries, last
from tests.factories import make_table, make_user
from tests.refusals import refused

pytestmark = pytest.mark.django_db


def owners(event_id: int) -> list[int]:
    return list(
        Membership.objects.filter(event=event_id, role="owner").values_list("user_id", flat=True)
    )


def test_an_event_always_has_one_owner_whom_nobody_removes() -> None:
    table = make_table(players=1)
    event, owner = table.event, table.house
    site_staff = make_user("Sam", staff=True)  # site staff, on no staff of this event
    superuser = make_user("Root", staff=True)
    superuser.is_superuser = True
    superuser.save(update_fields=["is_superuser"])
    for by in (site_staff, superuser, owner):
        refused(
            NotAllowed,
            event,
            partial(services.house_member_remove, scope=Scope.of(event), by=by, member=owner),
        )
    assert owners(event.pk) == [owner.pk]
    # Ownership is handed over first; then the former owner, a director now, may be removed.
    heir = make_user("Heir")
    services.house_member_add(scope=Scope.of(event), by=site_staff, member=heir)
    services.ownership_transfer(scope=Scope.of(event), by=site_staff, member=heir)
    services.house_member_remove(scope=Scope.of(event), by=site_staff, member=owner)
    assert owners(event.pk) == [heir.pk]


def test_every_house_entry_names_the_acting_role() -> None:
    table = make_table(players=1)
    event = table.event
    site_staff = make_user("Sam", staff=True)
    cashier, director = make_user("Cass"), make_user("Dir")
    services.house_member_add(scope=Scope.of(event), by=site_staff, member=cashier, role="cashier")
    added = last(event, "house_member_added")
    assert (added.actor, added.actor_kind, added.actor_role) == ("House: Sam", "house", "site")
    # A member leaving acts in their own role, though leaving is not in the role's table.
    services.house_member_remove(scope=Scope.of(event), by=cashier, member=cashier)
    left = last(event, "house_member_removed")
    assert (left.actor, left.actor_kind, left.actor_role) == ("House: Cass", "house", "cashier")
    assert left.details == {"member": "Cass", "left": True}  # of their own accord, as in a series
    # An invitation accepted: the new member is named in the role they joined in.
    invited = services.staff_invite(
        scope=Scope.of(event), by=site_staff, email=cashier.email, role="scorer"
    )
    services.staff_invitation_accept(scope=Scope.of(event), by=cashier, token=invited.token)
    joined = last(event, "house_member_added")
    assert (joined.actor_kind, joined.actor_role) == ("house", "scorer")
    services.house_member_add(scope=Scope.of(event), by=site_staff, member=director)
    services.ownership_transfer(scope=Scope.of(event), by=site_staff, member=director)
    assert last(event, "ownership_transferred").actor_role == "site"
    cancelled = services.staff_invite(scope=Scope.of(event), by=director, email="x@example.com")
    services.staff_invitation_cancel(
        scope=Scope.of(event), by=site_staff, invitation_id=cancelled.invitation_id
    )
    assert last(event, "staff_invitation_cancelled").actor_role == "site"
    # No House entry without its role; no staff change recorded as a player's.
    staff_actions = {
        "house_member_added",
        "house_member_removed",
        "staff_role_set",
        "ownership_transferred",
        "staff_invited",
        "staff_invitation_cancelled",
    }
    check_chain(audit_entries(event))  # the verifier knows every role an entry names
    rows = entries(event)
    assert not [r.seq for r in rows if r.actor_kind == "house" and r.actor_role is None]
    assert not [r.seq for r in rows if r.action in staff_actions and r.actor_kind != "house"]
    by_site_staff = AuditEntry.objects.filter(event=event, actor_role="site")
    assert sorted(by_site_staff.values_list("action", flat=True)) == [
        "house_member_added",
        "house_member_added",
        "ownership_transferred",
        "staff_invitation_cancelled",
        "staff_invited",
    ]
