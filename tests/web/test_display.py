"""A display link's page (web/display.py, docs/decisions.md "Display links"): the board in kiosk
mode with the check-in code to a laptop that is not signed in; a revoked link answers 410 with a
plain page and nothing of the board, an unknown one 404; a series' link follows its current event;
House adds and revokes links from the dashboard and the series page."""

from __future__ import annotations

import datetime
import re

import pytest
from django.test import Client
from django.urls import reverse
from django.utils import timezone

from events import services
from events.models import Event
from seasons import services as seasons
from seasons.models import Series
from staff.models import DisplayLink, Membership, scope_type
from staff.scopes import Scope
from tests.factories import Table, make_table, make_user
from tests.house.support import post, refused_by_page
from web.follow import qr_svg

pytestmark = pytest.mark.django_db

REVOKED = "This display link was revoked by House."


def switch_on(table: Table) -> str:
    services.self_check_in_switch(event_id=table.event.pk, by=table.house, enabled=True)
    return table.refresh().check_in_code


def make_link(table: Table, label: str = "Projector by the bar") -> tuple[int, str]:
    made = services.display_link_create(scope=Scope.of(table.event), by=table.house, label=label)
    return made.link_id, made.path


def token_of(path: str) -> str:
    return path.rstrip("/").rsplit("/", 1)[1]


def test_the_display_shows_the_board_and_the_code_to_a_laptop_not_signed_in(
    client: Client,
) -> None:
    table = make_table("league", players=2)
    code = switch_on(table)
    link_id, path = make_link(table)
    response = client.get(path)
    assert response.status_code == 200
    page = response.content.decode()
    assert f"data-check-in-code>{code}</strong>" in page
    check_in = f"http://testserver/events/{table.event.pk}/check-in?code={code}"
    assert str(qr_svg(check_in)) in page
    assert 'class="board kiosk"' in page and 'id="board"' in page
    assert f'data-live-socket="/ws/events/{table.event.pk}/board/{token_of(path)}/"' in page
    assert 'data-live-stream="venue" data-live-swap' in page
    assert f'data-display-showing="event:{table.event.pk}"' in page
    assert DisplayLink.objects.get(pk=link_id).last_seen_at is not None


def test_the_display_checks_what_it_shows(client: Client) -> None:
    table = make_table("league", players=2)
    _, path = make_link(table)
    now = client.get(path + "now")
    assert now.status_code == 200 and now.json() == {"showing": f"event:{table.event.pk}"}


def test_a_revoked_link_answers_410_with_no_board_and_no_code(client: Client) -> None:
    table = make_table("league", players=2)
    code = switch_on(table)
    link_id, path = make_link(table)
    services.display_link_revoke(scope=Scope.of(table.event), by=table.house, link_id=link_id)
    response = client.get(path)
    assert response.status_code == 410
    page = response.content.decode()
    assert REVOKED in page
    assert code not in page and "check-in-code" not in page and 'id="board"' not in page
    assert "data-live-socket" not in page and table.players[0].display_name not in page
    assert client.get(path + "now").status_code == 410


@pytest.mark.parametrize("token", ["no-such-link", "x" * 300, "%C3%A9t%C3%A9"])
def test_an_unknown_link_answers_404(client: Client, token: str) -> None:
    response = client.get(f"/display/{token}/")
    assert response.status_code == 404
    assert "No such display link" in response.content.decode()
    assert client.get(f"/display/{token}/now").status_code == 404


def test_a_link_of_a_draft_shows_no_board_until_the_event_opens(client: Client) -> None:
    house = make_user("House", staff=True)
    event_id = services.event_create(
        by=house, name="Secret", date=datetime.date(2026, 12, 10), format="league"
    ).event_id
    path = services.display_link_create(scope=Scope(Event, event_id), by=house, label="Bar").path
    page = client.get(path).content.decode()
    assert "The board opens when the event does." in page and "Secret" not in page
    assert f'data-display-showing="draft:{event_id}"' in page


