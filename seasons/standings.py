"""Season standings kept one finalized event at a time (docs/rules.md section 14.4).

`on_change` listens to the engine's committed changes (events.changes) and records an event in
its seasons when the change wrote "event_finalized": one row per player of that event, and the
season totals of those players only, so a finalization touches nothing else of the season.
Finalized events never change (docs/rules.md section 10.1), so nothing ever recomputes them.
"""

from __future__ import annotations

import logging
from collections import defaultdict
from collections.abc import Iterable, Mapping, Sequence

from django.db import transaction
from django.db.models import QuerySet
from django.utils import timezone

from accounts.models import User
from events.changes import Committed
from events.models import Event, Phase, RegistrationStatus
from seasons.models import PlayerKey, Season, SeasonResult, SeasonStanding
from seasons.points import Finish, Rules, Scored, event_points, season_total

logger = logging.getLogger(__name__)

FINISHED = (RegistrationStatus.CHECKED_IN, RegistrationStatus.WITHDRAWN)


def on_change(change: Committed) -> None:
    if "event_finalized" in change.actions:
        record_event(event_id=change.event_id)


def seasons_counting(event: Event) -> QuerySet[Season]:
    """The seasons an event counts in: those of its series whose dates hold its date, unless it
    is a season's championship."""
    if event.series_id is None or Season.objects.filter(championship_id=event.pk).exists():
        return Season.objects.none()
    return Season.objects.filter(
        series_id=event.series_id, starts_on__lte=event.date, ends_on__gte=event.date
    )


def record_event(*, event_id: int) -> int:
    """Record a finalized event in each season it counts in (again: nothing); the number of
    seasons that took it."""
    event = Event.objects.filter(pk=event_id, phase=Phase.FINALIZED).first()
    if event is None:
        return 0
    recorded = 0
    for season_id in seasons_counting(event).values_list("pk", flat=True):
        with transaction.atomic(durable=True):
            season = Season.objects.select_for_update().get(pk=season_id)
            if not SeasonResult.objects.filter(season=season, event=event).exists():
                record_in_season(season, event)
                recorded += 1
    return recorded


def record_in_season(season: Season, event: Event) -> None:
    """Write the event's rows and move its players' totals; the caller holds the season's lock."""
    rules = Rules.from_dict(season.rules)
    registrations = list(
        event.registrations.filter(status__in=FINISHED, player__isnull=False).values_list(
            "player_id", "player__display_name", "label", "status", "high_place", "low_place"
        )
    )
    rows = []
    names = {}
    for player_id, name, label, status, high, low in registrations:
        finish = Finish(
            eligible=status == RegistrationStatus.CHECKED_IN, high_place=high, low_place=low
        )
        names[player_id] = name
        rows.append(
            SeasonResult(
                season=season,
                event=event,
                player_id=player_id,
                label=label,
                eligible=finish.eligible,
                high_place=high if finish.eligible else None,
                low_place=low if finish.eligible else None,
                points=event_points(rules, finish),
            )
        )
    SeasonResult.objects.bulk_create(rows)
    if season.locked_at is None:
        season.locked_at = timezone.now()
        season.save(update_fields=["locked_at"])
    keyed = set(PlayerKey.objects.filter(user_id__in=names).values_list("user_id", flat=True))
    if missing := [player for player in names if player not in keyed]:
        PlayerKey.objects.bulk_create(
            [PlayerKey(user_id=player) for player in missing], ignore_conflicts=True
        )
    # Each player's kept scores, this event's added: no other event's rows are read.
    kept = dict(
        SeasonStanding.objects.filter(season=season, player_id__in=names).values_list(
            "player_id", "scores"
        )
    )
    scores = {
        row.player_id: [
            *(Scored(*score) for score in kept.get(row.player_id, [])),
            Scored(
                event.pk,
                row.points,
                row.eligible,
                row.eligible and row.high_place == 1,
                event.date.isoformat(),
            ),
        ]
        for row in rows
    }
    save_totals(season, rules, scores, names)


def save_totals(
    season: Season,
    rules: Rules,
    scores: Mapping[int, Sequence[Scored]],
    names: Mapping[int, str],
) -> None:
    """Store these players' scores and season totals (one statement)."""
    SeasonStanding.objects.bulk_create(
        [
            SeasonStanding(
                season=season,
                player_id=player_id,
                display_name=names.get(player_id, ""),
                total=total.total,
                events=total.events,
                high_firsts=total.high_firsts,
                counted=list(total.counted),
                scores=[
                    [score.event_id, score.points, score.eligible, score.high_first, score.date]
                    for score in played
                ],
            )
            for player_id, played in scores.items()
            for total in [season_total(rules, played)]
        ],
        update_conflicts=True,
        unique_fields=["season", "player"],
        update_fields=["display_name", "total", "events", "high_firsts", "counted", "scores"],
    )


def rebuild_totals(season: Season, players: Iterable[int] | None = None) -> None:
    """Recompute players' season totals from every row of the season (all players: None)."""
    rows = SeasonResult.objects.filter(season=season)
    if players is not None:
        rows = rows.filter(player_id__in=list(players))
    scores: dict[int, list[Scored]] = defaultdict(list)
    for player_id, event_id, points, eligible, high, date in rows.values_list(
        "player_id", "event_id", "points", "eligible", "high_place", "event__date"
    ):
        scores[player_id].append(
            Scored(event_id, points, eligible, eligible and high == 1, date.isoformat())
        )
    names = dict(User.objects.filter(pk__in=scores).values_list("pk", "display_name"))
    save_totals(season, Rules.from_dict(season.rules), scores, names)


def catch_up(season: Season) -> int:
    """Record the season's finalized events it does not hold yet (a listener that failed after a
    commit, or events finalized before the season was opened); the number recorded."""
    held = SeasonResult.objects.filter(season=season).values("event_id")
    missing = (
        Event.objects.filter(
            series_id=season.series_id,
            phase=Phase.FINALIZED,
            date__gte=season.starts_on,
            date__lte=season.ends_on,
        )
        .exclude(pk__in=held)
        .exclude(championship_of__isnull=False)
        .order_by("finalized_at", "pk")
        .values_list("pk", flat=True)
    )
    return sum(record_event(event_id=event_id) for event_id in list(missing))
