"""Which events are in which series is the seasons layer's (seasons migration 0009): a fresh
database never has a series column on the events' table, and one migrated before keeps every
event's series, moved to the seasons' table, with the old column and its trigger gone. A
started or finalized event stays in its series against any writer. The test that takes the
database back to before that migration brings it to the latest migrations again afterwards, so
the tests after it find the tables as the models have them."""

from __future__ import annotations

import datetime
from collections.abc import Iterator

import pytest
from django.db import IntegrityError, connection, transaction
from django.db.migrations.executor import MigrationExecutor

from events.models import Event, Phase
from organizations.home import home_organization_id
from seasons import services
from seasons.models import Series, SeriesEvent, series_id_of
from tests.factories import make_user

BEFORE = [("seasons", "0008_staff_moves_to_the_staff_layer")]
AFTER = [("seasons", "0009_series_keeps_its_events")]

# The events' table as databases migrated before kept an event's series (events 0007 then).
OLD_COLUMN = """
ALTER TABLE events_event ADD COLUMN series_id bigint NULL
    REFERENCES seasons_series (id) DEFERRABLE INITIALLY DEFERRED;
CREATE FUNCTION events_event_series_stays() RETURNS trigger AS $$
BEGIN
    IF NEW.series_id IS DISTINCT FROM OLD.series_id
       AND OLD.phase IN ('started', 'finalized') THEN
        RAISE EXCEPTION 'event % has started: it cannot move between series', OLD.id
            USING ERRCODE = 'check_violation';
    END IF;
    RETURN NEW;
END;
$$ LANGUAGE plpgsql;
CREATE TRIGGER events_event_series_stays
    BEFORE UPDATE OF series_id ON events_event
    FOR EACH ROW EXECUTE FUNCTION events_event_series_stays();
"""


def series_column() -> bool:
    with connection.cursor() as cursor:
        cursor.execute(
            "SELECT 1 FROM information_schema.columns WHERE table_name = 'events_event' "
            "AND column_name = 'series_id' AND table_schema = current_schema()"
        )
        return cursor.fetchone() is not None


def routine(name: str) -> bool:
    with connection.cursor() as cursor:
        cursor.execute("SELECT 1 FROM pg_proc WHERE proname = %s", [name])
        return cursor.fetchone() is not None


def event(name: str, phase: str = Phase.DRAFT) -> Event:
    return Event.objects.create(
        name=name, date=datetime.date(2026, 12, 3), format="league", phase=phase
    )


@pytest.mark.django_db
def test_a_fresh_database_keeps_no_series_on_the_events_table() -> None:
    assert not series_column()
    assert not routine("events_event_series_stays")
    assert routine("seasons_seriesevent_stays")


@pytest.mark.django_db
def test_a_started_or_finalized_event_stays_in_its_series_against_any_writer() -> None:
    league = Series.objects.create(name="Thursday League")
    other = Series.objects.create(name="Friday League")
    draft, started = event("Draft"), event("Tonight")
    SeriesEvent.objects.create(event=draft, series=league)
    SeriesEvent.objects.create(event=started, series=league)
    Event.objects.filter(pk=started.pk).update(phase=Phase.STARTED)
    finalized = event("Last week", Phase.FINALIZED)

    with pytest.raises(IntegrityError), transaction.atomic():
        SeriesEvent.objects.filter(event=started).update(series=other)
    with pytest.raises(IntegrityError), transaction.atomic():
        SeriesEvent.objects.filter(event=started).delete()
    with pytest.raises(IntegrityError), transaction.atomic():
        SeriesEvent.objects.create(event=finalized, series=league)
    # A draft moves freely; an unchanged row is no move.
    SeriesEvent.objects.filter(event=draft).update(series=other)
    SeriesEvent.objects.filter(event=started).update(series=league)

    assert (series_id_of(draft.pk), series_id_of(started.pk)) == (other.pk, league.pk)
    assert series_id_of(finalized.pk) is None
    assert list(Event.objects.filter(series=league)) == [started]


def migrate_to_the_latest() -> None:
    executor = MigrationExecutor(connection)
    executor.migrate(executor.loader.graph.leaf_nodes())


@pytest.fixture
def latest_afterwards(transactional_db: None) -> Iterator[None]:
    """The database at the latest migrations once the test is done, whatever it left (torn down
    before the test's rows are flushed)."""
    try:
        yield
    finally:
        migrate_to_the_latest()


@pytest.mark.django_db(transaction=True)
def test_a_database_migrated_before_keeps_each_events_series(latest_afterwards: None) -> None:
    executor = MigrationExecutor(connection)
    executor.migrate(BEFORE)
    with connection.cursor() as cursor:
        cursor.execute(OLD_COLUMN)
    # The series as the database before kept them (later migrations add columns of their own).
    then = executor.loader.project_state(BEFORE).apps.get_model("seasons", "Series")
    league = then.objects.create(name="Thursday League")
    other = then.objects.create(name="Friday League")
    draft, finalized, alone = event("Next week"), event("Last week"), event("Elsewhere")
    with connection.cursor() as cursor:
        cursor.execute(
            "UPDATE events_event SET series_id = %s WHERE id = %s", [league.pk, draft.pk]
        )
        cursor.execute(
            "UPDATE events_event SET series_id = %s WHERE id = %s", [other.pk, finalized.pk]
        )
    Event.objects.filter(pk=finalized.pk).update(phase=Phase.FINALIZED)

    executor = MigrationExecutor(connection)
    executor.migrate(AFTER)

    assert not series_column()
    assert not routine("events_event_series_stays")
    assert dict(SeriesEvent.objects.values_list("event_id", "series_id")) == {
        draft.pk: league.pk,
        finalized.pk: other.pk,
    }
    assert series_id_of(alone.pk) is None
    # The finalized event, moved here, stays in its series.
    with pytest.raises(IntegrityError), transaction.atomic():
        SeriesEvent.objects.filter(event=finalized).update(series_id=league.pk)


@pytest.mark.django_db(transaction=True)
def test_the_tests_after_it_find_the_latest_tables() -> None:
    """Run after the one above (file order): a series made now has every column of the latest
    migrations (its organization's, made after 0009)."""
    founder = make_user("Founder", staff=True)
    series_id = services.series_create(by=founder, name="After the migration").series_id
    assert Series.objects.get(pk=series_id).organization_id == home_organization_id()
