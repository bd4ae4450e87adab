"""Check-in, its undo before the start, late entries and House-added participants."""

from __future__ import annotations

import pytest

from cards.models import Offer
from events import services
from events.models import Registration
from tests.factories import make_table, make_user
from tests.house.support import house_client, post, refused_by_page, url
from tests.refusals import said


@pytest.mark.django_db
def test_it_checks_a_player_in_with_one_tap(client):
    table = make_table("league", players=1)
    ann = make_user("Ann")
    rid = table.register(ann)
    house_client(client, table)
    response = post(client, "check_in", table.event.pk, rid)
    assert response.status_code == 302
    assert response["Location"] == url("dashboard", table.event.pk) + "#checkin"
    assert Registration.objects.get(pk=rid).status == "checked_in"
    assert "Ann is checked in." in said(response)


@pytest.mark.django_db
def test_it_answers_htmx_with_the_live_part_and_the_message(client):
    table = make_table("league", players=1)
    rid = table.register(make_user("Ann"))
    house_client(client, table)
    response = client.post(
        url("check_in", table.event.pk, rid),
        {"idempotency_key": "tap-1"},
        headers={"HX-Request": "true"},
    )
    assert response.status_code == 200
    page = response.content.decode()
    assert "<html" not in page
    assert "Ann is checked in." in page
    assert "✓ Checked in" in page


@pytest.mark.django_db
def test_it_keeps_a_double_tap_to_one_check_in(client):
    table = make_table("league", players=1)
    rid = table.register(make_user("Ann"))
    house_client(client, table)
    post(client, "check_in", table.event.pk, rid, idempotency_key="same")
    response = post(client, "check_in", table.event.pk, rid, idempotency_key="same")
    assert "Ann is checked in." in said(response)
    assert table.event.audit_entries.filter(action="player_checked_in").count() == 2  # 1 + Ann


@pytest.mark.django_db
def test_it_undoes_a_check_in_before_the_start(client):
    table = make_table("league", players=2)
    rid = table.rid(table.players[0])
    house_client(client, table)
    response = post(client, "check_in_undo", table.event.pk, rid)
    assert Registration.objects.get(pk=rid).status == "registered"
    assert any("check-in is undone" in text for text in said(response))


@pytest.mark.django_db
def test_it_refuses_to_undo_a_check_in_after_the_start(client):
    table = make_table("league", players=2, start=True)
    house_client(client, table)
    page = client.get(url("dashboard", table.event.pk)).content.decode()
    assert "Undo check-in" not in page
    refused_by_page(
        client,
        table,
        "check_in_undo",
        table.event.pk,
        table.rid(table.players[0]),
        message="A check-in can only be undone before the event starts.",
    )


@pytest.mark.django_db
def test_it_checks_in_a_late_entry_after_the_start(client):
    table = make_table("league", players=2, start=True)
    late = make_user("Latecomer")
    rid = table.register(late)
    house_client(client, table)
    response = post(client, "check_in", table.event.pk, rid)
    registration = Registration.objects.get(pk=rid)
    assert (registration.status, registration.late) == ("checked_in", True)
    assert Offer.objects.filter(registration=registration, kind="starting").exists()
    assert "Latecomer is checked in (late entry)." in said(response)


@pytest.mark.django_db
def test_it_refuses_a_late_entry_after_a_round_two_result(client):
    table = make_table("standard-v1", players=2, start=True)
    ann = table.players[0]
    table.report(ann, 1, "loss")
    table.report(ann, 2, "loss")
    rid = table.register(make_user("Too Late"))
    house_client(client, table)
    refused_by_page(
        client,
        table,
        "check_in",
        table.event.pk,
        rid,
        message="Late entry is closed: a Round 2 result has already been accepted.",
    )
    page = client.get(url("dashboard", table.event.pk)).content.decode()
    assert "Late entry is closed: a Round 2 result has been accepted." in page


@pytest.mark.django_db
def test_it_adds_a_participant_by_email_after_registration_closed(client):
    table = make_table("league", players=2, start=True)
    services.registration_close(event_id=table.event.pk, by=table.house)
    late = make_user("Walk In")
    house_client(client, table)
    response = post(client, "participant_add", table.event.pk, email=late.email)
    registration = Registration.objects.get(event=table.event, player=late)
    assert (registration.status, registration.late, registration.added_by_house) == (
        "checked_in",
        True,
        True,
    )
    assert "Walk In is added and checked in." in said(response)


@pytest.mark.django_db
def test_it_says_when_no_account_has_the_participants_email(client):
    table = make_table("league", players=2, start=True)
    house_client(client, table)
    refused_by_page(
        client,
        table,
        "participant_add",
        table.event.pk,
        email="nobody@example.com",
        message="No Syndicate Account uses that email: the player signs up first.",
    )


@pytest.mark.django_db
def test_it_adds_a_no_show_back_as_a_participant(client):
    table = make_table("league", players=2)
    absent = make_user("Absent Al")
    rid = table.register(absent)
    services.registration_close(event_id=table.event.pk, by=table.house)
    house_client(client, table)
    page = client.get(url("dashboard", table.event.pk)).content.decode()
    assert "Add as participant" in page
    post(client, "participant_add", table.event.pk, registration=str(rid))
    assert Registration.objects.get(pk=rid).status == "checked_in"


@pytest.mark.django_db
def test_it_asks_to_confirm_the_pool_again_after_a_late_participant(client):
    table = make_table("league", players=2, start=True)
    services.registration_close(event_id=table.event.pk, by=table.house)
    services.pool_confirm(event_id=table.event.pk, by=table.house)
    house_client(client, table)
    assert (
        "Pool changed: confirm again"
        not in client.get(url("dashboard", table.event.pk)).content.decode()
    )
    post(client, "participant_add", table.event.pk, email=make_user("Late").email)
    assert not table.refresh().pool_confirmed
    page = client.get(url("dashboard", table.event.pk)).content.decode()
    assert "Pool changed: confirm again." in page
    assert "Confirm the pool" in page
