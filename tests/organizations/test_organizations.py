"""Organizations (docs/decisions.md, "Organizations"): an organizer makes one and owns it, a few
a day at most; its owner and directors add venues and make events, within the operator's cap;
its staff's roles hold in its series and events through the runner's one chain; another
organization's staff reach nothing of it; a suspended one's House holds no role."""

from __future__ import annotations

import datetime
import threading
from typing import Any

import pytest
from django.db import close_old_connections
from django.test import Client, override_settings
from django.urls import reverse
from django.utils import timezone, translation

from accounts.models import User
from events import services as events
from events.answers import EventCreated
from events.errors import (
    DomainError,
    EventCapReached,
    NotAllowed,
    NotFound,
    OrganizationLimitReached,
    OrganizationSuspended,
    WrongState,
)
from events.models import Event
from events.runner import is_house, roles_of
from organizations import operator
from organizations import services as organizations
from organizations.home import HOME_SLUG
from organizations.models import Organization, OrganizationAuditEntry, Venue
from seasons import services as seasons
from seasons.models import Series, series_id_of
from staff.models import Membership
from staff.scopes import Scope
from tests.factories import make_table, make_user

pytestmark = pytest.mark.django_db

TOMORROW = datetime.date.today() + datetime.timedelta(days=1)


def organization_of(owner_name: str = "Olga") -> tuple[Organization, Venue]:
    owner = make_user(owner_name)
    made = organizations.organization_create(by=owner, name=f"{owner_name}'s League")
    organization = Organization.objects.get(pk=made.organization_id)
    venue_id = organizations.venue_create(
        organization_id=organization.pk, by=owner, name="The Dock", time_zone_name="America/Chicago"
    ).venue_id
    return organization, Venue.objects.get(pk=venue_id)


def owner_of(organization: Organization) -> User:
    return Membership.objects.of(organization).get(role="owner").user


def new_event(
    organization: Organization, venue: Venue, by: User | None = None, **more: Any
) -> EventCreated:
    return events.event_create(
        by=by or owner_of(organization),
        organization_id=organization.pk,
        venue_id=venue.pk,
        name="Friday",
        date=TOMORROW,
        format="league",
        **more,
    )


def test_it_makes_an_organization_owned_by_its_maker_with_its_audit() -> None:
    organization, venue = organization_of()
    owner = owner_of(organization)
    assert organization.created_by == owner
    actions = list(
        OrganizationAuditEntry.objects.filter(organization=organization)
        .order_by("seq")
        .values_list("action", "actor_role")
    )
    assert actions == [
        ("organization_created", "owner"),
        ("house_member_added", "owner"),
        ("venue_added", "owner"),
    ]
    assert venue.time_zone == "America/Chicago"


def test_an_organizer_needs_no_site_staff_to_make_an_event_and_open_registration() -> None:
    organization, venue = organization_of()
    owner = owner_of(organization)
    assert not owner.is_staff
    event = Event.objects.get(pk=new_event(organization, venue).event_id)
    assert (event.organization_id, event.place_id) == (organization.pk, venue.pk)
    # The venue's name and time zone, as pages, exports and the audit have always read them.
    assert (event.venue, event.time_zone) == ("The Dock", "America/Chicago")
    assert not event.staff.exists()  # their organization role holds in it
    assert roles_of(owner, event.pk) == {"owner"}
    events.registration_open(event_id=event.pk, by=owner)
    assert Event.objects.get(pk=event.pk).registration_open


def test_a_director_makes_events_and_a_cashier_does_not() -> None:
    organization, venue = organization_of()
    owner = owner_of(organization)
    director, cashier = make_user("Dee"), make_user("Cash")
    scope = Scope.of(organization)
    events.house_member_add(scope=scope, by=owner, member=director, role="director")
    events.house_member_add(scope=scope, by=owner, member=cashier, role="cashier")
    assert new_event(organization, venue, by=director).event_id
    before = Event.objects.count()
    with pytest.raises(NotAllowed):
        new_event(organization, venue, by=cashier)
    with pytest.raises(NotAllowed):
        organizations.venue_create(organization_id=organization.pk, by=cashier, name="Elsewhere")
    assert Event.objects.count() == before
    assert list(organization.venues.values_list("name", flat=True)) == ["The Dock"]
    # Staff changes are audited in the organization's own chain.
    assert (
        OrganizationAuditEntry.objects.filter(
            organization=organization, action="house_member_added"
        ).count()
        == 3
    )


