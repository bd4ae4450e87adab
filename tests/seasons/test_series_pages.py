"""A series and a season from House's pages (docs/decisions.md, "Series pages"): site staff open
a series with its defaults, House puts events in it and takes them out, makes its first event
with Next event, and edits a season's days; each refusal is shown in words and changes nothing,
and anyone who is not House of the series finds no page (404)."""

from __future__ import annotations

import datetime
from typing import Any

import pytest
from django.test import Client
from django.urls import reverse

from events import services as events
from events.models import Event
from seasons import services
from seasons.models import Season, SeasonResult, Series, series_id_of
from staff.models import Membership
from staff.scopes import Scope
from tests.factories import make_table, make_user
from tests.refusals import said, unchanged
from tests.seasons.support import FIRST, WEEK, make_league, seasons_unchanged

pytestmark = pytest.mark.django_db

SERIES = {
    "name": "Thursday League at The Dock",
    "venue": "The Dock",
    "time_zone": "America/Chicago",
    "entry_mode": "sponsored",
    "asks_age": "1",
    "minimum_age": "21",
}


def _client(user: Any) -> Client:
    client = Client()
    client.force_login(user)
    return client


def _draft(house: Any, name: str = "Friday Switch") -> Event:
    made = events.event_create(
        by=house,
        name=name,
        date=datetime.date(2026, 12, 4),
        format="switch",
        contribution=5,
        remainder_policy="Rolls over.",
    )
    return Event.objects.get(pk=made.event_id)


def test_site_staff_open_a_series_with_its_defaults_from_the_page() -> None:
    staff = make_user("Stella", staff=True)
    client = _client(staff)
    page = client.get(reverse("seasons:series_new"))
    assert page.status_code == 200 and 'name="time_zone"' in page.content.decode()
    assert "New series" in client.get(reverse("house:events")).content.decode()
    done = client.post(reverse("seasons:series_new"), {**SERIES, "idempotency_key": "s1"})
    again = client.post(reverse("seasons:series_new"), {**SERIES, "idempotency_key": "s1"})
    series = Series.objects.get()
    assert done.status_code == again.status_code == 302
    assert done["Location"] == reverse("seasons:series", args=[series.pk])
    assert (series.venue, series.time_zone, series.entry_mode, series.minimum_age) == (
        "The Dock",
        "America/Chicago",
        "sponsored",
        21,
    )
    assert Membership.objects.get(series=series).user == staff
    assert Membership.objects.get(series=series).role == "owner"


@pytest.mark.parametrize(
    ("change", "words"),
    [
        ({"time_zone": "Mars/Olympus"}, "Unknown time zone"),
        ({"name": "   "}, "needs a name"),
        ({"entry_mode": "barter"}, "The entry mode is"),
        ({"minimum_age": "-3"}, "not a whole number"),
        ({"minimum_age": "120"}, "1 to 99"),
        ({"idempotency_key": ""}, "out of date"),
    ],
)
def test_a_new_series_form_with_bad_input_says_why_and_makes_nothing(
    change: dict[str, str], words: str
) -> None:
    client = _client(make_user("Stella", staff=True))
    with seasons_unchanged():
        answer = client.post(
            reverse("seasons:series_new"), {**SERIES, "idempotency_key": "k", **change}
        )
    assert answer.status_code == 400
    assert words in answer.content.decode()
    assert not Series.objects.exists()


def test_a_new_series_page_is_no_page_to_anyone_but_site_staff() -> None:
    client = _client(make_user("Pat"))
    with seasons_unchanged():
        assert client.get(reverse("seasons:series_new")).status_code == 404
        assert (
            client.post(reverse("seasons:series_new"), {**SERIES, "idempotency_key": "k"})
        ).status_code == 404
    assert "New series" not in client.get(reverse("house:events")).content.decode()


