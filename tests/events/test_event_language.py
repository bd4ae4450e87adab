"""The event's language (docs/decisions.md, "Languages"): set by House on the event (blank: the
venue's), taken from the series' default by a new event of the series, changeable until the
event is finalized; an unknown code is refused and changes nothing."""

from __future__ import annotations

import datetime

import pytest
from django.db import IntegrityError, transaction

from audit.models import AuditEntry
from events import services
from events.errors import EventIsFinalized, Invalid, WrongPhase
from events.models import Event
from seasons import services as seasons
from seasons.models import Series
from tests.api.support import Api, error
from tests.events.support import finalized_table
from tests.factories import make_table, make_user
from tests.refusals import unchanged

pytestmark = pytest.mark.django_db


def test_it_is_blank_until_house_chooses_one_and_the_board_then_reads_the_venues() -> None:
    table = make_table()
    event = table.refresh()
    assert (event.language, event.board_language) == ("", "en")
    answer = services.event_update(event_id=event.pk, by=table.house, changes={"language": "fr"})
    assert answer.changed == ["language"]
    event = table.refresh()
    assert (event.language, event.board_language) == ("fr", "fr")
    audited = AuditEntry.objects.filter(event=event, action="event_updated").last()
    assert audited is not None
    assert audited.details["changes"] == {"language": ["", "fr"]}


def test_it_is_set_when_the_event_is_made() -> None:
    house = make_user("House", staff=True)
    made = services.event_create(
        by=house, name="Jueves", date=datetime.date(2026, 12, 3), format="league", language="es"
    )
    event = Event.objects.get(pk=made.event_id)
    assert event.language == "es"
    created = AuditEntry.objects.get(event=event, action="event_created")
    assert created.details["language"] == "es"


def test_an_unknown_code_is_refused_and_changes_nothing() -> None:
    table = make_table()
    for code in ("de", "EN", "es-MX", 7):
        with unchanged(table.event), pytest.raises(Invalid) as refusal:
            services.event_update(
                event_id=table.event.pk,
                by=table.house,
                changes={"language": code, "venue": "Elsewhere"},
            )
        assert refusal.value.code == "invalid"
        assert "The language is one of en, es, fr" in refusal.value.message
    assert (table.refresh().language, table.refresh().venue) == ("", "")
    house = make_user("House", staff=True)
    before = Event.objects.count()
    with pytest.raises(Invalid):
        services.event_create(
            by=house,
            name="Donnerstag",
            date=datetime.date(2026, 12, 3),
            format="league",
            language="de",
        )
    assert Event.objects.count() == before


def test_the_database_keeps_only_the_shipped_languages() -> None:
    table = make_table()
    with pytest.raises(IntegrityError), transaction.atomic():
        Event.objects.filter(pk=table.event.pk).update(language="de")
    with pytest.raises(IntegrityError), transaction.atomic():
        Series.objects.create(name="Liga", language="pt")


def test_only_the_language_changes_once_the_event_started_and_nothing_once_finalized() -> None:
    table = make_table(players=2, start=True)
    event_id = table.event.pk
    answer = services.event_update(event_id=event_id, by=table.house, changes={"language": "es"})
    assert (answer.changed, table.refresh().language) == (["language"], "es")
    with unchanged(table.event), pytest.raises(WrongPhase):
        services.event_update(
            event_id=event_id, by=table.house, changes={"language": "fr", "venue": "Elsewhere"}
        )
    with pytest.raises(Invalid):
        services.event_update(event_id=event_id, by=table.house, changes={"language": "xx"})
    assert table.refresh().language == "es"
    final = finalized_table(players=2)
    with pytest.raises(EventIsFinalized):
        services.event_update(event_id=final.event.pk, by=final.house, changes={"language": "fr"})
    assert final.refresh().language == ""


def test_a_new_event_of_a_series_takes_the_series_language() -> None:
    staff = make_user("Staff", staff=True)
    series_id = seasons.series_create(by=staff, name="Liga del jueves").series_id
    saved = seasons.series_defaults_set(series_id=series_id, by=staff, language="es")
    assert saved.language == "es"
    first = seasons.series_next_event(series_id=series_id, by=staff)
    assert Event.objects.get(pk=first.event_id).language == "es"
    # The next one takes it too, even where the last event chose another.
    services.event_update(event_id=first.event_id, by=staff, changes={"language": "fr"})
    second = seasons.series_next_event(series_id=series_id, by=staff)
    assert Event.objects.get(pk=second.event_id).language == "es"
    with pytest.raises(Invalid):
        seasons.series_defaults_set(series_id=series_id, by=staff, language="it")
    assert Series.objects.get(pk=series_id).language == "es"
    # Blank again: the deployment's own.
    assert seasons.series_defaults_set(series_id=series_id, by=staff, language="").language == ""


def test_the_api_sets_it_and_refuses_an_unknown_code() -> None:
    table = make_table()
    api = Api(table.house)
    response = api.patch(f"/api/events/{table.event.pk}/", {"language": "fr"})
    assert response.status_code == 200
    assert response.json()["changed"] == ["language"]
    assert api.get(f"/api/events/{table.event.pk}/").json()["language"] == "fr"
    with unchanged(table.event):
        response = api.patch(f"/api/events/{table.event.pk}/", {"language": "klingon"})
        assert error(response) == (400, "invalid")
    assert table.refresh().language == "fr"