def test_an_organization_role_holds_in_its_series_and_their_events() -> None:
    organization, _venue = organization_of()
    owner = owner_of(organization)
    scorer = make_user("Sam")
    events.house_member_add(scope=Scope.of(organization), by=owner, member=scorer, role="scorer")
    table = make_table(players=2)
    Event.objects.filter(pk=table.event.pk).update(organization=organization)
    assert roles_of(scorer, table.event.pk) == {"scorer"}
    assert is_house(scorer, table.event)
    events.house_member_remove(scope=Scope.of(organization), by=owner, member=scorer)
    assert roles_of(scorer, table.event.pk) == frozenset()


def test_another_organizations_staff_reach_nothing_of_it() -> None:
    mine, my_venue = organization_of("Olga")
    theirs, their_venue = organization_of("Tess")
    stranger = owner_of(theirs)
    event = Event.objects.get(pk=new_event(mine, my_venue).event_id)
    assert roles_of(stranger, event.pk) == frozenset()
    before = (Event.objects.count(), Venue.objects.count(), Membership.objects.count())
    # Not found or not theirs: the organization and its event are not there for them.
    with pytest.raises(NotFound, match=r"^No such organization\.$"):
        new_event(mine, my_venue, by=stranger)
    with pytest.raises(NotFound):  # another organization's venue is no venue of this one
        new_event(theirs, my_venue, by=stranger)
    with pytest.raises(NotFound, match=r"^No such organization\.$"):
        organizations.venue_create(organization_id=mine.pk, by=stranger, name="Mine now")
    with pytest.raises(NotFound, match=r"^No such organization\.$"):
        events.house_member_add(scope=Scope.of(mine), by=stranger, member=stranger)
    with pytest.raises(NotFound, match=r"^No such event\.$"):
        events.registration_open(event_id=event.pk, by=stranger)
    assert (Event.objects.count(), Venue.objects.count(), Membership.objects.count()) == before
    # Its House pages answer as missing ones do; its staff's emails are never shown.
    client = Client()
    client.force_login(stranger)
    assert client.get(reverse("organizations:organization", args=[mine.pk])).status_code == 404
    assert client.get(reverse("house:dashboard", args=[event.pk])).status_code == 404
    listed = client.get(reverse("house:events"))
    assert "Friday" not in listed.content.decode() or their_venue.name in listed.content.decode()
    assert owner_of(mine).email not in listed.content.decode()


@override_settings(ORGANIZATIONS_PER_USER_PER_DAY=2)
def test_an_organizer_makes_a_few_organizations_a_day_and_the_next_is_refused() -> None:
    organizer = make_user("Many")
    organizations.organization_create(by=organizer, name="One")
    organizations.organization_create(by=organizer, name="Two")
    before = Organization.objects.count()
    with pytest.raises(OrganizationLimitReached) as refused:
        organizations.organization_create(by=organizer, name="Three")
    assert refused.value.code == "organization_limit_reached"
    assert Organization.objects.count() == before


@override_settings(ORGANIZATIONS_PER_USER_PER_DAY=2)
@pytest.mark.django_db(transaction=True)
def test_organizations_sent_at_once_are_counted_in_turn() -> None:
    organizer = make_user("Rush")
    outcomes: list[str] = []
    start = threading.Barrier(5)

    def make(n: int) -> None:
        try:
            start.wait(timeout=60)
            organizations.organization_create(by=organizer, name=f"Rush {n}")
            outcomes.append("made")
        except DomainError as error:
            outcomes.append(error.code)
        finally:
            close_old_connections()

    threads = [threading.Thread(target=make, args=(n,)) for n in range(5)]
    for thread in threads:
        thread.start()
    for thread in threads:
        thread.join(timeout=120)
    assert sorted(outcomes) == ["made", "made", *["organization_limit_reached"] * 3]
    assert Organization.objects.filter(created_by=organizer).count() == 2


def test_the_operators_cap_refuses_the_next_event_and_changes_nothing() -> None:
    organization, venue = organization_of()
    operator.cap(slug=organization.slug, events_per_month=1)
    new_event(organization, venue)
    before = Event.objects.count()
    with pytest.raises(EventCapReached) as refused:
        new_event(organization, venue)
    assert refused.value.code == "event_cap_reached"
    assert Event.objects.count() == before
    operator.cap(slug=organization.slug, events_per_month=None)
    assert new_event(organization, venue).event_id


