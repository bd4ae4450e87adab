"""Creating and editing an event, and appointing House members by email."""

from __future__ import annotations

import datetime
import zoneinfo

import pytest

from events import services
from events.models import Event
from staff.scopes import Scope
from tests.factories import make_table, make_user
from tests.house.support import house_client, post, refused_by_page, url
from tests.refusals import said

SETTINGS = {
    "name": "Friday Switch",
    "venue": "The Barn",
    "date": "2026-12-04",
    "time_zone": "America/Chicago",
    "format": "switch",
    "contribution": "20",
    "extra_decks": "2",
    "remainder_policy": "Unallocated dollars go to the next event.",
}


@pytest.mark.django_db
def test_it_creates_an_event_in_draft_for_site_staff(client):
    staff = make_user("Stella", staff=True)
    client.force_login(staff)
    assert client.get(url("event_new")).status_code == 200
    response = client.post(url("event_new"), {**SETTINGS, "idempotency_key": "k1"})
    event = Event.objects.get(name="Friday Switch")
    assert response.status_code == 302
    assert response["Location"] == url("dashboard", event.pk)
    assert (event.phase, event.format, event.contribution, event.extra_decks) == (
        "draft",
        "switch",
        20,
        2,
    )
    assert event.time_zone == "America/Chicago"
    assert [m.user for m in event.staff.all()] == [staff]


@pytest.mark.django_db
def test_it_keeps_a_double_submitted_create_to_one_event(client):
    staff = make_user("Stella", staff=True)
    client.force_login(staff)
    client.post(url("event_new"), {**SETTINGS, "idempotency_key": "same"})
    client.post(url("event_new"), {**SETTINGS, "idempotency_key": "same"})
    assert Event.objects.filter(name="Friday Switch").count() == 1


@pytest.mark.django_db
def test_it_answers_404_for_new_event_to_non_staff(client):
    client.force_login(make_user("Pat"))
    assert client.get(url("event_new")).status_code == 404
    assert client.post(url("event_new"), SETTINGS).status_code == 404
    assert not Event.objects.exists()


@pytest.mark.django_db
def test_it_shows_form_errors_and_creates_nothing(client):
    client.force_login(make_user("Stella", staff=True))
    bad = {**SETTINGS, "time_zone": "Mars/Olympus", "contribution": "-5"}
    response = client.post(url("event_new"), bad)
    assert response.status_code == 200
    page = response.content.decode()
    assert "is not a time zone" in page
    assert "Ensure this value is greater than or equal to 0." in page
    assert not Event.objects.exists()


@pytest.mark.django_db
def test_it_edits_the_draft_settings(client):
    table = make_table("league")
    house_client(client, table)
    page = client.get(url("event_edit", table.event.pk)).content.decode()
    assert 'value="Thursday League"' in page
    response = client.post(
        url("event_edit", table.event.pk), {**SETTINGS, "idempotency_key": "edit-1"}
    )
    assert response.status_code == 302
    event = table.refresh()
    assert (event.name, event.format, event.extra_decks) == ("Friday Switch", "switch", 2)
    assert "Settings saved." in said(response)


@pytest.mark.django_db
def test_it_shows_the_services_message_for_a_paid_event_without_remainder_policy(client):
    table = make_table("league")  # registration is open
    house_client(client, table)
    response = client.post(
        url("event_edit", table.event.pk),
        {**SETTINGS, "remainder_policy": "", "idempotency_key": "edit-2"},
    )
    assert response.status_code == 200
    assert (
        "Registration has opened, so a paid event keeps its remainder policy"
        in response.content.decode()
    )
    assert table.refresh().name == "Thursday League"


@pytest.mark.django_db
def test_it_refuses_to_open_registration_for_a_paid_event_without_a_policy(client):
    staff = make_user("Stella", staff=True)
    client.force_login(staff)
    client.post(url("event_new"), {**SETTINGS, "remainder_policy": "", "idempotency_key": "k"})
    event = Event.objects.get()
    from tests.factories import Table

    table = Table(event=event, house=staff)
    refused_by_page(
        client,
        table,
        "registration_open",
        event.pk,
        message="Registration cannot open yet: a paid event ($20 per participant) needs its "
        "remainder policy first, saying how an indivisible High remainder will be handled. Set it "
        "in the event's settings.",
    )


