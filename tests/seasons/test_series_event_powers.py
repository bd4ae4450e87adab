"""Powers in a series' events follow the series (docs/decisions.md, "An event's owner in a
series"): the series' owner owns every event of it, an event has no owner of its own while in a
series, and removal from the series removes a member from each of its events."""

from __future__ import annotations

from dataclasses import dataclass

import pytest
from django.test import Client
from django.urls import reverse

from accounts.models import User
from events import services as events
from events.errors import NotAllowed, NotFound, WrongState
from events.models import Event
from events.runner import is_house, roles_of
from seasons import services
from seasons.models import Series
from staff.models import Membership
from staff.scopes import Scope
from tests.api.support import Api
from tests.events.support import last
from tests.factories import make_table, make_user
from tests.refusals import refused

pytestmark = pytest.mark.django_db


@dataclass
class Handover:
    series_id: int
    event_id: int  # made with "Next event" by the first owner
    former: User  # the first owner, not site staff, removed from the series
    owner: User  # the owner after the handover, not site staff


def handed_over() -> Handover:
    table = make_table(players=0)
    founder = table.house  # site staff: opens the series, then leaves it to Ada
    series_id = services.series_create(by=founder, name="Thursday League").series_id
    services.event_series_set(event_id=table.event.pk, series_id=series_id, by=founder)
    ada, bea = make_user("Ada"), make_user("Bea")
    events.house_member_add(scope=Scope(Series, series_id), by=founder, member=ada)
    events.ownership_transfer(scope=Scope(Series, series_id), by=founder, member=ada)
    events.house_member_remove(scope=Scope(Series, series_id), by=founder, member=founder)
    event_id = services.series_next_event(series_id=series_id, by=ada).event_id
    events.house_member_add(scope=Scope(Series, series_id), by=ada, member=bea)
    events.ownership_transfer(scope=Scope(Series, series_id), by=ada, member=bea)
    events.house_member_remove(scope=Scope(Series, series_id), by=bea, member=ada)
    return Handover(series_id, event_id, ada, bea)


def test_a_former_series_owner_keeps_no_power_in_its_events() -> None:
    case = handed_over()
    event = Event.objects.get(pk=case.event_id)
    assert roles_of(case.former, event.pk) == frozenset()
    assert not is_house(case.former, event)
    assert roles_of(case.owner, event.pk) == {"owner"}
    refused(
        NotFound,  # a draft answers to a stranger as a missing event
        event,
        lambda: events.house_member_add(
            scope=Scope.of(event), by=case.former, member=make_user("Pal"), role="director"
        ),
    )
    # Over the API and the pages as well: nothing to open, appoint, announce or read.
    api = Api(case.former)
    pal = make_user("Pal 2")
    before = Membership.objects.filter(event=event).count()
    assert api.post(f"/api/events/{event.pk}/house-members/", {"user_id": pal.pk}).status_code in (
        403,
        404,
    )
    assert api.get(f"/api/events/{event.pk}/audit/").status_code in (403, 404)
    assert api.client.get(f"/house/events/{event.pk}/").status_code == 404
    assert Membership.objects.filter(event=event).count() == before
    # The new owner owns the event: staff changes in it are theirs.
    events.house_member_add(scope=Scope.of(event), by=case.owner, member=pal, role="cashier")
    assert last(event, "house_member_added").actor_role == "owner"


