"""Seasons: rules chosen at the start and locked at the first finalized event, dates that never
leave out a started event, and standings moved one finalized event at a time
(docs/rules.md sections 14.2 to 14.4, 14.6)."""

from __future__ import annotations

import datetime
import io
import json
from pathlib import Path

import pytest
from django.core.management import call_command
from django.db import connection
from django.test.utils import CaptureQueriesContext

from audit.export import audit_document
from events.errors import Invalid, NotFound, WrongState
from events.models import Event, Registration, RegistrationStatus
from seasons import services
from seasons.models import (
    ChampionshipInvitation,
    Season,
    SeasonResult,
    SeasonStanding,
    series_id_of,
)
from seasons.reads import season_table
from seasons.standings import rebuild_totals, record_event
from tests.factories import make_user
from tests.seasons.support import FIRST, WEEK, League, make_league, refused_season

pytestmark = pytest.mark.django_db

RULES = {
    "high_points": [10, 7, 5],
    "low_points": [4, 2],
    "attendance": 1,
    "best_of": 2,
    "min_events": 2,
    "qualifiers": 2,
}


def expected_points(registration: Registration) -> int:
    """The issue's formula, written out again for the test."""
    if registration.status != RegistrationStatus.CHECKED_IN:
        return 0
    high = [10, 7, 5][registration.high_place - 1] if registration.high_place <= 3 else 0  # type: ignore[operator]
    low = [4, 2][registration.low_place - 1] if registration.low_place <= 2 else 0  # type: ignore[operator]
    return 1 + high + low


def test_a_season_opens_with_the_default_rules_for_keys_not_given() -> None:
    league = make_league()
    league.open_season({"best_of": 4})
    rules = league.season.rules
    assert rules["best_of"] == 4
    assert rules["high_points"] == [10, 7, 5, 3, 2, 1]
    assert league.season.locked_at is None


@pytest.mark.parametrize(
    "rules",
    [
        {"high_points": [10, "7"]},
        {"low_points": [3, -1]},
        {"high_points": 10},
        {"best_of": -1},
        {"attendance": 1.5},
        {"qualifiers": None},
    ],
)
def test_rules_that_are_not_whole_non_negative_numbers_are_refused(rules: dict) -> None:
    league = make_league()
    refused_season(Invalid, lambda: league.open_season(rules))


def test_bad_dates_and_overlapping_seasons_are_refused() -> None:
    league = make_league()
    refused_season(
        WrongState,
        lambda: services.season_create(
            series_id=league.series_id,
            by=league.house,
            name="Backwards",
            starts_on=FIRST,
            ends_on=FIRST - WEEK,
        ),
    )
    league.open_season()
    refused_season(
        WrongState,
        lambda: services.season_create(
            series_id=league.series_id,
            by=league.house,
            name="Overlap",
            starts_on=FIRST + WEEK,
            ends_on=FIRST + 20 * WEEK,
        ),
    )
    refused_season(  # a stranger to the series: not found or not theirs
        NotFound,
        lambda: services.season_update(season_id=league.season.pk, by=make_user(), name="Mine"),
    )