def test_house_puts_its_draft_in_the_series_and_takes_it_out_from_the_page() -> None:
    league = make_league(0)
    services.series_defaults_set(series_id=league.series_id, by=league.house, minimum_age=18)
    draft = _draft(league.house)
    client = _client(league.house)
    page = client.get(reverse("seasons:series", args=[league.series_id])).content.decode()
    assert f'<option value="{draft.pk}">' in page
    put = client.post(
        reverse("seasons:event_add", args=[league.series_id]),
        {"idempotency_key": "in", "event": str(draft.pk)},
    )
    assert put.status_code == 302, said(put)
    draft.refresh_from_db()
    assert (series_id_of(draft.pk), draft.minimum_age) == (league.series_id, 18)
    page = client.get(reverse("seasons:series", args=[league.series_id])).content.decode()
    assert reverse("seasons:event_remove", args=[league.series_id, draft.pk]) in page
    out = client.post(
        reverse("seasons:event_remove", args=[league.series_id, draft.pk]),
        {"idempotency_key": "out"},
    )
    assert out.status_code == 302, said(out)
    draft.refresh_from_db()
    assert series_id_of(draft.pk) is None and draft.minimum_age == 18  # it keeps its settings


def test_a_started_event_stays_in_its_series_and_the_page_offers_no_take_out() -> None:
    table = make_table(players=2)
    series_id = services.series_create(by=table.house, name="Thursday League").series_id
    services.event_series_set(event_id=table.event.pk, series_id=series_id, by=table.house)
    table.start()
    client = _client(table.house)
    page = client.get(reverse("seasons:series", args=[series_id])).content.decode()
    remove = reverse("seasons:event_remove", args=[series_id, table.event.pk])
    assert remove not in page
    with unchanged(table.event), seasons_unchanged():
        refused = client.post(remove, {"idempotency_key": "out"})
    assert any("stays in its series" in text for text in said(refused))
    # Nor can a started event be put in another.
    other = services.series_create(by=table.house, name="Friday Switch").series_id
    with unchanged(table.event), seasons_unchanged():
        refused = client.post(
            reverse("seasons:event_add", args=[other]),
            {"idempotency_key": "in", "event": str(table.event.pk)},
        )
    assert any("stays in its series" in text for text in said(refused))


@pytest.mark.parametrize("role", ["cashier", "scorer"])
def test_a_cashier_or_scorer_of_the_series_moves_no_event(role: str) -> None:
    league = make_league(0)
    member = make_user(role.title(), staff=True)
    events.house_member_add(
        scope=Scope(Series, league.series_id), by=league.house, member=member, role=role
    )
    mine = _draft(member, "Mine")
    theirs = services.series_next_event(series_id=league.series_id, by=league.house).event_id
    client = _client(member)
    page = client.get(reverse("seasons:series", args=[league.series_id])).content.decode()
    assert "data-event-add" not in page and "Take out" not in page and "data-next-event" not in page
    with unchanged(mine), seasons_unchanged():
        put = client.post(
            reverse("seasons:event_add", args=[league.series_id]),
            {"idempotency_key": "in", "event": str(mine.pk)},
        )
    assert any(f"({role}) does not include" in text for text in said(put)), said(put)
    with unchanged(theirs), seasons_unchanged():
        out = client.post(
            reverse("seasons:event_remove", args=[league.series_id, theirs]),
            {"idempotency_key": "out"},
        )
    assert any(f"({role}) does not include" in text for text in said(out)), said(out)


def test_anyone_outside_the_series_finds_no_event_form() -> None:
    league = make_league(0)
    outsider = make_user("Outsider", staff=True)
    theirs = _draft(outsider, "Theirs")
    client = _client(outsider)
    with unchanged(theirs), seasons_unchanged():
        assert (
            client.post(
                reverse("seasons:event_add", args=[league.series_id]),
                {"idempotency_key": "in", "event": str(theirs.pk)},
            ).status_code
            == 404
        )
        assert (
            client.post(
                reverse("seasons:event_remove", args=[league.series_id, theirs.pk]),
                {"idempotency_key": "out"},
            ).status_code
            == 404
        )


def test_putting_in_an_event_chosen_badly_says_so_and_changes_nothing() -> None:
    league = make_league(0)
    client = _client(league.house)
    for chosen in ("", "abc", "99999999", "-1"):
        with seasons_unchanged():
            answer = client.post(
                reverse("seasons:event_add", args=[league.series_id]),
                {"idempotency_key": f"in{chosen}", "event": chosen},
            )
        assert answer.status_code == 302 and said(answer), chosen