def test_a_suspended_organizations_house_is_refused_and_its_public_pages_stay() -> None:
    organization, venue = organization_of()
    owner = owner_of(organization)
    event = Event.objects.get(pk=new_event(organization, venue).event_id)
    events.registration_open(event_id=event.pk, by=owner)
    operator.suspend(slug=organization.slug)
    assert roles_of(owner, event.pk) == frozenset()
    with pytest.raises(OrganizationSuspended) as refused:
        new_event(organization, venue)
    assert refused.value.status == 403
    with pytest.raises(DomainError):
        events.registration_close(event_id=event.pk, by=owner)
    assert Event.objects.get(pk=event.pk).registration_open
    client = Client()
    client.force_login(owner)
    page = client.get(reverse("organizations:organization", args=[organization.pk]))
    assert page.status_code == 403
    assert b"organization_suspended" in page.content
    assert client.get(reverse("web:board", args=[event.pk])).status_code == 200
    operator.resume(slug=organization.slug)
    assert roles_of(owner, event.pk) == {"owner"}


def test_events_made_without_an_organization_belong_to_the_laptops() -> None:
    table = make_table(players=1)
    series = seasons.series_create(by=make_user("Site", staff=True), name="Thursdays")
    home = Organization.objects.get(slug=HOME_SLUG)
    assert table.event.organization_id == home.pk
    assert Organization.objects.get(series=series.series_id) == home
    assert timezone.now()  # the laptop needs nothing configured


def test_the_organization_page_and_the_events_list_show_its_events() -> None:
    organization, venue = organization_of()
    owner = owner_of(organization)
    new_event(organization, venue)
    client = Client()
    client.force_login(owner)
    listed = client.get(reverse("house:events")).content.decode()
    assert "Friday" in listed and organization.name in listed.replace("&#x27;", "'")
    page = client.get(reverse("organizations:organization", args=[organization.pk]))
    assert page.status_code == 200
    assert "The Dock" in page.content.decode()


def test_the_api_makes_an_organization_a_venue_and_an_event_in_it() -> None:
    organizer = make_user("Api")
    client = Client()
    client.force_login(organizer)

    def post(path: str, body: dict[str, object], key: str) -> Any:
        return client.post(
            path, body, content_type="application/json", headers={"Idempotency-Key": key}
        )

    made = post("/api/organizations/", {"name": "Api League"}, "o1")
    assert made.status_code == 201, made.content
    organization_id = made.json()["organization_id"]
    venue = post(
        f"/api/organizations/{organization_id}/venues/",
        {"name": "The Pier", "time_zone_name": "Europe/Paris"},
        "v1",
    )
    assert venue.status_code == 201, venue.content
    event = post(
        "/api/events/",
        {
            "name": "Api Night",
            "date": TOMORROW.isoformat(),
            "format": "league",
            "organization_id": organization_id,
            "venue_id": venue.json()["venue_id"],
        },
        "e1",
    )
    assert event.status_code == 201, event.content
    assert Event.objects.get(pk=event.json()["event_id"]).time_zone == "Europe/Paris"
    # Another organizer reaches nothing of it.
    other = Client()
    other.force_login(make_user("Other"))
    refused = other.post(
        f"/api/organizations/{organization_id}/venues/",
        {"name": "Theirs"},
        content_type="application/json",
        headers={"Idempotency-Key": "v2"},
    )
    assert refused.status_code == 404
    assert refused.json()["error"] == {"code": "not_found", "message": "No such organization."}
    assert Venue.objects.filter(organization_id=organization_id).count() == 1


def suspended_night() -> dict[str, Any]:
    """An organization's series, its season and a night at its venue, open; then the operator
    suspends it."""
    organization, venue = organization_of("Sue")
    owner = owner_of(organization)
    series_id = seasons.series_create(
        by=owner, name="Sue's Thursdays", organization_id=organization.pk, venue_id=venue.pk
    ).series_id
    season_id = seasons.season_create(
        series_id=series_id,
        by=owner,
        name="Autumn",
        starts_on=TOMORROW,
        ends_on=TOMORROW + datetime.timedelta(weeks=8),
    ).season_id
    event_id = events.event_create(
        by=owner,
        scope_above_id=series_id,
        venue_id=venue.pk,
        name="Friday",
        date=TOMORROW,
        format="league",
    ).event_id
    events.registration_open(event_id=event_id, by=owner)
    operator.suspend(slug=organization.slug)
    return {
        "organization": organization,
        "owner": owner,
        "series_id": series_id,
        "season_id": season_id,
        "event_id": event_id,
    }


