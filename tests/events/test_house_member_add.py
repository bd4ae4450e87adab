"""`house_member_add` and `house_member_remove`: site staff appoint each event's House
(docs/rules.md section 1.2)."""

from __future__ import annotations

import pytest

from events import services
from events.errors import NotAllowed, NotFound
from staff.scopes import Scope
from tests.events.support import last
from tests.factories import make_table, make_user
from tests.refusals import refused


@pytest.mark.django_db
def test_it_lets_site_staff_appoint_house_members():
    """Site staff ... appoint each event's House members."""
    table = make_table("league", players=2)
    member = make_user("Max")
    refused(
        NotAllowed,
        table.event,
        lambda: services.house_member_add(
            scope=Scope.of(table.event), by=table.players[0], member=member
        ),
    )
    staff = make_user("Sam", staff=True)
    services.house_member_add(scope=Scope.of(table.event), by=staff, member=member)
    assert last(table.event, "house_member_added").details == {"member": "Max", "role": "director"}
    services.house_member_remove(scope=Scope.of(table.event), by=staff, member=member)
    assert last(table.event, "house_member_removed").details == {"member": "Max"}
    refused(  # no role and no place in it any more: the event is not theirs
        NotFound,
        table.event,
        lambda: services.event_start(event_id=table.event.pk, by=member),
    )
    services.house_member_add(scope=Scope.of(table.event), by=staff, member=member)
    services.event_start(event_id=table.event.pk, by=member)  # House for this event again
    assert table.refresh().phase == "started"