@pytest.mark.django_db
def test_the_dashboard_says_why_a_paid_event_cannot_open_registration_and_links_to_the_policy(
    client,
):
    """A paid event created without a remainder policy: the creation message and the registration
    switch say in plain words that registration waits for the policy, and link to the setting;
    there is no "Open registration" button to be refused."""
    staff = make_user("Stella", staff=True)
    client.force_login(staff)
    response = client.post(
        url("event_new"), {**SETTINGS, "remainder_policy": "", "idempotency_key": "k"}
    )
    event = Event.objects.get()
    assert said(response) == [
        "Event created as a draft. It is a paid event: set its remainder policy in Settings "
        "before opening registration."
    ]
    page = client.get(url("dashboard", event.pk)).content.decode()
    assert "Registration cannot open yet" in page
    assert "needs its remainder policy first" in page
    assert f'href="{url("event_edit", event.pk)}#id_remainder_policy"' in page
    assert url("registration_open", event.pk) not in page
    form = client.get(url("event_edit", event.pk)).content.decode()
    assert 'id="id_remainder_policy"' in form
    assert "needs it before registration opens" in form

    client.post(
        url("event_edit", event.pk),
        {**SETTINGS, "remainder_policy": "It rolls over.", "idempotency_key": "edit"},
    )
    page = client.get(url("dashboard", event.pk)).content.decode()
    assert url("registration_open", event.pk) in page
    assert "Registration cannot open yet" not in page


@pytest.mark.django_db
def test_the_dashboard_says_registration_cannot_reopen_once_the_pool_was_confirmed(client):
    table = make_table("league", players=2, start=True)
    services.registration_close(event_id=table.event.pk, by=table.house)
    services.pool_confirm(event_id=table.event.pk, by=table.house)
    services.participant_add(event_id=table.event.pk, by=table.house, player=make_user("Lou"))
    house_client(client, table)
    page = client.get(url("dashboard", table.event.pk)).content.decode()
    assert "The pool has been confirmed, so registration cannot reopen." in page
    assert url("registration_open", table.event.pk) not in page
    assert "Pool changed: confirm again." in page


@pytest.mark.django_db
def test_it_locks_the_settings_after_the_start(client):
    table = make_table("league", players=2, start=True)
    house_client(client, table)
    page = client.get(url("event_edit", table.event.pk)).content.decode()
    assert "its settings are locked" in page
    assert "disabled" in page
    response = client.post(
        url("event_edit", table.event.pk), {**SETTINGS, "idempotency_key": "late"}
    )
    # Disabled fields keep their values; the service still refuses any change after the start.
    assert response.status_code in (200, 302)
    assert table.refresh().name == "Thursday League"


@pytest.mark.django_db
def test_it_shows_the_refusal_when_settings_change_after_the_start(client, monkeypatch):
    from house import forms

    table = make_table("league", players=2, start=True)
    house_client(client, table)
    monkeypatch.setattr(forms.EventForm, "__init__", _unlocked_init(forms.EventForm.__init__))
    response = client.post(
        url("event_edit", table.event.pk), {**SETTINGS, "idempotency_key": "late-2"}
    )
    assert response.status_code == 200
    assert "Settings can only change before the event starts." in response.content.decode()
    assert table.refresh().name == "Thursday League"


def _unlocked_init(original):
    def init(self, *args, locked=False, **kwargs):
        original(self, *args, locked=False, **kwargs)

    return init


@pytest.mark.django_db
def test_it_appoints_and_removes_house_members_by_email(client):
    table = make_table("league")
    helper = make_user("Helper")
    house_client(client, table)
    response = post(client, "house_member_add", table.event.pk, email=helper.email.upper())
    assert response.status_code == 302
    assert response["Location"].endswith("/edit#house")
    assert table.event.staff.filter(user=helper).exists()
    assert f"{helper.display_name} is House for this event (director)." in said(response)
    page = client.get(url("event_edit", table.event.pk)).content.decode()
    assert "Helper" in page
    response = post(client, "house_member_remove", table.event.pk, helper.pk)
    assert not table.event.staff.filter(user=helper).exists()