def test_each_finalization_adds_its_points_and_locks_the_rules() -> None:
    league = make_league(6)
    league.open_season(RULES)
    ann, bob, cy, dee, eve, fay = league.players
    first = league.night(0, [ann, bob, cy, dee, eve], seed=1)  # eve late, dee withdraws
    season = league.season
    assert season.locked_at is not None
    rows = {r.player_id: r for r in SeasonResult.objects.filter(season=season, event_id=first)}
    for registration in Registration.objects.filter(event_id=first):
        assert registration.player_id is not None
        assert rows[registration.player_id].points == expected_points(registration)
    assert rows[dee.pk].points == 0 and not rows[dee.pk].eligible
    refused_season(
        WrongState,
        lambda: services.season_update(
            season_id=season.pk, by=league.house, rules={**RULES, "attendance": 5}
        ),
    )
    # Same rules again is no change, and the name can still change.
    services.season_update(season_id=season.pk, by=league.house, rules=RULES, name="Autumn 26")

    second = league.night(1, [ann, bob, cy, fay], seed=2)
    third = league.night(2, [ann, bob, fay, cy], seed=3)
    for player in league.players:
        mine = list(
            SeasonResult.objects.filter(season=season, player=player).values_list(
                "event_id", "points", "eligible"
            )
        )
        best = sorted(mine, key=lambda row: (-row[1], row[0]))[:2]
        standing = SeasonStanding.objects.filter(season=season, player=player).first()
        if not mine:
            assert standing is None
            continue
        assert standing is not None
        assert standing.total == sum(points for _, points, _ in best)
        assert standing.counted == sorted(event for event, _, _ in best)
        assert standing.events == sum(1 for *_, eligible in mine if eligible)
    assert {e for e in SeasonResult.objects.values_list("event_id", flat=True)} == {
        first,
        second,
        third,
    }


def test_a_finalization_touches_only_its_own_players_rows() -> None:
    league = make_league(8)
    league.open_season(RULES)
    early = league.players[:4]
    late = league.players[4:]
    league.night(0, early, seed=4)
    before = {
        s.player_id: (s.total, s.counted) for s in SeasonStanding.objects.filter(player__in=early)
    }
    event_id = league.night(1, late, seed=5)
    after = {
        s.player_id: (s.total, s.counted) for s in SeasonStanding.objects.filter(player__in=early)
    }
    assert after == before
    # Recording again does nothing, in a bounded number of statements.
    with CaptureQueriesContext(connection) as queries:
        assert record_event(event_id=event_id) == 0
    assert len(queries) <= 8  # the event, its seasons, each season locked and asked, savepoints


def test_dates_may_not_leave_out_a_started_event() -> None:
    league = make_league(4)
    league.open_season(RULES, weeks=6)
    event_id = league.night(3, league.players, seed=6)
    event_date = Event.objects.get(pk=event_id).date
    refused_season(
        WrongState,
        lambda: services.season_update(
            season_id=league.season.pk, by=league.house, ends_on=event_date - datetime.timedelta(1)
        ),
    )
    services.season_update(season_id=league.season.pk, by=league.house, ends_on=event_date)
    assert league.season.ends_on == event_date


def test_events_outside_the_seasons_dates_or_series_count_nowhere() -> None:
    league = make_league(4)
    league.open_season(RULES, weeks=2)
    outside = league.night(5, league.players, seed=7)
    assert not SeasonResult.objects.filter(event_id=outside).exists()
    assert league.season.locked_at is None


def test_a_season_opened_after_its_first_nights_counts_them() -> None:
    league = make_league(4)
    event_id = league.night(0, league.players, seed=8)
    answer = services.season_create(
        series_id=league.series_id,
        by=league.house,
        name="Late start",
        starts_on=FIRST,
        ends_on=FIRST + 3 * WEEK,
    )
    assert answer.counted_events == 1
    assert SeasonResult.objects.filter(event_id=event_id).count() == 4


def test_the_championship_invites_the_qualified_players_at_the_seasons_end() -> None:
    league = make_league(5)
    league.open_season({**RULES, "min_events": 1, "qualifiers": 2}, weeks=2)
    league.night(0, league.players, seed=9)
    season = league.season
    refused_season(
        WrongState,
        lambda: services.championship_create(
            season_id=season.pk, by=league.house, date=season.ends_on - WEEK
        ),
    )
    refused_season(  # a stranger to the series: not found or not theirs
        NotFound,
        lambda: services.championship_create(
            season_id=season.pk, by=make_user(), date=season.ends_on + WEEK
        ),
    )
    answer = services.championship_create(
        season_id=season.pk, by=league.house, date=season.ends_on + WEEK, idempotency_key="ch"
    )
    assert (
        services.championship_create(
            season_id=season.pk, by=league.house, date=season.ends_on + WEEK, idempotency_key="ch"
        )
        == answer
    )
    qualified = [row for row in season_table(season).rows if row.qualified]
    assert answer.invited == [row.player_id for row in qualified]
    assert len(qualified) >= 2
    assert ChampionshipInvitation.objects.filter(season=season).count() == len(qualified)
    championship = Event.objects.get(pk=answer.event_id)
    assert championship.registration_open and series_id_of(championship.pk) == league.series_id
    assert Season.objects.get(pk=season.pk).championship_id == championship.pk
    refused_season(
        WrongState,
        lambda: services.championship_create(
            season_id=season.pk, by=league.house, date=season.ends_on + WEEK
        ),
    )


