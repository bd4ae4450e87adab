"""House's tools on the dashboard: self check-in, check in everyone, paid / not paid with the
collected total, cancelling a registration, announcements; the results sheet and tonight."""

from __future__ import annotations

import datetime
import re
import zoneinfo

import pytest
from django.utils import timezone

from events import services
from events.models import Announcement, Event, PoolAdjustment, Registration
from tests.events.support import finalized_table
from tests.factories import make_table, make_user
from tests.house.support import house_client, post, refused_by_page, url
from tests.refusals import said


@pytest.mark.django_db
def test_house_switches_self_check_in_and_sees_the_code(client):
    table = make_table(players=1)
    house_client(client, table)
    response = post(client, "self_check_in_switch", table.event.pk, enabled="1")
    code = Event.objects.get(pk=table.event.pk).check_in_code
    assert f"Self check-in is on: the code is {code}." in said(response)
    page = client.get(url("dashboard", table.event.pk)).content.decode()
    assert f'<code class="check-in-code" data-check-in-code>{code}</code>' in page
    assert f"/events/{table.event.pk}/check-in" in page
    post(client, "self_check_in_switch", table.event.pk, enabled="0")
    assert Event.objects.get(pk=table.event.pk).check_in_code == ""


@pytest.mark.django_db
def test_another_events_house_gets_not_found(client):
    table = make_table(players=1)
    client.force_login(make_table().house)
    for name, args in (
        ("self_check_in_switch", ()),
        ("check_in_all", ()),
        ("announcement_send", ()),
        ("results_sheet", ()),
        ("payment_mark", (table.rid(table.players[0]),)),
        ("registration_cancel", (table.rid(table.players[0]),)),
    ):
        if name == "results_sheet":
            assert client.get(url(name, table.event.pk)).status_code == 404
        else:
            response = post(client, name, table.event.pk, *args, text="x", enabled="1", paid="1")
            assert response.status_code == 404, name


@pytest.mark.django_db
def test_house_checks_in_everyone_registered(client):
    table = make_table()
    rids = [table.register(make_user(n)) for n in ("Ann", "Bob", "Cat")]
    house_client(client, table)
    page = client.get(url("dashboard", table.event.pk)).content.decode()
    assert "Check in all 3 registered" in page
    response = post(client, "check_in_all", table.event.pk)
    assert "3 players checked in." in said(response)
    assert set(Registration.objects.filter(pk__in=rids).values_list("status", flat=True)) == {
        "checked_in"
    }


@pytest.mark.django_db
def test_house_marks_payments_and_sees_the_collected_total_beside_the_pool(client):
    table = make_table(players=2, contribution=15)
    ann = table.players[0]
    house_client(client, table)
    response = post(client, "payment_mark", table.event.pk, table.rid(ann), paid="1")
    assert "Player" in said(response)[0] and "marked paid: $15 collected." in said(response)[0]
    page = client.get(url("dashboard", table.event.pk)).content.decode()
    assert "Collected: <strong>$15</strong> (1 paid)" in page
    assert "Paid $15" in page and "Not paid" in page
    # The settings form shows the money settings locked; a hand-made post changes nothing.
    form = client.get(url("event_edit", table.event.pk)).content.decode()
    assert "Paid entries have been accepted" in form
    assert re.search(r'<input[^>]*name="contribution"[^>]*disabled', form)
    client.post(
        url("event_edit", table.event.pk),
        {
            "name": table.event.name,
            "venue": "",
            "date": "2026-12-03",
            "time_zone": "UTC",
            "format": "league",
            "contribution": "20",
            "extra_decks": "1",
            "remainder_policy": "Everything to the bar.",
            "idempotency_key": "edit-1",
        },
    )
    event = Event.objects.get(pk=table.event.pk)
    assert (event.contribution, event.remainder_policy) == (15, table.event.remainder_policy)


@pytest.mark.django_db
def test_house_cancels_a_registration_before_check_in(client):
    table = make_table(players=1)
    ann = make_user("Ann")
    rid = table.register(ann)
    house_client(client, table)
    response = post(client, "registration_cancel", table.event.pk, rid)
    assert "Ann's registration is cancelled." in said(response)
    assert Registration.objects.get(pk=rid).status == "cancelled"
    refused_by_page(
        client,
        table,
        "registration_cancel",
        table.event.pk,
        table.rid(table.players[0]),
        message="Only a registration not yet checked in can be cancelled.",
    )


@pytest.mark.django_db
def test_house_sends_an_announcement(client):
    table = make_table(players=2)
    house_client(client, table)
    response = post(client, "announcement_send", table.event.pk, text="Round 2 at 8:30")
    assert "Announcement sent to 2 players." in said(response)
    assert Announcement.objects.get(event=table.event).text == "Round 2 at 8:30"
    refused_by_page(
        client,
        table,
        "announcement_send",
        table.event.pk,
        text="x" * 281,
        message="no more than 280 characters",
    )
    refused_by_page(
        client, table, "announcement_send", table.event.pk, text="a\x07b", message="control"
    )