@pytest.mark.django_db
def test_it_says_when_no_account_uses_the_email(client):
    table = make_table("league")
    house_client(client, table)
    response = post(client, "house_member_add", table.event.pk, email="ghost@example.com")
    assert "No Syndicate Account uses that email: they sign up first." in said(response)
    assert [m.user for m in table.event.staff.all()] == [table.house]


@pytest.mark.django_db
def test_it_lets_only_site_staff_and_the_owner_appoint_house_members(client):
    """A director (a House member the owner appointed) runs the night but not its staff."""
    table = make_table("league")
    helper = make_user("Helper")
    table.event.staff.create(user=helper)
    client.force_login(helper)
    someone = make_user("Someone")
    response = post(client, "house_member_add", table.event.pk, email=someone.email)
    assert "Your role in this event (director) does not include that" in said(response)[0]
    assert not table.event.staff.filter(user=someone).exists()


@pytest.mark.django_db
def test_the_owner_appoints_a_member_with_a_role_and_sees_each_role(client):
    table = make_table("league")
    owner, cashier = make_user("Olive"), make_user("Cash")
    services.house_member_add(scope=Scope.of(table.event), by=table.house, member=owner)
    services.ownership_transfer(scope=Scope.of(table.event), by=table.house, member=owner)
    client.force_login(owner)
    response = post(client, "house_member_add", table.event.pk, email=cashier.email, role="cashier")
    assert f"{cashier.display_name} is House for this event (cashier)." in said(response)
    page = client.get(url("event_edit", table.event.pk)).content.decode()
    assert '<span class="chip muted" data-role>cashier</span>' in page
    assert '<span class="chip muted" data-role>owner</span>' in page
    assert 'name="role"' in page


@pytest.mark.django_db
def test_it_sets_the_capacity_window_holds_and_paying_ahead_in_the_venues_time(client):
    staff = make_user("Stella", staff=True)
    client.force_login(staff)
    page = client.get(url("event_new")).content.decode()
    assert 'name="capacity"' in page and 'type="datetime-local"' in page
    assert "Stripe is not configured here" in page  # players pay at the door then
    ahead = {
        "capacity": "64",
        "registration_opens_at": "2026-11-27T09:00",
        "registration_closes_at": "2026-12-04T18:30",
        "hold_minutes": "45",
        "day_hold_minutes": "5",
        "pay_ahead": "on",
    }
    response = client.post(url("event_new"), {**SETTINGS, **ahead, "idempotency_key": "k1"})
    assert response.status_code == 302
    event = Event.objects.get(name="Friday Switch")
    chicago = zoneinfo.ZoneInfo("America/Chicago")
    assert event.capacity == 64
    assert event.registration_opens_at == datetime.datetime(2026, 11, 27, 9, 0, tzinfo=chicago)
    assert event.registration_closes_at == datetime.datetime(2026, 12, 4, 18, 30, tzinfo=chicago)
    assert (event.hold_minutes, event.day_hold_minutes, event.pay_ahead) == (45, 5, True)
    # Shown again as typed, in the venue's time; emptied, the cap and the window go.
    edit = client.get(url("event_edit", event.pk)).content.decode()
    assert 'value="2026-12-04T18:30"' in edit
    cleared = {**ahead, "capacity": "", "registration_opens_at": "", "idempotency_key": "k2"}
    client.post(url("event_edit", event.pk), {**SETTINGS, **cleared})
    event.refresh_from_db()
    assert (event.capacity, event.registration_opens_at) == (None, None)
    refused = client.post(
        url("event_edit", event.pk),
        {
            **SETTINGS,
            **ahead,
            "registration_closes_at": "2026-11-01T10:00",
            "idempotency_key": "k3",
        },
    )
    assert (
        "Registration closes after it opens: set the closing after the opening."
        in refused.content.decode()
    )
    event.refresh_from_db()
    assert event.capacity is None
