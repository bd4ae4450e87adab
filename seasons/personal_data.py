"""What the seasons keep about a person (accounts/registry.py): their public player id, their
season results and standings, their championship invitations, their roles in series' staff and
the invitations to it they sent or that were sent to them.

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
    SeriesStaff,
    SeriesStaffInvitation,
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


def export_series_staff(user: User) -> dict[str, Any]:
    return {
        "roles": [
            {"series": series_id, "name": name, "role": role}
            for series_id, name, role in SeriesStaff.objects.filter(user=user)
            .order_by("series_id")
            .values_list("series_id", "series__name", "role")
        ],
        "invitations": [
            {
                "series": invitation.series_id,
                "name": invitation.series.name,
                "email": invitation.email,
                "role": invitation.role,
                "sent_by_you": invitation.invited_by_id == user.pk,
                "created_at": invitation.created_at.isoformat(),
                "accepted_at": invitation.accepted_at.isoformat()
                if invitation.accepted_at
                else None,
            }
            for invitation in SeriesStaffInvitation.objects.filter(
                Q(invited_by=user) | Q(email__iexact=user.email)
            )
            .select_related("series")
            .order_by("pk")
        ],
    }


def forget_invitations(erasure: Erasure) -> None:
    """As an event's (events/personal_data.py): sent ones lose their sender, accepted ones go."""
    user = erasure.user
    SeriesStaffInvitation.objects.filter(invited_by=user).update(invited_by=None)
    SeriesStaffInvitation.objects.filter(
        email__iexact=user.email, accepted_at__isnull=False
    ).delete()


register(
    Handler(
        name="seasons",
        models=(PlayerKey, SeasonResult, SeasonStanding, ChampionshipInvitation),
        export=export_seasons,
        erase=pass_to_former_player,
    )
)
register(
    Handler(
        name="series_staff",
        models=(SeriesStaff, SeriesStaffInvitation),
        export=export_series_staff,
        erase=forget_invitations,
    )
)
