"""Every House page and action answers 404 to anyone who is not House for the event."""

from __future__ import annotations

import pytest

from events.models import Review
from tests.factories import make_table, make_user
from tests.house.support import post, url
from tests.refusals import unchanged

PAGES = ["dashboard", "dashboard_partial", "event_edit", "audit_csv", "audit_json"]
EVENT_ACTIONS = [
    "registration_open",
    "registration_close",
    "event_start",
    "participant_add",
    "pool_confirm",
    "event_finalize",
    "house_member_add",
    "scoreholio_upload",
    "scoreholio_clear",
]
PLAYER_ACTIONS = [
    "check_in",
    "check_in_undo",
    "result_submit",
    "win_choice",
    "starting_selection",
    "result_correct",
    "review_open",
    "withdraw",
    "access_reset",
    "wild_reveal",
]


@pytest.fixture
def table():
    table = make_table("league", players=2, start=True)
    services_review(table)
    return table


def services_review(table):
    from events import services

    services.review_open(
        registration_id=table.rid(table.players[0]), by=table.house, reason="Check the log."
    )


def outsiders(table):
    """A player of this event, House of another event, and site staff who are not House here."""
    other = make_table("league")
    staff = make_user("Staffer", staff=True)
    return [table.players[1], other.house, staff]


@pytest.mark.django_db
@pytest.mark.parametrize("name", PAGES)
def test_it_answers_404_to_non_house_users_on_pages(client, table, name):
    for user in outsiders(table):
        client.force_login(user)
        assert client.get(url(name, table.event.pk)).status_code == 404


@pytest.mark.django_db
@pytest.mark.parametrize("name", EVENT_ACTIONS)
def test_it_answers_404_to_non_house_users_on_event_actions(client, table, name):
    with unchanged(table.event.pk):
        for user in outsiders(table):
            client.force_login(user)
            assert post(client, name, table.event.pk, reason="x").status_code == 404


@pytest.mark.django_db
@pytest.mark.parametrize("name", PLAYER_ACTIONS)
def test_it_answers_404_to_non_house_users_on_player_actions(client, table, name):
    with unchanged(table.event.pk):
        rid = table.rid(table.players[0])
        for user in outsiders(table):
            client.force_login(user)
            response = post(client, name, table.event.pk, rid, reason="x", game="1", outcome="win")
            assert response.status_code == 404


@pytest.mark.django_db
def test_it_answers_404_to_non_house_users_on_review_resolve_and_member_removal(client, table):
    review = Review.objects.get(registration__event=table.event)
    for user in outsiders(table):
        client.force_login(user)
        assert (
            post(client, "review_resolve", table.event.pk, review.pk, reason="x").status_code == 404
        )
        assert (
            post(client, "house_member_remove", table.event.pk, table.house.pk).status_code == 404
        )
    assert Review.objects.get(pk=review.pk).resolved_at is None


@pytest.mark.django_db
def test_it_answers_404_for_a_player_of_another_event(client, table):
    other = make_table("league", players=2, start=True)
    client.force_login(table.house)
    rid = other.rid(other.players[0])
    with unchanged(other.event.pk):
        response = post(client, "review_open", table.event.pk, rid, reason="Not mine")
        assert response.status_code == 404


@pytest.mark.django_db
def test_it_answers_404_for_an_unknown_event(client, table):
    client.force_login(table.house)
    assert client.get(url("dashboard", 999_999)).status_code == 404


@pytest.mark.django_db
def test_it_sends_anonymous_visitors_to_sign_in(client, table):
    response = client.get(url("dashboard", table.event.pk))
    assert response.status_code == 302
    assert "/accounts/login/" in response["Location"]
    assert post(client, "event_start", table.event.pk).status_code == 302


@pytest.mark.django_db
def test_it_refuses_get_on_actions(client, table):
    client.force_login(table.house)
    assert client.get(url("event_start", table.event.pk)).status_code == 405


@pytest.mark.django_db
def test_it_lets_a_superuser_in_as_house_everywhere(client, table):
    from accounts.models import User

    admin = User.objects.create_superuser(
        email="root@example.com", password="x", display_name="Root"
    )
    client.force_login(admin)
    assert client.get(url("dashboard", table.event.pk)).status_code == 200
