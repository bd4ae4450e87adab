"""What the seasons keep about a person (accounts/registry.py): their public player id, their
season results and standings, their championship invitations.

A deletion keeps the season tables whole: the account's rows pass to a former player of their
own (a fresh public id, never the account's, and a neutral name), each result under the neutral
label its event's chain gave the registration, so every season export still verifies; the
registrations of events not finalized yet join that former player when they are
(seasons/standings.py)."""

from __future__ import annotations

from typing import Any

from django.db.models import Q

from accounts.models import User
from accounts.registry import Erasure, Handler, register
from events.models import Registration
from seasons.models import (
    ChampionshipInvitation,
    FormerPlayer,
    PlayerKey,
    Season,
    SeasonResult,
    SeasonStanding,
)
from seasons.standings import relabelled

NEUTRAL_NAME = "Former player"


def export_seasons(user: User) -> dict[str, Any]:
    key = PlayerKey.objects.filter(user=user).values_list("public_id", flat=True).first()
    return {
        "player_id": key,
        "results": [
            {
                "season": season_id,
                "name": name,
                "event": event_id,
                "label": label,
                "eligible": eligible,
                "high_place": high,
                "low_place": low,
                "points": points,
            }
            for season_id, name, event_id, label, eligible, high, low, points in (
                SeasonResult.objects.filter(player=user)
                .order_by("season_id", "event_id")
                .values_list(
                    "season_id",
                    "season__name",
                    "event_id",
                    "label",
                    "eligible",
                    "high_place",
                    "low_place",
                    "points",
                )
            )
        ],
        "standings": [
            {
                "season": season_id,
                "name": name,
                "display_name": shown,
                "total": total,
                "events": events,
                "counted": counted,
            }
            for season_id, name, shown, total, events, counted in (
                SeasonStanding.objects.filter(player=user)
                .order_by("season_id")
                .values_list(
                    "season_id", "season__name", "display_name", "total", "events", "counted"
                )
            )
        ],
        "championship_invitations": [
            {"season": season_id, "name": name, "rank": rank, "invited_at": at.isoformat()}
            for season_id, name, rank, at in ChampionshipInvitation.objects.filter(player=user)
            .order_by("season_id")
            .values_list("season_id", "season__name", "rank", "invited_at")
        ],
    }


def pass_to_former_player(erasure: Erasure) -> None:
    """The account's season rows pass to a former player, under their registrations' neutral
    labels; its championship invitations go (no one is left to invite)."""
    user = erasure.user
    series_registrations = list(
        Registration.objects.filter(pk__in=list(erasure.labels), event__series__isnull=False)
        .order_by("pk")
        .values_list("pk", "event_id")
    )
    # The seasons' locks, in primary key order: a finalization recording an event in one of them
    # meanwhile has committed its rows (read below) or waits, then finds the registration
    # already relabelled.
    held = Season.objects.filter(
        Q(results__player=user)
        | Q(series__events__registrations__pk__in=[pk for pk, _ in series_registrations])
    )
    list(Season.objects.filter(pk__in=held.values("pk")).order_by("pk").select_for_update())
    ChampionshipInvitation.objects.filter(player=user).delete()
    results = list(SeasonResult.objects.filter(player=user))
    standings = SeasonStanding.objects.filter(player=user)
    if not results and not series_registrations and not standings.exists():
        return
    latest = max(erasure.labels, default=None)
    former = FormerPlayer.objects.create(
        display_name=erasure.labels[latest] if latest is not None else NEUTRAL_NAME,
        registrations=[pk for pk, _ in series_registrations],
    )
    label_in = {event_id: erasure.labels[pk] for pk, event_id in series_registrations}
    for result in results:
        result.player = None
        result.former = former
        result.label = label_in.get(result.event_id) or relabelled(result)
    SeasonResult.objects.bulk_update(results, ["player", "former", "label"])
    standings.update(player=None, former=former, display_name=former.display_name)


register(
    Handler(
        name="seasons",
        models=(PlayerKey, SeasonResult, SeasonStanding, ChampionshipInvitation),
        export=export_seasons,
        erase=pass_to_former_player,
    )
)