def test_next_event_on_an_empty_series_makes_its_first_from_the_page() -> None:
    league = make_league(0)
    client = _client(league.house)
    series = Series.objects.get(pk=league.series_id)
    page = client.get(reverse("seasons:series", args=[series.pk])).content.decode()
    today = services.series_today(series).isoformat()
    assert f'name="date" value="{today}"' in page
    assert f'name="starts_on" required value="{today}"' in page
    assert "from the API" not in page
    made = client.post(
        reverse("seasons:next_event", args=[series.pk]),
        {"idempotency_key": "n1", "date": "2026-12-10"},
    )
    event = Event.objects.get(series=series)
    assert made["Location"] == reverse("house:dashboard", args=[event.pk])
    assert (event.date, event.name, event.venue, event.time_zone) == (
        datetime.date(2026, 12, 10),
        "Thursday League at The Dock · Dec 10, 2026",
        "The Dock",
        "Europe/London",
    )
    with seasons_unchanged():
        bad = client.post(
            reverse("seasons:next_event", args=[series.pk]),
            {"idempotency_key": "n2", "date": "someday"},
        )
    assert any("must be a date" in text for text in said(bad))
    assert Event.objects.filter(series=series).count() == 1


def test_house_widens_a_locked_season_from_the_page_and_the_night_counts_at_once() -> None:
    league = make_league(4)
    league.open_season(weeks=2)
    league.night(0, league.players, seed=3)
    outside = league.night(3, league.players, seed=4)
    season = league.season
    assert season.locked_at is not None
    client = _client(league.house)
    page = client.get(reverse("seasons:season_house", args=[season.pk])).content.decode()
    assert f'name="ends_on" value="{season.ends_on.isoformat()}"' in page
    path = reverse("seasons:season_rules", args=[season.pk])
    # A locked rules fieldset sends no rules: the days and the name are saved alone.
    saved = client.post(
        path,
        {
            "idempotency_key": "d1",
            "name": "Autumn",
            "starts_on": FIRST.isoformat(),
            "ends_on": (FIRST + 5 * WEEK).isoformat(),
        },
    )
    assert any("2 finalized events counted" in text for text in said(saved)), said(saved)
    season.refresh_from_db()
    assert season.ends_on == FIRST + 5 * WEEK
    assert SeasonResult.objects.filter(season=season, event_id=outside).exists()
    with seasons_unchanged():
        narrowed = client.post(
            path,
            {
                "idempotency_key": "d2",
                "starts_on": FIRST.isoformat(),
                "ends_on": (FIRST + WEEK).isoformat(),
            },
        )
        backwards = client.post(
            path,
            {
                "idempotency_key": "d3",
                "starts_on": (FIRST + WEEK).isoformat(),
                "ends_on": FIRST.isoformat(),
            },
        )
        garbled = client.post(path, {"idempotency_key": "d4", "starts_on": "1st of May"})
    assert any("which has started in this season" in text for text in said(narrowed))
    assert any("ends on or after" in text for text in said(backwards))
    assert any("must be a date" in text for text in said(garbled))


def test_the_event_forms_without_their_key_are_refused_and_change_nothing() -> None:
    league = make_league(0)
    draft = _draft(league.house)
    inside = services.series_next_event(series_id=league.series_id, by=league.house).event_id
    client = _client(league.house)
    for path, data in (
        (reverse("seasons:event_add", args=[league.series_id]), {"event": str(draft.pk)}),
        (reverse("seasons:event_remove", args=[league.series_id, inside]), {}),
    ):
        with unchanged(draft), unchanged(inside), seasons_unchanged():
            answer = client.post(path, {**data, "idempotency_key": ""})
        assert any("out of date" in text for text in said(answer)), path


