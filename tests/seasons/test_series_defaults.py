"""A series' defaults for entry mode and age (docs/decisions.md, "Series defaults"): set by its
owner or a director, taken by each event made in the series or put in it as a draft, which may
still change them before it opens; registration asks the age the event took."""

from __future__ import annotations

import datetime
import zoneinfo
from typing import Any

import pytest

from audit.models import AuditEntry
from events import services as events
from events.errors import AgeNotConfirmed, Invalid, NotAllowed, NotFound
from events.models import Event
from seasons import services
from seasons.models import Series, SeriesAuditEntry
from tests.factories import make_user
from tests.refusals import refused
from tests.seasons.test_series_staff import make_crew, refused_in_series

pytestmark = pytest.mark.django_db


def test_the_owner_and_a_director_set_the_defaults_and_others_are_refused() -> None:
    crew = make_crew()
    saved = services.series_defaults_set(
        series_id=crew.series_id, by=crew.people["director"], minimum_age=21
    )
    assert (saved.entry_mode, saved.minimum_age) == ("paid", 21)
    saved = services.series_defaults_set(
        series_id=crew.series_id, by=crew.people["owner"], entry_mode="sponsored"
    )
    assert (saved.entry_mode, saved.minimum_age) == ("sponsored", 21)
    for role in ("cashier", "scorer", "player", "outsider"):

        def by_role(role: str = role) -> object:
            return services.series_defaults_set(
                series_id=crew.series_id, by=crew.people[role], minimum_age=0
            )

        # A stranger to the series is told it is not there.
        refused_in_series(crew, NotFound if role == "outsider" else NotAllowed, by_role)
    bad: list[dict[str, Any]] = [{"entry_mode": "free"}, {"minimum_age": 120}, {"minimum_age": -1}]
    for values in bad:

        def set_bad(values: dict[str, Any] = values) -> object:
            return services.series_defaults_set(
                series_id=crew.series_id, by=crew.people["owner"], **values
            )

        refused_in_series(crew, Invalid, set_bad)


def test_the_next_event_takes_the_defaults_and_registration_asks_the_age() -> None:
    crew = make_crew()
    owner = crew.people["owner"]
    services.series_defaults_set(
        series_id=crew.series_id, by=owner, entry_mode="sponsored", minimum_age=21
    )
    created = services.series_next_event(series_id=crew.series_id, by=owner)
    event = Event.objects.get(pk=created.event_id)
    assert (event.entry_mode, event.minimum_age, event.contribution) == ("sponsored", 21, 0)
    assert event.sponsored_pool == 0  # House states each night's pool
    events.registration_open(event_id=event.pk, by=owner)
    ann = make_user("Ann")
    refused(AgeNotConfirmed, event, lambda: events.player_register(event_id=event.pk, by=ann))
    events.player_register(event_id=event.pk, by=ann, age_confirmed=True)
    # The event still changes its own settings before it opens... and after, as any event.
    events.event_update(event_id=event.pk, by=owner, changes={"minimum_age": 18})
    assert Event.objects.get(pk=event.pk).minimum_age == 18


def test_a_paid_series_next_event_keeps_the_last_events_contribution() -> None:
    crew = make_crew()
    owner = crew.people["owner"]
    last = Event.objects.get(pk=crew.event_id)
    created = services.series_next_event(series_id=crew.series_id, by=owner)
    event = Event.objects.get(pk=created.event_id)
    assert (event.entry_mode, event.contribution, event.minimum_age) == (
        "paid",
        last.contribution,
        0,
    )


def test_the_championship_takes_the_defaults() -> None:
    crew = make_crew()
    owner = crew.people["owner"]
    services.series_defaults_set(series_id=crew.series_id, by=owner, minimum_age=21)
    created = services.championship_create(
        season_id=crew.season_id, by=owner, date=datetime.date(2026, 12, 10)
    )
    event = Event.objects.get(pk=created.event_id)
    assert (event.minimum_age, event.registration_open) == (21, True)


def test_a_draft_put_in_the_series_takes_the_defaults_in_its_audit() -> None:
    crew = make_crew()
    owner = crew.people["owner"]
    services.series_defaults_set(
        series_id=crew.series_id, by=owner, entry_mode="sponsored", minimum_age=21
    )
    draft = events.event_create(
        by=owner,
        name="Friday",
        date=datetime.date(2026, 12, 11),
        format="league",
        contribution=10,
        remainder_policy="Rolls over.",
    ).event_id
    services.event_series_set(event_id=draft, series_id=crew.series_id, by=owner)
    event = Event.objects.get(pk=draft)
    assert (event.entry_mode, event.contribution, event.minimum_age) == ("sponsored", 0, 21)
    entry = AuditEntry.objects.filter(event_id=draft).order_by("-seq").first()
    assert entry is not None and entry.action == "event_updated"
    assert entry.details["changes"]["minimum_age"] == [0, 21]
    # The draft overrides a default; putting it in the same series again changes nothing.
    events.event_update(event_id=draft, by=owner, changes={"minimum_age": 0})
    services.event_series_set(event_id=draft, series_id=crew.series_id, by=owner)
    assert Event.objects.get(pk=draft).minimum_age == 0