def test_a_series_link_follows_the_series_to_its_next_event(client: Client) -> None:
    today = timezone.now().date()
    tonight, next_week = make_table("league", players=2), make_table("league")
    house = tonight.house
    series = seasons.series_create(by=house, name="Thursday League").series_id
    Membership.objects.create(
        scope_type=scope_type(Series), scope_id=series, user=next_week.house, role="director"
    )
    path = services.display_link_create(scope=Scope(Series, series), by=house, label="Bar TV").path
    empty = client.get(path)
    assert empty.status_code == 200 and "No event tonight." in empty.content.decode()
    assert client.get(path + "now").json() == {"showing": "none"}
    for table, days in ((tonight, 0), (next_week, 7)):
        seasons.event_series_set(event_id=table.event.pk, series_id=series, by=table.house)
        Event.objects.filter(pk=table.event.pk).update(date=today + datetime.timedelta(days))
    code = switch_on(tonight)
    page = client.get(path).content.decode()
    assert f'data-live-socket="/ws/events/{tonight.event.pk}/board/' in page
    assert f"data-check-in-code>{code}</strong>" in page
    # Tonight is over: the same link shows next week's event (its page reloads on the change).
    Event.objects.filter(pk=tonight.event.pk).update(phase="finalized")
    assert client.get(path + "now").json() == {"showing": f"event:{next_week.event.pk}"}
    page = client.get(path).content.decode()
    assert f'data-live-socket="/ws/events/{next_week.event.pk}/board/' in page
    assert code not in page


def test_house_adds_a_link_on_the_dashboard_and_sees_it_once(client: Client) -> None:
    table = make_table("league", players=2)
    client.force_login(table.house)
    response = post(client, "display_link_create", table.event.pk, label="Projector by the bar")
    assert response.status_code == 302 and response["Location"].endswith("#displays")
    dashboard = reverse("house:dashboard", args=[table.event.pk])
    page = client.get(dashboard).content.decode()
    shown = re.search(r'value="(http://testserver/display/([^/"]+)/)"[^>]*data-fresh-display', page)
    assert shown is not None
    link = DisplayLink.objects.get(event=table.event)
    assert link.label == "Projector by the bar" and "Projector by the bar" in page
    assert Client().get(shown[1]).status_code == 200
    # Shown once: the next visit lists the link, never its address.
    again = client.get(dashboard).content.decode()
    assert shown[2] not in again and "Projector by the bar" in again
    assert f'name="link" value="{link.pk}"' in again
    revoked = post(client, "display_link_revoke", table.event.pk, link=str(link.pk))
    assert revoked.status_code == 302
    assert DisplayLink.objects.get(pk=link.pk).revoked_at is not None
    assert Client().get(shown[1]).status_code == 410


@pytest.mark.parametrize("role", ["cashier", "scorer"])
def test_a_cashier_or_scorer_sees_no_displays_and_is_refused_them(
    client: Client, role: str
) -> None:
    table = make_table("league", players=2)
    link_id, _ = make_link(table)
    member = make_user(role.capitalize())
    services.house_member_add(scope=Scope.of(table.event), by=table.house, member=member, role=role)
    client.force_login(member)
    page = client.get(reverse("house:dashboard", args=[table.event.pk])).content.decode()
    assert 'id="displays"' not in page
    message = f"Your role in this event ({role}) does not include that"
    refused_by_page(
        client, table, "display_link_create", table.event.pk, message=message, label="X"
    )
    refused_by_page(
        client, table, "display_link_revoke", table.event.pk, message=message, link=str(link_id)
    )
    assert DisplayLink.objects.filter(event=table.event).count() == 1


def test_the_series_page_adds_and_revokes_the_series_links(client: Client) -> None:
    table = make_table()
    series = seasons.series_create(by=table.house, name="Thursday League").series_id
    client.force_login(table.house)
    key = {"idempotency_key": "one"}
    added = client.post(
        reverse("seasons:display_link_create", args=[series]), {"label": "Bar TV", **key}
    )
    assert added.status_code == 302
    page = client.get(reverse("seasons:series", args=[series])).content.decode()
    assert 'id="displays"' in page and "Bar TV" in page and "data-fresh-display-link" in page
    link = DisplayLink.objects.get(series=series)
    client.post(
        reverse("seasons:display_link_revoke", args=[series]),
        {"link": str(link.pk), "idempotency_key": "two"},
    )
    assert DisplayLink.objects.get(pk=link.pk).revoked_at is not None
    # A series cashier sees no Displays section.
    cashier = make_user("Cashier")
    Membership.objects.create(
        scope_type=scope_type(Series), scope_id=series, user=cashier, role="cashier"
    )
    client.force_login(cashier)
    page = client.get(reverse("seasons:series", args=[series])).content.decode()
    assert 'id="displays"' not in page
