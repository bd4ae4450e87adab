"""Series: created by staff, House for each of their events, events put in before they start,
and "Next event" (docs/rules.md section 14.1)."""

from __future__ import annotations

import datetime
import functools

import pytest
from django.db import IntegrityError, connection, transaction
from django.test.utils import CaptureQueriesContext

from events import services as events
from events.errors import Invalid, NotAllowed, NotFound, WrongPhase, WrongState
from events.models import Event
from events.runner import is_house
from house.selectors import house_events
from seasons import services
from seasons.models import Series, SeriesEvent, series_id_of
from staff.scopes import Scope
from tests.factories import make_table, make_user
from tests.refusals import refused
from tests.seasons.support import make_league, refused_season

pytestmark = pytest.mark.django_db


def test_only_staff_create_a_series_and_its_creator_is_its_house() -> None:
    league = make_league()
    assert list(league.house.staff_roles.of_kind(Series).values_list("scope_id", flat=True)) == [
        league.series_id
    ]
    refused_season(
        NotAllowed, lambda: services.series_create(by=make_user(), name="Mine", time_zone="UTC")
    )
    refused_season(
        Invalid,
        lambda: services.series_create(by=league.house, name="X", time_zone="Mars/Olympus"),
    )
    refused_season(Invalid, lambda: services.series_create(by=league.house, name="  "))


def test_series_house_is_house_for_every_event_of_the_series() -> None:
    league = make_league()
    table = make_table(players=2)
    deputy = make_user("Deputy")
    events.house_member_add(scope=Scope(Series, league.series_id), by=league.house, member=deputy)
    assert not is_house(deputy, table.event)
    # The event's House puts it in the series, as House of both.
    events.house_member_add(
        scope=Scope(Series, league.series_id), by=league.house, member=table.house
    )
    services.event_series_set(event_id=table.event.pk, series_id=league.series_id, by=table.house)
    table.refresh()
    assert is_house(deputy, table.event)
    assert table.event.pk in house_events(deputy).values_list("pk", flat=True)
    events.event_start(event_id=table.event.pk, by=deputy)  # House of the series starts it
    events.house_member_remove(
        scope=Scope(Series, league.series_id), by=league.house, member=deputy
    )
    assert not is_house(deputy, Event.objects.get(pk=table.event.pk))


def test_someone_outside_the_series_house_changes_nothing() -> None:
    league = make_league()
    stranger = make_user("Stranger")
    refused_season(  # not found or not theirs
        NotFound,
        lambda: events.house_member_add(
            scope=Scope(Series, league.series_id), by=stranger, member=stranger
        ),
    )
    refused_season(
        WrongState,
        lambda: events.house_member_remove(
            scope=Scope(Series, league.series_id), by=league.house, member=league.house
        ),
    )


def test_a_started_event_is_never_moved_between_series() -> None:
    league, other = make_league(), make_league()
    events.house_member_add(
        scope=Scope(Series, other.series_id), by=other.house, member=league.house
    )
    table = make_table(players=2)
    events.house_member_add(
        scope=Scope(Series, league.series_id), by=league.house, member=table.house
    )
    events.house_member_add(
        scope=Scope(Series, other.series_id), by=other.house, member=table.house
    )
    services.event_series_set(event_id=table.event.pk, series_id=league.series_id, by=table.house)
    table.start()
    targets: list[int | None] = [other.series_id, None]
    for target in targets:
        refused(
            WrongPhase,
            table.event,
            functools.partial(
                services.event_series_set,
                event_id=table.event.pk,
                series_id=target,
                by=table.house,
            ),
        )
    # The database holds the same line against any other writer.
    with pytest.raises(IntegrityError), transaction.atomic():
        SeriesEvent.objects.filter(event_id=table.event.pk).update(series_id=other.series_id)
    with pytest.raises(IntegrityError), transaction.atomic():
        SeriesEvent.objects.filter(event_id=table.event.pk).delete()
    assert series_id_of(table.event.pk) == league.series_id


def test_next_event_copies_the_last_ones_settings_a_week_later_named_with_its_date() -> None:
    league = make_league()
    table = make_table("switch", players=0, contribution=15)
    events.house_member_add(
        scope=Scope(Series, league.series_id), by=league.house, member=table.house
    )
    services.event_series_set(event_id=table.event.pk, series_id=league.series_id, by=table.house)
    answer = services.series_next_event(
        series_id=league.series_id, by=league.house, idempotency_key="next-1"
    )
    again = services.series_next_event(
        series_id=league.series_id, by=league.house, idempotency_key="next-1"
    )
    assert again == answer
    created = Event.objects.get(pk=answer.event_id)
    assert series_id_of(created.pk) == league.series_id
    assert created.date == table.event.date + datetime.timedelta(days=7)
    when = created.date
    assert (created.format, created.contribution, created.name) == (
        "switch",
        15,
        f"{table.event.name} · {when:%b} {when.day}, {when.year}",
    )
    # The night after takes the base name and its own date, not a second date.
    after = services.series_next_event(series_id=league.series_id, by=league.house)
    later = Event.objects.get(pk=after.event_id)
    assert later.date == when + datetime.timedelta(days=7)
    assert later.name == f"{table.event.name} · {later.date:%b} {later.date.day}, {later.date.year}"
    assert Event.objects.filter(series=league.series_id).count() == 3


def test_a_players_write_in_a_series_event_costs_no_extra_query() -> None:
    """Asking whether the actor is House (events.runner.is_house) stays one query."""
    league = make_league()
    counts = []
    for in_series in (False, True):
        table = make_table(players=0)
        if in_series:
            events.house_member_add(
                scope=Scope(Series, league.series_id), by=league.house, member=table.house
            )
            services.event_series_set(
                event_id=table.event.pk, series_id=league.series_id, by=table.house
            )
        player = table.join("Ann")
        table.join("Bob")
        table.start()
        table.choose_start(player)
        with CaptureQueriesContext(connection) as queries:
            table.report(player, 1, "loss")
        counts.append(len(queries))
    assert counts[1] == counts[0]