def test_removal_from_a_series_removes_the_member_from_each_of_its_events() -> None:
    case = handed_over()
    event = Event.objects.get(pk=case.event_id)
    carl = make_user("Carl")
    events.house_member_add(
        scope=Scope(Series, case.series_id), by=case.owner, member=carl, role="scorer"
    )
    events.house_member_add(scope=Scope.of(event), by=case.owner, member=carl, role="cashier")
    assert roles_of(carl, event.pk) == {"scorer", "cashier"}
    events.house_member_remove(scope=Scope(Series, case.series_id), by=case.owner, member=carl)
    assert roles_of(carl, event.pk) == frozenset()
    removed = last(event, "house_member_removed")
    assert removed.details == {"member": "Carl", "series": case.series_id}
    assert (removed.actor, removed.actor_role) == ("House: Bea", "owner")
    # A member who leaves the series leaves its events too, in their own role.
    dora = make_user("Dora")
    events.house_member_add(
        scope=Scope(Series, case.series_id), by=case.owner, member=dora, role="scorer"
    )
    events.house_member_add(scope=Scope.of(event), by=case.owner, member=dora, role="director")
    events.house_member_remove(scope=Scope(Series, case.series_id), by=dora, member=dora)
    assert not Membership.objects.filter(event=event, user=dora).exists()
    left = last(event, "house_member_removed")
    assert (left.actor, left.actor_kind, left.actor_role) == ("House: Dora", "house", "scorer")


def test_an_event_of_a_series_is_owned_by_the_series_owner_and_keeps_an_owner_when_it_leaves() -> (
    None
):
    case = handed_over()
    table = make_table(players=0)  # an event of its own, owned by its creator
    creator = table.house
    events.house_member_add(scope=Scope(Series, case.series_id), by=case.owner, member=creator)
    services.event_series_set(event_id=table.event.pk, series_id=case.series_id, by=creator)
    staff = dict(Membership.objects.filter(event=table.event).values_list("user_id", "role"))
    assert staff == {creator.pk: "director"}  # the series' owner owns it now
    demoted = last(table.event, "staff_role_set")
    assert demoted.details == {"member": "House", "role": "director", "series": case.series_id}
    assert roles_of(case.owner, table.event.pk) == {"owner"}
    # Its ownership is the series': it is not handed over in the event.
    refused(
        WrongState,
        table.event,
        lambda: events.ownership_transfer(
            scope=Scope.of(table.event), by=case.owner, member=creator
        ),
    )
    # Taken out of the series, the event keeps the owner it had: the series' owner, its own now.
    services.event_series_set(event_id=table.event.pk, series_id=None, by=case.owner)
    owners = Membership.objects.filter(event=table.event, role="owner")
    assert list(owners.values_list("user_id", flat=True)) == [case.owner.pk]
    assert last(table.event, "house_member_added").details == {"member": "Bea", "role": "owner"}


def test_a_series_director_cannot_take_the_events_staff_in_hand() -> None:
    case = handed_over()
    event = Event.objects.get(pk=case.event_id)
    director = make_user("Dan")
    events.house_member_add(scope=Scope(Series, case.series_id), by=case.owner, member=director)
    refused(
        NotAllowed,
        event,
        lambda: events.house_member_remove(scope=Scope.of(event), by=director, member=case.owner),
    )


def test_the_settings_page_of_a_series_event_names_the_series_owner_and_offers_no_handover() -> (
    None
):
    case = handed_over()
    event = Event.objects.get(pk=case.event_id)
    cashier = make_user("Cass")
    events.house_member_add(scope=Scope.of(event), by=case.owner, member=cashier, role="cashier")
    page = Client()
    page.force_login(case.owner)
    html = page.get(reverse("house:event_edit", args=[event.pk])).content.decode()
    assert "data-series-owner" in html and "the series' owner, Bea" in html
    assert reverse("house:ownership_transfer", args=[event.pk, cashier.pk]) not in html
    assert reverse("house:house_member_remove", args=[event.pk, cashier.pk]) in html
    # In an event of no series, the owner's own row offers no removal: the owner stays.
    lone = make_table(players=0)
    site = Client()
    site.force_login(make_user("Site", staff=True))
    html = site.get(reverse("house:event_edit", args=[lone.event.pk])).content.decode()
    assert "data-series-owner" not in html
    assert reverse("house:house_member_remove", args=[lone.event.pk, lone.house.pk]) not in html
