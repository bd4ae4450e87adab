"""What the tests of players' data share: a signed-in client, a season checked against its
events' audits as anyone would check it, and a night of a league's series."""

from __future__ import annotations

import json
from typing import Any

from django.test import Client

from accounts.models import User
from audit.export import audit_document
from audit.verify import verify
from events import services
from events.models import Event
from seasons import services as seasons_services
from seasons.export import season_document
from seasons.verify import verify_season
from tests.factories import Table
from tests.seasons.support import FIRST, WEEK, League


def signed_in(user: User) -> Client:
    client = Client()
    client.force_login(user)
    return client


def audits(event_ids: list[int]) -> dict[str, str]:
    return {
        f"audit-{event_id}.json": json.dumps(audit_document(Event.objects.get(pk=event_id)))
        for event_id in event_ids
    }


def season_verifies(league: League) -> dict[str, Any]:
    season = league.season
    document = json.loads(json.dumps(season_document(season)))
    events = [event["event_id"] for event in document["events"]]
    for text in audits(events).values():
        verdict = verify(json.loads(text))
        assert verdict.ok, verdict.problem
    season_verdict = verify_season(json.dumps(document), audits(events))
    assert season_verdict.ok, season_verdict.problem
    return document


def series_night(league: League, week: int) -> Table:
    """An event of the league's series, open for registration, run by the series' House."""
    event_id = services.event_create(
        by=league.house,
        name=f"Week {week + 1}",
        date=FIRST + WEEK * week,
        format="league",
        contribution=10,
        remainder_policy="Unallocated dollars roll into the next event.",
    ).event_id
    seasons_services.event_series_set(
        event_id=event_id, series_id=league.series_id, by=league.house
    )
    services.registration_open(event_id=event_id, by=league.house)
    return Table(event=Event.objects.get(pk=event_id), house=league.house)