@pytest.mark.django_db
def test_the_results_sheet_prints_standings_awards_arithmetic_and_proofs(client):
    table = finalized_table(players=3, contribution=7)
    event = table.refresh()
    house_client(client, table)
    page = client.get(url("results_sheet", event.pk)).content.decode()
    assert "results and payouts" in page
    assert "Not final" not in page
    for registration in Registration.objects.filter(event=event):
        assert registration.label in page
    assert "Received by" in page and "(signature)" in page
    assert "$7 \N{MULTIPLICATION SIGN} 3 = $21" in page
    assert f"${21 // 5}" in page  # the Low share
    assert event.commitment in page
    assert event.audit_hash in page
    from cards.stock import seed_hex

    assert seed_hex(event.pk) in page
    winners = Registration.objects.filter(event=event, award__gt=0)
    for winner in winners:
        assert f"${winner.award}" in page


@pytest.mark.django_db
def test_the_sheet_before_finalization_says_so_and_keeps_the_seed(client):
    table = make_table(players=2, start=True)
    house_client(client, table)
    page = client.get(url("results_sheet", table.event.pk)).content.decode()
    assert "Not final" in page
    assert "revealed at finalization" in page
    assert "Received by" not in page


@pytest.mark.django_db
def test_tonight_lists_every_event_house_runs_today(client):
    today = timezone.now().date()
    house = make_user("House", staff=True)
    ids = []
    for name, date in (
        ("Early", today),
        ("Late", today),
        ("Next week", today + datetime.timedelta(days=7)),
    ):
        event_id = services.event_create(by=house, name=name, date=date, format="league").event_id
        ids.append(event_id)
    services.registration_open(event_id=ids[0], by=house)
    other = services.event_create(
        by=make_user("Other", staff=True), name="Not mine", date=today, format="league"
    ).event_id
    client.force_login(house)
    page = client.get(url("tonight")).content.decode()
    assert "Early" in page and "Late" in page
    assert "Next week" not in page and "Not mine" not in page
    assert url("dashboard", ids[0]) in page
    assert other


@pytest.mark.django_db
def test_tonight_lists_an_open_event_only_on_its_own_day_and_an_event_in_play_any_day(client):
    today = timezone.now().date()
    house = make_user("House", staff=True)
    tomorrow = services.event_create(
        by=house, name="Tomorrow", date=today + datetime.timedelta(days=1), format="league"
    ).event_id
    services.registration_open(event_id=tomorrow, by=house)
    table = make_table(players=2, start=True)
    Event.objects.filter(pk=table.event.pk).update(date=today - datetime.timedelta(days=1))
    table.event.staff.create(user=house)
    client.force_login(house)
    rows = client.get(url("tonight")).context["rows"]
    assert [row["event"].pk for row in rows] == [table.event.pk]


@pytest.mark.django_db
def test_tonight_takes_today_in_the_venues_time_zone(client):
    house = make_user("House", staff=True)
    now = timezone.now()
    ahead, behind = "Pacific/Kiritimati", "Pacific/Pago_Pago"  # UTC+14 and UTC-11
    ids = {
        zone: services.event_create(
            by=house,
            name=zone,
            date=timezone.localtime(now, timezone=zoneinfo.ZoneInfo(zone)).date(),
            format="league",
            time_zone=zone,
        ).event_id
        for zone in (ahead, behind)
    }
    client.force_login(house)
    rows = client.get(url("tonight")).context["rows"]
    assert sorted(row["event"].pk for row in rows) == sorted(ids.values())
    # The same date with the other zone is another day there (the two are 25 hours apart).
    Event.objects.filter(pk=ids[ahead]).update(time_zone=behind)
    Event.objects.filter(pk=ids[behind]).update(time_zone=ahead)
    assert client.get(url("tonight")).context["rows"] == []


@pytest.mark.django_db
def test_tonight_counts_players_choices_reviews_and_pool(client):
    table = make_table(players=3, start=True, contribution=10)
    Event.objects.filter(pk=table.event.pk).update(date=timezone.now().date())
    services.review_open(registration_id=table.rid(table.players[0]), by=table.house, reason="Look")
    house_client(client, table)
    response = client.get(url("tonight"))
    row = response.context["rows"][0]
    assert (row["checked_in"], row["pending"], row["reviews"], row["pool"]) == (3, 3, 1, 30)


@pytest.mark.django_db
def test_tonight_keeps_an_event_in_play_whatever_its_date_and_shows_the_pool_house_sees(client):
    table = make_table(players=3, start=True, contribution=10)
    last_week = timezone.now().date() - datetime.timedelta(days=7)
    Event.objects.filter(pk=table.event.pk).update(date=last_week)
    PoolAdjustment.objects.create(
        event=table.event, amount=5, explanation="Sponsor", created_by="House"
    )
    house_client(client, table)
    rows = client.get(url("tonight")).context["rows"]
    assert [row["event"].pk for row in rows] == [table.event.pk]
    assert (rows[0]["pool"], rows[0]["pool_confirmed"]) == (35, False)