def test_a_new_season_is_offered_from_the_day_after_the_running_one() -> None:
    # Seasons of a series never overlap: the form's first day is never one it would refuse.
    league = make_league(0)
    client = _client(league.house)
    series = Series.objects.get(pk=league.series_id)
    today = services.series_today(series)
    services.season_create(
        series_id=series.pk,
        by=league.house,
        name="Winter",
        starts_on=today - datetime.timedelta(days=10),
        ends_on=today + datetime.timedelta(days=80),
    )
    page = client.get(reverse("seasons:series", args=[series.pk])).content.decode()
    offered = today + datetime.timedelta(days=81)
    assert f'name="starts_on" required value="{offered.isoformat()}"' in page
    form = {
        "name": "Spring",
        "ends_on": (today + datetime.timedelta(days=170)).isoformat(),
        "high_points": "10, 7, 5",
        "low_points": "3, 1",
        "attendance": "1",
        "best_of": "",
        "min_events": "2",
        "qualifiers": "4",
    }
    last_day = (today + datetime.timedelta(days=80)).isoformat()
    with seasons_unchanged():
        refused = client.post(
            reverse("seasons:season_new", args=[series.pk]),
            {**form, "idempotency_key": "s1", "starts_on": last_day},
        )
    assert any("overlap" in text for text in said(refused))
    client.post(
        reverse("seasons:season_new", args=[series.pk]),
        {**form, "idempotency_key": "s2", "starts_on": offered.isoformat()},
    )
    assert Season.objects.get(series=series, name="Spring").starts_on == offered


def test_a_refused_season_form_is_shown_again_as_it_was_typed() -> None:
    league = make_league(0)
    client = _client(league.house)
    series = Series.objects.get(pk=league.series_id)
    today = services.series_today(series)
    services.season_create(
        series_id=series.pk,
        by=league.house,
        name="Winter",
        starts_on=today - datetime.timedelta(days=10),
        ends_on=today + datetime.timedelta(days=80),
    )
    typed = {
        "name": "Spring league",
        "starts_on": today.isoformat(),  # inside Winter: refused as an overlap
        "ends_on": (today + datetime.timedelta(days=170)).isoformat(),
        "high_points": "12, 8",
        "low_points": "4",
        "attendance": "2",
        "best_of": "6",
        "min_events": "3",
        "qualifiers": "5",
    }
    with seasons_unchanged():
        refused = client.post(
            reverse("seasons:season_new", args=[series.pk]),
            {**typed, "idempotency_key": "typed"},
            follow=True,
        )
    assert any("overlap" in text for text in said(refused))
    page = refused.content.decode()
    assert 'value="Spring league"' in page
    assert f'name="starts_on" required value="{typed["starts_on"]}"' in page
    assert f'value="{typed["ends_on"]}"' in page
    for name in ("high_points", "low_points", "attendance", "best_of", "min_events", "qualifiers"):
        assert f'name="{name}" value="{typed[name]}"' in page, name
    # Shown once: the next visit offers the defaults again.
    again = client.get(reverse("seasons:series", args=[series.pk])).content.decode()
    assert 'value="Spring league"' not in again


def test_house_sets_the_registration_defaults_from_the_series_page() -> None:
    league = make_league(0)
    client = _client(league.house)
    page = client.get(reverse("seasons:series", args=[league.series_id])).content.decode()
    assert 'name="capacity"' in page and 'name="registration_closes_time"' in page
    assert "Stripe is not configured here: players pay at the door." in page
    form = {
        "idempotency_key": "d1",
        "entry_mode": "paid",
        "capacity": "64",
        "registration_opens_days_before": "7",
        "registration_closes_time": "18:30",
        "hold_minutes": "45",
        "day_hold_minutes": "5",
        "pay_ahead": "1",
    }
    done = client.post(reverse("seasons:defaults", args=[league.series_id]), form)
    assert done.status_code == 302
    series = Series.objects.get(pk=league.series_id)
    assert (series.capacity, series.registration_opens_days_before) == (64, 7)
    assert series.registration_closes_time == datetime.time(18, 30)
    assert (series.hold_minutes, series.day_hold_minutes, series.pay_ahead) == (45, 5, True)
    page = client.get(done["Location"]).content.decode()
    assert "7 days before" in page and "at 18:30 on the day" in page
    with seasons_unchanged():
        refused = client.post(
            reverse("seasons:defaults", args=[league.series_id]),
            {**form, "idempotency_key": "d2", "registration_closes_time": "half past six"},
            follow=True,
        )
    assert "Registration closes at a time of day (HH:MM)." in refused.content.decode()
    assert Series.objects.get(pk=league.series_id).capacity == 64