def test_a_suspended_organizations_house_pages_answer_the_suspension_to_its_staff() -> None:
    night = suspended_night()
    event_id, series_id, season_id = night["event_id"], night["series_id"], night["season_id"]
    house_pages = [
        reverse("house:dashboard", args=[event_id]),
        reverse("house:event_edit", args=[event_id]),
        reverse("ledger:night", args=[event_id]),
        reverse("seasons:series", args=[series_id]),
        reverse("seasons:season_house", args=[season_id]),
        reverse("organizations:organization", args=[night["organization"].pk]),
    ]
    staff, stranger = Client(), Client()
    staff.force_login(night["owner"])
    stranger.force_login(make_user("Stranger"))
    for path in house_pages:
        page = staff.get(path)
        assert page.status_code == 403, path
        assert b'data-error-code="organization_suspended"' in page.content, path
        assert stranger.get(path).status_code == 404, path
    # A House form posted to it changes nothing.
    closed = staff.post(
        reverse("house:registration_close", args=[event_id]), {"idempotency_key": "k1"}
    )
    assert closed.status_code == 403
    assert Event.objects.get(pk=event_id).registration_open
    # Its public pages stay public, to its staff as to anyone.
    for path in (
        reverse("web:board", args=[event_id]),
        reverse("seasons:season", args=[season_id]),
    ):
        assert staff.get(path).status_code == 200, path
        assert Client().get(path).status_code == 200, path
    assert staff.get(reverse("web:event", args=[event_id])).status_code == 200


def test_a_suspended_organizations_house_api_answers_the_suspension_to_its_staff() -> None:
    night = suspended_night()
    event_id, series_id = night["event_id"], night["series_id"]
    staff, stranger = Client(), Client()
    staff.force_login(night["owner"])
    stranger.force_login(make_user("Stranger"))
    asked = [
        ("get", f"/api/events/{event_id}/house/", None),
        ("get", f"/api/events/{event_id}/cash-box/", None),
        ("post", f"/api/events/{event_id}/registration/close/", {}),
        ("patch", f"/api/events/{event_id}/", {"name": "Renamed"}),
        ("patch", f"/api/series/{series_id}/", {"capacity": 20}),
        ("post", f"/api/organizations/{night['organization'].pk}/venues/", {"name": "Annex"}),
    ]
    for n, (method, path, data) in enumerate(asked):
        for client, expected in (
            (staff, (403, "organization_suspended")),
            (stranger, (404, "not_found")),
        ):
            response = getattr(client, method)(
                path,
                data,
                content_type="application/json",
                headers={"Idempotency-Key": f"key-{n}"},
            )
            code = response.json()["error"]["code"]
            assert (response.status_code, code) == expected, (method, path, response.content)
    event = Event.objects.get(pk=event_id)
    assert (event.name, event.registration_open) == ("Friday", True)
    assert Venue.objects.filter(organization=night["organization"]).count() == 1


def test_staff_refusals_name_the_organization_in_the_readers_language() -> None:
    organization, _venue = organization_of()
    owner = owner_of(organization)
    scope = Scope.of(organization)
    with pytest.raises(WrongState) as alone:
        events.house_member_remove(scope=scope, by=owner, member=owner)
    assert alone.value.message == "An organization keeps at least one House member."
    events.house_member_add(scope=scope, by=owner, member=make_user("Deputy"), role="director")
    with pytest.raises(NotAllowed) as leaving:
        events.house_member_remove(scope=scope, by=owner, member=owner)
    assert leaving.value.message == (
        "The owner hands ownership over first: an organization keeps an owner."
    )
    with pytest.raises(NotAllowed) as handed:
        events.ownership_transfer(scope=scope, by=owner, member=make_user("Not on the staff"))
    assert handed.value.message == (
        "Ownership goes to a member of the organization's staff: appoint them first."
    )
    with translation.override("es"), pytest.raises(NotAllowed) as spanish:
        events.house_member_remove(scope=scope, by=owner, member=owner)
    assert "una organización conserva un propietario" in spanish.value.message
    with translation.override("fr"), pytest.raises(NotAllowed) as french:
        events.house_member_remove(scope=scope, by=owner, member=owner)
    assert "une organisation garde un propriétaire" in french.value.message


