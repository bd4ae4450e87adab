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
from django.db.models import Exists, OuterRef, QuerySet
from django.utils import timezone

from accounts.models import User
from audit.models import AuditEntry
from events.changes import Committed
from events.models import Event, Phase, Registration, RegistrationStatus
from events.registration import RELABELLED
from seasons.models import (
    FormerPlayer,
    PlayerKey,
    Season,
    SeasonResult,
    SeasonStanding,
    series_id_of,
)
from seasons.points import Finish, Rules, Scored, event_points, season_total
from seasons.reads import held_by_formers

logger = logging.getLogger(__name__)

FINISHED = (RegistrationStatus.CHECKED_IN, RegistrationStatus.WITHDRAWN)


def on_change(change: Committed) -> None:
    if "event_finalized" in change.actions:
        record_event(event_id=change.event_id)


def seasons_counting(event: Event) -> QuerySet[Season]:
    """The seasons an event counts in: those of its series whose dates hold its date, unless it
    is a season's championship."""
    series_id = series_id_of(event.pk)
    if series_id is None or Season.objects.filter(championship_id=event.pk).exists():
        return Season.objects.none()
    return Season.objects.filter(
        series_id=series_id, starts_on__lte=event.date, ends_on__gte=event.date
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


def record_in_season(season: Season, event: Event, only: list[int] | None = None) -> None:
    """Write the event's rows (or `only` these registrations') and move its players' totals; the
    caller holds the season's lock.

    A registration whose account was deleted counts under its former player (FormerPlayer), so
    every player the event's audit lists has a row (docs/decisions.md, "Players' data")."""
    rules = Rules.from_dict(season.rules)
    finished = event.registrations.filter(status__in=FINISHED)
    if only is not None:  # rows a recording skipped (`mend`)
        finished = finished.filter(pk__in=only)
    registrations = list(
        finished.values_list(
            "pk", "player_id", "player__display_name", "label", "status", "high_place", "low_place"
        )
    )
    formers = formers_of([row[0] for row in registrations if row[1] is None])
    rows = []
    names: dict[int, str] = {}
    former_names: dict[int, str] = {}
    for registration_id, player_id, name, label, status, high, low in registrations:
        finish = Finish(
            eligible=status == RegistrationStatus.CHECKED_IN, high_place=high, low_place=low
        )
        former = formers.get(registration_id) if player_id is None else None
        if former is not None:
            former_names[former.pk] = former.display_name
        else:
            names[player_id] = name
        rows.append(
            SeasonResult(
                season=season,
                event=event,
                player_id=player_id,
                former=former,
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
    for holder, held in (("player", names), ("former", former_names)):
        # Each player's kept scores, this event's added: no other event's rows are read.
        kept = dict(
            SeasonStanding.objects.filter(
                season=season, **{f"{holder}_id__in": list(held)}
            ).values_list(f"{holder}_id", "scores")
        )
        scores = {
            key: [
                *(Scored(*score) for score in kept.get(key, [])),
                Scored(
                    event.pk,
                    row.points,
                    row.eligible,
                    row.eligible and row.high_place == 1,
                    event.date.isoformat(),
                ),
            ]
            for row in rows
            for key in [getattr(row, f"{holder}_id")]
            if key is not None
        }
        save_totals(season, rules, scores, held, holder=holder)


def formers_of(registration_ids: list[int]) -> dict[int, FormerPlayer]:
    """The former player each registration without an account counts under, by registration id:
    the one its deletion made, else (an account deleted before former players were kept) one of
    its own."""
    found = held_by_formers(registration_ids)
    labels = dict(Registration.objects.filter(pk__in=registration_ids).values_list("pk", "label"))
    for registration_id in registration_ids:
        if registration_id not in found:
            found[registration_id] = FormerPlayer.objects.create(
                display_name=labels[registration_id], registrations=[registration_id]
            )
    return found


def save_totals(
    season: Season,
    rules: Rules,
    scores: Mapping[int, Sequence[Scored]],
    names: Mapping[int, str],
    *,
    holder: str = "player",
) -> None:
    """Store these players' (or, `holder` "former", former players') scores and season totals
    (one statement)."""
    SeasonStanding.objects.bulk_create(
        [
            SeasonStanding(
                season=season,
                **{f"{holder}_id": key},
                display_name=names.get(key, ""),
                total=total.total,
                events=total.events,
                high_firsts=total.high_firsts,
                counted=list(total.counted),
                scores=[
                    [score.event_id, score.points, score.eligible, score.high_first, score.date]
                    for score in played
                ],
            )
            for key, played in scores.items()
            for total in [season_total(rules, played)]
        ],
        update_conflicts=True,
        unique_fields=["season", holder],
        update_fields=["display_name", "total", "events", "high_firsts", "counted", "scores"],
    )


def rebuild_totals(season: Season, players: Iterable[int] | None = None) -> None:
    """Recompute accounts' season totals from every row of the season (all accounts: None)."""
    rows = SeasonResult.objects.filter(season=season, player__isnull=False)
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
            series=season.series_id,
            phase=Phase.FINALIZED,
            date__gte=season.starts_on,
            date__lte=season.ends_on,
        )
        .exclude(pk__in=held)
        .exclude(championship_of__isnull=False)
        .order_by("finalized_at", "pk")
        .values_list("pk", flat=True)
    )
    recorded = sum(record_event(event_id=event_id) for event_id in list(missing))
    mend(season)
    return recorded


def _stale(season: Season) -> QuerySet[SeasonResult]:
    """The season's rows under a label no registration of their event holds any more."""
    return SeasonResult.objects.filter(season=season).exclude(
        Exists(Registration.objects.filter(event_id=OuterRef("event_id"), label=OuterRef("label")))
    )


def _skipped(season: Season) -> QuerySet[Registration]:
    """The finished registrations of the season's recorded events that have no row."""
    return Registration.objects.filter(
        event_id__in=SeasonResult.objects.filter(season=season).values("event_id"),
        status__in=FINISHED,
    ).exclude(
        Exists(
            SeasonResult.objects.filter(
                season=season, event_id=OuterRef("event_id"), label=OuterRef("label")
            )
        )
    )


def mend(season: Season) -> int:
    """Mend what a deletion left in a season before deletions were one transaction and kept
    season rows (docs/decisions.md, "One owner for players' data"): a row under a label its
    registration has left takes the label the event's chain gave it, and a deleted account's
    registration a recording skipped gets its row, under a former player. The rows mended."""
    if not (_stale(season).exists() or _skipped(season).exists()):
        return 0
    with transaction.atomic(durable=True):
        season = Season.objects.select_for_update().get(pk=season.pk)
        stale = list(_stale(season))
        for row in stale:
            row.label = relabelled(row)
        SeasonResult.objects.bulk_update(stale, ["label"])
        skipped: dict[int, list[int]] = defaultdict(list)
        for event_id, registration_id in _skipped(season).values_list("event_id", "pk"):
            skipped[event_id].append(registration_id)
        for event_id, registration_ids in sorted(skipped.items()):
            record_in_season(season, Event.objects.get(pk=event_id), only=registration_ids)
    return len(stale) + sum(len(ids) for ids in skipped.values())


def relabelled(result: SeasonResult) -> str:
    """The label the result's registration took in its event's chain when its account was
    deleted (player_relabelled), else its own."""
    return str(
        AuditEntry.objects.filter(event_id=result.event_id, action=RELABELLED, player=result.label)
        .order_by("seq")
        .values_list("details__label", flat=True)
        .first()
        or result.label
    )
