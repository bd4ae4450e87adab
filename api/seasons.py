"""The REST API of series, seasons and players' histories (docs/rules.md section 14): each
endpoint calls one service (seasons.services) or one read (seasons.reads), as api/endpoints.py
declares them."""

from __future__ import annotations

from django.utils.translation import gettext as _

from accounts.models import User
from api import schema
from api.endpoints import PublicReadView, Section
from events.errors import NotFound
from seasons import request_bodies as body
from seasons import services
from seasons.export import SeasonExport, season_csv, season_document
from seasons.models import PlayerKey, Season, Series
from seasons.reads import (
    PlayerHistory,
    SeasonTable,
    SeriesItem,
    SeriesView,
    player_history,
    season_table,
    series_list,
    series_view,
)
from seasons.standings import catch_up

SEASONS = Section(["Series and seasons"])


def known_series(series_id: int) -> Series:
    """A series by its id (series are public: anyone may learn that one exists)."""
    series = Series.objects.filter(pk=series_id).first()
    if series is None:
        raise NotFound(_("No such series."))
    return series


def _season(season_id: int) -> Season:
    season = Season.objects.select_related("series").filter(pk=season_id).first()
    if season is None:
        raise NotFound(_("No such season."))
    return season


def _player(player_id: str) -> User:
    """A player by their public id; a closed account is no one's to look up."""
    key = PlayerKey.objects.select_related("user").filter(public_id=player_id).first()
    if key is None or not key.user.is_active:
        raise NotFound(_("No such player."))
    return key.user


class SeriesList(PublicReadView):
    get = SEASONS.read(
        lambda viewer: series_list(),
        summary="List series",
        answer=schema.read_model(SeriesItem)(many=True),
        public=True,
    )
    post = SEASONS.write(
        services.series_create,
        summary="Create a series (site staff, or an organization's owner or a director)",
        description="Site staff's series: its creator becomes its first House member, House "
        "for every event of it. In an organization (`organization_id`): its staff's roles hold "
        "in it.",
        body=body.SeriesCreate,
        status=201,
    )


class SeriesDetail(PublicReadView):
    get = SEASONS.read(
        lambda viewer, series_id: series_view(known_series(series_id), viewer),
        summary="A series, its seasons and events",
        description="Draft events are listed for the series' House only.",
        answer=schema.read_model(SeriesView),
        public=True,
    )
    patch = SEASONS.write(
        services.series_defaults_set,
        summary="Set the defaults the series' events take (its owner or a director)",
        description="The entry mode, the age players confirm, the capacity, hold times, paying "
        "ahead and the registration window (as offsets from each event's date), taken by each "
        "event made in the series or put in it as a draft; events already in it keep their own "
        "settings.",
        body=body.SeriesDefaults,
    )


NextEvent = SEASONS.post(
    services.series_next_event,
    summary="Create the series' next event (its House, site staff)",
    description="A draft with the last event's settings, named with its date, a week later "
    "unless a date is given; a series with no event yet gets its first from the series' "
    "settings and defaults, dated today in its time zone.",
    body=body.NextEvent,
    status=201,
)


EventSeries = SEASONS.post(
    services.event_series_set,
    summary="Put an event in a series, or take it out (House of both)",
    description="Only before the event starts; a started event stays in its series.",
    body=body.EventSeries,
)


Seasons = SEASONS.post(
    services.season_create,
    summary="Open a season of a series (its House)",
    description="Its points rules (defaults for keys left out) lock at its first finalized event.",
    body=body.SeasonCreate,
    status=201,
)


class SeasonDetail(PublicReadView):
    get = SEASONS.read(
        lambda viewer, season_id: season_table(_season(season_id)),
        summary="A season's table",
        description="Ranks, totals, counted events and the championship line; players by public "
        "id and display name.",
        answer=schema.read_model(SeasonTable),
        public=True,
    )
    patch = SEASONS.write(
        services.season_update,
        summary="Change a season's name, dates or rules (its series' House)",
        description="The rules lock at the first finalized event; the dates never leave out an "
        "event that has started in the season.",
        body=body.SeasonUpdate,
    )


def _caught_up(season: Season) -> Season:
    """The season with every finalized night of it counted."""
    catch_up(season)
    return season


class SeasonDownload(PublicReadView):
    get = SEASONS.download(
        lambda viewer, season_id: _season(season_id),
        document=lambda season: season_document(_caught_up(season)),
        csv=lambda season: season_csv(_caught_up(season)),
        filename=lambda season: f"season-{season.pk}.csv",
        summary="Download a season",
        description="What `manage.py verify_season` checks against the events' audit exports.",
        formats="`json` (the season, its events' signed heads and the table) or `csv` (the table).",
        answer=schema.read_model(SeasonExport),
        rows="One row a player.",
        public=True,
    )


Championship = SEASONS.post(
    services.championship_create,
    summary="Create the season's championship (its series' House)",
    description="At the season's end: an event with registration open, the qualified "
    "players invited first.",
    body=body.Championship,
    status=201,
)


PlayerHistoryView = SEASONS.get(
    lambda viewer, player_id: player_history(_player(player_id), viewer),
    summary="A player's history",
    description="Every finalized event they played. Their own history shows every hand they "
    "held; anyone else sees what the public final results show (a withdrawn player only as "
    "withdrawn).",
    answer=schema.read_model(PlayerHistory),
    public=True,
)


MyHistory = SEASONS.get(
    lambda viewer: player_history(viewer, viewer),
    summary="My history",
    description="Every finalized event I played, my hands included, and my championship "
    "invitations.",
    answer=schema.read_model(PlayerHistory),
)
