"""A finalized event's settings page offers no staff change: every one would be refused
(docs/rules.md section 10.1), so no Appoint, Invite, Make owner, Remove, Withdraw or Leave form."""

from __future__ import annotations

import pytest
from django.test import Client

from events import services
from staff.scopes import Scope
from tests.factories import make_table, make_user
from tests.house.support import url

STAFF_FORMS = (
    "house_member_add",
    "staff_invite",
    "ownership_transfer",
    "house_member_remove",
    "staff_invitation_cancel",
    "house_leave",
)


def _forms_on(page: str, event_id: int, member_id: int, invitation_id: int) -> list[str]:
    paths = {
        "house_member_add": url("house_member_add", event_id),
        "staff_invite": url("staff_invite", event_id),
        "ownership_transfer": url("ownership_transfer", event_id, member_id),
        "house_member_remove": url("house_member_remove", event_id, member_id),
        "staff_invitation_cancel": url("staff_invitation_cancel", event_id, invitation_id),
    }
    shown = [name for name, path in paths.items() if f'action="{path}"' in page]
    return shown


@pytest.mark.django_db
def test_a_finalized_events_settings_offer_no_staff_form(client: Client) -> None:
    table = make_table(players=2, start=True)
    director = make_user("Dana")
    services.house_member_add(
        scope=Scope.of(table.event), by=table.house, member=director, role="director"
    )
    invited = services.staff_invite(
        scope=Scope.of(table.event), by=table.house, email="sam@example.com", role="scorer"
    )
    client.force_login(table.house)
    ids = (table.event.pk, director.pk, invited.invitation_id)
    running = client.get(url("event_edit", table.event.pk)).content.decode()
    assert _forms_on(running, *ids) == list(STAFF_FORMS[:-1])  # the owner leaves no event
    for player in table.players:
        table.play_out(player)
    services.pool_confirm(event_id=table.event.pk, by=table.house)
    services.event_finalize(event_id=table.event.pk, by=table.house)
    final = client.get(url("event_edit", table.event.pk)).content.decode()
    assert _forms_on(final, *ids) == []
    assert "data-final-staff" in final and "Dana" in final  # the staff are still listed
    director_client = Client()
    director_client.force_login(director)
    theirs = director_client.get(url("event_edit", table.event.pk)).content.decode()
    assert url("house_leave", table.event.pk) not in theirs