def test_an_open_event_put_in_the_series_keeps_its_own_settings() -> None:
    crew = make_crew()
    owner = crew.people["owner"]
    services.series_defaults_set(series_id=crew.series_id, by=owner, minimum_age=21)
    other = events.event_create(
        by=owner, name="Open night", date=datetime.date(2026, 12, 12), format="league"
    ).event_id
    events.registration_open(event_id=other, by=owner)
    services.event_series_set(event_id=other, series_id=crew.series_id, by=owner)
    assert Event.objects.get(pk=other).minimum_age == 0
    # Defaults changed later leave the series' events as they are.
    assert Event.objects.get(pk=crew.event_id).minimum_age == 0
    assert Series.objects.get(pk=crew.series_id).minimum_age == 21


def test_the_registration_defaults_are_set_and_refused_out_of_bounds() -> None:
    crew = make_crew()
    owner = crew.people["owner"]
    saved = services.series_defaults_set(
        series_id=crew.series_id,
        by=owner,
        capacity=64,
        hold_minutes=45,
        day_hold_minutes=5,
        pay_ahead=True,
        registration_opens_days_before=7,
        registration_closes_time=datetime.time(18, 30),
    )
    assert (saved.capacity, saved.hold_minutes, saved.day_hold_minutes, saved.pay_ahead) == (
        64,
        45,
        5,
        True,
    )
    assert (saved.registration_opens_days_before, saved.registration_closes_time) == (7, "18:30")
    entry = SeriesAuditEntry.objects.filter(series_id=crew.series_id).order_by("-seq").first()
    assert entry is not None and entry.action == "series_defaults_set"
    assert entry.details["changes"]["registration_closes_time"] == "18:30"
    # Left out: unchanged. None: no cap, no bound.
    saved = services.series_defaults_set(series_id=crew.series_id, by=owner, minimum_age=18)
    assert (saved.capacity, saved.registration_opens_days_before) == (64, 7)
    saved = services.series_defaults_set(
        series_id=crew.series_id,
        by=owner,
        capacity=None,
        registration_opens_days_before=None,
        registration_closes_time=None,
    )
    assert (saved.capacity, saved.registration_opens_days_before) == (None, None)
    assert saved.registration_closes_time is None
    bad: list[dict[str, Any]] = [
        {"capacity": 0},
        {"capacity": True},
        {"hold_minutes": 0},
        {"day_hold_minutes": 24 * 60 + 1},
        {"registration_opens_days_before": -1},
        {"registration_opens_days_before": 366},
        {"registration_closes_time": "18:30"},
        {"pay_ahead": "yes"},
    ]
    for values in bad:

        def set_bad(values: dict[str, Any] = values) -> object:
            return services.series_defaults_set(series_id=crew.series_id, by=owner, **values)

        refused_in_series(crew, Invalid, set_bad)


def test_the_next_event_takes_the_registration_window_from_its_date() -> None:
    crew = make_crew()
    owner = crew.people["owner"]
    Series.objects.filter(pk=crew.series_id).update(time_zone="America/Chicago")
    Event.objects.filter(pk=crew.event_id).update(time_zone="America/Chicago")
    services.series_defaults_set(
        series_id=crew.series_id,
        by=owner,
        capacity=64,
        hold_minutes=45,
        day_hold_minutes=5,
        pay_ahead=True,
        registration_opens_days_before=7,
        registration_closes_time=datetime.time(18, 30),
    )
    when = datetime.date(2027, 3, 18)
    created = services.series_next_event(series_id=crew.series_id, by=owner, date=when)
    event = Event.objects.get(pk=created.event_id)
    chicago = zoneinfo.ZoneInfo("America/Chicago")
    assert (event.capacity, event.hold_minutes, event.day_hold_minutes, event.pay_ahead) == (
        64,
        45,
        5,
        True,
    )
    assert event.registration_opens_at == datetime.datetime(2027, 3, 11, 0, 0, tzinfo=chicago)
    assert event.registration_closes_at == datetime.datetime(2027, 3, 18, 18, 30, tzinfo=chicago)


def test_without_a_window_the_next_event_has_no_bounds_and_no_cap() -> None:
    crew = make_crew()
    created = services.series_next_event(series_id=crew.series_id, by=crew.people["owner"])
    event = Event.objects.get(pk=created.event_id)
    assert (event.capacity, event.registration_opens_at, event.registration_closes_at) == (
        None,
        None,
        None,
    )
    assert (event.hold_minutes, event.day_hold_minutes, event.pay_ahead) == (30, 10, False)


def test_a_draft_put_in_the_series_takes_the_registration_defaults() -> None:
    crew = make_crew()
    owner = crew.people["owner"]
    services.series_defaults_set(
        series_id=crew.series_id, by=owner, capacity=32, registration_opens_days_before=2
    )
    draft = events.event_create(
        by=owner, name="Friday", date=datetime.date(2026, 12, 11), format="league"
    ).event_id
    services.event_series_set(event_id=draft, series_id=crew.series_id, by=owner)
    event = Event.objects.get(pk=draft)
    assert event.capacity == 32
    assert event.registration_opens_at == datetime.datetime(2026, 12, 9, tzinfo=datetime.UTC)
    entry = AuditEntry.objects.filter(event_id=draft).order_by("-seq").first()
    assert entry is not None and entry.action == "event_updated"
    assert entry.details["changes"]["capacity"] == [None, 32]
