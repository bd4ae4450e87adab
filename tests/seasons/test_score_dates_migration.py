"""The data migration that dates each kept score: standings kept before it count equal event totals
by date afterwards (docs/rules.md section 14.3)."""

from __future__ import annotations

import importlib

import pytest
from django.apps import apps

from seasons.models import SeasonResult, SeasonStanding
from tests.seasons.support import make_league

pytestmark = pytest.mark.django_db

migration = importlib.import_module("seasons.migrations.0005_season_scores_carry_event_dates")


def test_kept_scores_gain_their_event_dates_and_count_the_earlier_event() -> None:
    league = make_league(4)
    league.open_season(
        {"high_points": [], "low_points": [], "attendance": 1, "best_of": 1, "min_events": 1}
    )
    later = league.night(3, league.players, seed=5)
    earlier = league.night(1, league.players, seed=6)
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
    # As they were kept before: no dates, the lower event id counted on equal totals.
    for standing in SeasonStanding.objects.filter(season=league.season):
        standing.scores = [score[:4] for score in standing.scores]
        if standing.player_id in both:
            standing.counted = [later]
        standing.save(update_fields=["scores", "counted"])
    migration.add_event_dates(apps, None)
    dates = {later: "2026-09-24", earlier: "2026-09-10"}
    for standing in SeasonStanding.objects.filter(season=league.season):
        assert all(len(score) == 5 and score[4] == dates[score[0]] for score in standing.scores)
        if standing.player_id in both:
            assert standing.counted == [earlier] and standing.total == 1