def test_the_championship_is_dated_after_the_seasons_last_day() -> None:
    """docs/rules.md section 14.6: dated after the season; its last day is still the season."""
    league = make_league(4)
    league.open_season({**RULES, "min_events": 1}, weeks=2)
    league.night(0, league.players, seed=9)
    season = league.season
    refused_season(
        WrongState,
        lambda: services.championship_create(
            season_id=season.pk, by=league.house, date=season.ends_on
        ),
    )
    answer = services.championship_create(
        season_id=season.pk, by=league.house, date=season.ends_on + datetime.timedelta(days=1)
    )
    assert Event.objects.get(pk=answer.event_id).date == season.ends_on + datetime.timedelta(days=1)


def test_best_of_counts_the_earlier_event_of_equal_totals_by_date_not_by_id(
    tmp_path: Path,
) -> None:
    """docs/rules.md section 14.3: equal event totals, the earlier event counts. The later
    night is created (and finalized) first, so it has the lower id; the table, its stored
    totals, a rebuild from every row and the season verifier all count the earlier date."""
    league = make_league(4)
    # Every eligible finish is worth 1 point: equal totals whatever the cards.
    league.open_season(
        {"high_points": [], "low_points": [], "attendance": 1, "best_of": 1, "min_events": 1}
    )
    later = league.night(3, league.players, seed=5)
    earlier = league.night(1, league.players, seed=6)
    assert later < earlier
    both = set(
        SeasonResult.objects.filter(event_id=later, eligible=True).values_list(
            "player_id", flat=True
        )
    ) & set(
        SeasonResult.objects.filter(event_id=earlier, eligible=True).values_list(
            "player_id", flat=True
        )
    )
    assert both
    for standing in SeasonStanding.objects.filter(season=league.season, player_id__in=both):
        assert standing.counted == [earlier] and standing.total == 1
    rebuild_totals(league.season)
    for standing in SeasonStanding.objects.filter(season=league.season, player_id__in=both):
        assert standing.counted == [earlier]
    rows = [row for row in season_table(league.season).rows if row.total == 1]
    assert rows and all(row.counted in ([earlier], [later]) for row in rows)
    assert sum(row.counted == [earlier] for row in rows) == len(both)
    # The season verifier, from the exports alone, agrees.
    out = io.StringIO()
    call_command("export_season", str(league.season.pk), stdout=out)
    season_file = tmp_path / "season.json"
    season_file.write_text(out.getvalue())
    files = []
    for event_id in (later, earlier):
        path = tmp_path / f"audit-{event_id}.json"
        path.write_text(json.dumps(audit_document(Event.objects.get(pk=event_id))))
        files.append(str(path))
    out = io.StringIO()
    call_command("verify_season", str(season_file), *files, stdout=out)
    assert "OK: the season verifies." in out.getvalue()


def test_a_season_still_running_has_no_championship_yet() -> None:
    league = make_league(4)
    today = datetime.date.today()
    services.season_create(
        series_id=league.series_id,
        by=league.house,
        name="Now",
        starts_on=today - WEEK,
        ends_on=today + WEEK,
    )
    season = Season.objects.get(series_id=league.series_id)
    refused_season(
        WrongState,
        lambda: services.championship_create(
            season_id=season.pk, by=league.house, date=today + 2 * WEEK
        ),
    )


__all__ = ["League"]
