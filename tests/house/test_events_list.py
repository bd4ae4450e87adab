"""The House event list: the events this user runs; site staff may create one."""

from __future__ import annotations

import pytest

from events import services
from staff.scopes import Scope
from tests.factories import make_table, make_user
from tests.house.support import url


@pytest.mark.django_db
def test_it_lists_only_the_events_the_user_is_house_for(client):
    mine = make_table("league", players=2)
    theirs = make_table("switch")
    theirs.event.name = "Someone else's night"
    theirs.event.save(update_fields=["name"])
    client.force_login(mine.house)
    page = client.get(url("events")).content.decode()
    assert url("dashboard", mine.event.pk) in page
    assert url("dashboard", theirs.event.pk) not in page
    assert "Someone else" not in page


@pytest.mark.django_db
def test_it_shows_the_new_event_button_to_site_staff_only(client):
    table = make_table("league")
    member = make_user("Helper")
    services.house_member_add(scope=Scope.of(table.event), by=table.house, member=member)
    client.force_login(member)
    page = client.get(url("events")).content.decode()
    assert url("dashboard", table.event.pk) in page
    assert "New event" not in page
    client.force_login(table.house)
    assert "New event" in client.get(url("events")).content.decode()


@pytest.mark.django_db
def test_it_tells_a_user_with_no_events(client):
    client.force_login(make_user("Nobody"))
    page = client.get(url("events")).content.decode()
    assert "You are not House for any event yet." in page