def test_a_series_of_an_organization_keeps_its_house_through_the_organization() -> None:
    organization, venue = organization_of()
    owner = owner_of(organization)
    series_id = seasons.series_create(
        by=owner, name="Thursdays", organization_id=organization.pk, venue_id=venue.pk
    ).series_id
    series = Scope(Series, series_id)
    assert not Membership.objects.of(Series.objects.get(pk=series_id)).exists()
    guest = make_user("Guest host")
    events.house_member_add(scope=series, by=owner, member=guest, role="director")
    # Its only member of its own may leave: the organization's staff hold it.
    events.house_member_remove(scope=series, by=guest, member=guest)
    assert roles_of(owner, new_event(organization, venue).event_id) == {"owner"}
    # A stranger is told the organization is not there; site staff are not needed.
    with pytest.raises(NotFound, match=r"^No such organization\.$"):
        seasons.series_create(
            by=make_user("Stranger"), name="Mine", organization_id=organization.pk
        )


def test_an_event_joins_no_series_of_another_organization_even_for_house_of_both() -> None:
    mine, my_venue = organization_of("Olga")
    owner = owner_of(mine)
    other = organizations.organization_create(by=owner, name="Olga's Other League")
    theirs = Organization.objects.get(pk=other.organization_id)
    their_venue = Venue.objects.get(
        pk=organizations.venue_create(
            organization_id=theirs.pk, by=owner, name="The Annex", time_zone_name="UTC"
        ).venue_id
    )
    their_series = seasons.series_create(
        by=owner, name="Annex League", organization_id=theirs.pk, venue_id=their_venue.pk
    ).series_id
    event = Event.objects.get(pk=new_event(mine, my_venue).event_id)
    with pytest.raises(DomainError, match="another organization") as refused:
        seasons.event_series_set(event_id=event.pk, series_id=their_series, by=owner)
    assert refused.value.code == "invalid"
    assert series_id_of(event.pk) is None


def test_owner_and_directors_open_a_series_at_a_venue_from_the_pages() -> None:
    organization, _ = organization_of()
    owner = owner_of(organization)
    director, cashier, stranger = make_user("Dora"), make_user("Cash"), make_user("Stan")
    scope = Scope.of(organization)
    events.house_member_add(scope=scope, by=owner, member=director, role="director")
    events.house_member_add(scope=scope, by=owner, member=cashier, role="cashier")
    page = f"{reverse('seasons:series_new')}?organization={organization.pk}"
    client = Client()
    client.force_login(owner)
    shown = client.get(reverse("organizations:organization", args=[organization.pk]))
    assert page in shown.content.decode().replace("&amp;", "&")
    form = client.get(page)
    assert form.status_code == 200
    assert '<option value="The Dock"' in form.content.decode()
    assert 'name="time_zone"' not in form.content.decode()  # the venue's

    # Neither a cashier nor a stranger to the organization finds the page; nothing is made.
    for someone in (cashier, stranger):
        client.force_login(someone)
        assert client.get(page).status_code == 404
        posted = {"name": "Theirs", "venue": "The Dock", "idempotency_key": "s0"}
        assert client.post(page, posted).status_code == 404
    assert not Series.objects.filter(organization=organization).exists()

    # A venue that is not the organization's is refused, and nothing is made.
    client.force_login(director)
    refused = client.post(
        page, {"name": "Thursday League", "venue": "Elsewhere", "idempotency_key": "s1"}
    )
    assert refused.status_code == 400
    assert "Pick one of the organization&#x27;s venues." in refused.content.decode()
    assert not Series.objects.filter(organization=organization).exists()

    made = client.post(
        page, {"name": "Thursday League", "venue": "The Dock", "idempotency_key": "s2"}
    )
    series = Series.objects.get(organization=organization)
    assert made.status_code == 302 and made["Location"] == reverse(
        "seasons:series", args=[series.pk]
    )
    assert (series.name, series.venue, series.time_zone) == (
        "Thursday League",
        "The Dock",
        "America/Chicago",
    )
    client.force_login(owner)
    listed = client.get(reverse("organizations:organization", args=[organization.pk]))
    assert "Thursday League" in listed.content.decode()
    assert client.get(reverse("seasons:series", args=[series.pk])).status_code == 200
