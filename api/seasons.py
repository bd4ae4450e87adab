"""The REST API of series, seasons and players' histories (docs/rules.md section 14): each view
parses the request, calls one service (seasons.services) or one read (seasons.reads)."""

from __future__ import annotations

from typing import Any

from django.http import HttpResponse
from drf_spectacular.types import OpenApiTypes
from drf_spectacular.utils import OpenApiParameter, OpenApiResponse
from rest_framework.request import Request
from rest_framework.response import Response

from api import reads, schema
from api.views import ApiView, PublicReadView, actor, answered, valid
from events.errors import NotFound
from events.query import query_choice, refuse_unknown
from events.reads.common import to_json
from seasons import answers, services
from seasons import request_bodies as body
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

SEASONS = ["Series and seasons"]


def known_series(series_id: int) -> Series:
    """A series by its id (series are public: anyone may learn that one exists)."""
    series = Series.objects.filter(pk=series_id).first()
    if series is None:
        raise NotFound("No such series.")
    return series


def _season(season_id: int) -> Season:
    season = Season.objects.select_related("series").filter(pk=season_id).first()
    if season is None:
        raise NotFound("No such season.")
    return season


def _rules(data: dict[str, Any]) -> dict[str, Any] | None:
    rules = data.get("rules")
    return None if rules is None else dict(rules)


class SeriesList(PublicReadView):
    @schema.read(
        summary="List series",
        answer=schema.read_model(SeriesItem)(many=True),
        tags=SEASONS,
        public=True,
    )
    def get(self, request: Request) -> Response:
        return Response(to_json(series_list()))

    @schema.write(
        summary="Create a series (site staff)",
        description="Its creator becomes its first House member: House for every event of it.",
        request=body.SeriesCreate,
        answer=answers.SeriesCreated,
        status=201,
        tags=SEASONS,
    )
    def post(self, request: Request) -> Response:
        answer = services.series_create(
            by=actor(request),
            idempotency_key=self.idempotency_key,
            **valid(request, body.SeriesCreate),
        )
        return answered(answer, status=201)


class SeriesDetail(PublicReadView):
    @schema.read(
        summary="A series, its seasons and events",
        description="Draft events are listed for the series' House only.",
        answer=schema.read_model(SeriesView),
        tags=SEASONS,
        public=True,
    )
    def get(self, request: Request, series_id: int) -> Response:
        return Response(to_json(series_view(known_series(series_id), reads.account(request.user))))

    @schema.write(
        summary="Set the defaults the series' events take (its owner or a director)",
        description="The entry mode and the age players confirm, taken by each event made in "
        "the series or put in it as a draft; events already in it keep their own settings.",
        request=body.SeriesDefaults,
        answer=answers.SeriesDefaultsSaved,
        tags=SEASONS,
    )
    def patch(self, request: Request, series_id: int) -> Response:
        data = valid(request, body.SeriesDefaults)
        return answered(
            services.series_defaults_set(
                series_id=series_id,
                by=actor(request),
                entry_mode=data.get("entry_mode"),
                minimum_age=data.get("minimum_age"),
                idempotency_key=self.idempotency_key,
            )
        )


class NextEvent(ApiView):
    @schema.write(
        summary="Create the series' next event (its House, site staff)",
        description="A draft with the last event's settings, named with its date, a week later "
        "unless a date is given; a series with no event yet gets its first from the series' "
        "settings and defaults, dated today in its time zone.",
        request=body.NextEvent,
        answer=answers.NextEventCreated,
        status=201,
        tags=SEASONS,
    )
    def post(self, request: Request, series_id: int) -> Response:
        answer = services.series_next_event(
            series_id=series_id,
            by=actor(request),
            idempotency_key=self.idempotency_key,
            **valid(request, body.NextEvent),
        )
        return answered(answer, status=201)


class EventSeries(ApiView):
    @schema.write(
        summary="Put an event in a series, or take it out (House of both)",
        description="Only before the event starts; a started event stays in its series.",
        request=body.EventSeries,
        answer=answers.EventSeriesSet,
        tags=SEASONS,
    )
    def post(self, request: Request, event_id: int) -> Response:
        return answered(
            services.event_series_set(
                event_id=event_id,
                by=actor(request),
                idempotency_key=self.idempotency_key,
                **valid(request, body.EventSeries),
            )
        )


class Seasons(ApiView):
    @schema.write(
        summary="Open a season of a series (its House)",
        description="Its points rules (defaults for keys left out) lock at its first finalized "
        "event.",
        request=body.SeasonCreate,
        answer=answers.SeasonSaved,
        status=201,
        tags=SEASONS,
    )
    def post(self, request: Request, series_id: int) -> Response:
        data = valid(request, body.SeasonCreate)
        answer = services.season_create(
            series_id=series_id,
            by=actor(request),
            name=data["name"],
            starts_on=data["starts_on"],
            ends_on=data["ends_on"],
            rules=_rules(data),
            idempotency_key=self.idempotency_key,
        )
        return answered(answer, status=201)


class SeasonDetail(PublicReadView):
    @schema.read(
        summary="A season's table",
        description="Ranks, totals, counted events and the championship line; players by public "
        "id and display name.",
        answer=schema.read_model(SeasonTable),
        tags=SEASONS,
        public=True,
    )
    def get(self, request: Request, season_id: int) -> Response:
        return Response(to_json(season_table(_season(season_id))))

    @schema.write(
        summary="Change a season's name, dates or rules (its series' House)",
        description="The rules lock at the first finalized event; the dates never leave out an "
        "event that has started in the season.",
        request=body.SeasonUpdate,
        answer=answers.SeasonSaved,
        tags=SEASONS,
    )
    def patch(self, request: Request, season_id: int) -> Response:
        data = valid(request, body.SeasonUpdate)
        return answered(
            services.season_update(
                season_id=season_id,
                by=actor(request),
                name=data.get("name"),
                starts_on=data.get("starts_on"),
                ends_on=data.get("ends_on"),
                rules=_rules(data),
                idempotency_key=self.idempotency_key,
            )
        )


SEASON_FORMAT = OpenApiParameter(
    name="format",
    type=str,
    location=OpenApiParameter.QUERY,
    enum=["json", "csv"],
    default="json",
    description="`json` (the season, its events' signed heads and the table) or `csv` (the table).",
)


class SeasonDownload(PublicReadView):
    @schema.read(
        summary="Download a season",
        description="What `manage.py verify_season` checks against the events' audit exports.",
        answer={
            (200, "application/json"): schema.read_model(SeasonExport),
            (200, "text/csv"): OpenApiResponse(OpenApiTypes.STR, description="One row a player."),
        },
        parameters=[SEASON_FORMAT],
        tags=SEASONS,
        public=True,
    )
    def get(self, request: Request, season_id: int) -> Response | HttpResponse:
        season = _season(season_id)
        refuse_unknown(request, "format")
        wanted = query_choice(request, "format", ("json", "csv"), "json", strict=True)
        catch_up(season)
        if wanted == "csv":
            return HttpResponse(
                season_csv(season),
                content_type="text/csv; charset=utf-8",
                headers={"Content-Disposition": f'attachment; filename="season-{season.pk}.csv"'},
            )
        return Response(season_document(season))


class Championship(ApiView):
    @schema.write(
        summary="Create the season's championship (its series' House)",
        description="At the season's end: an event with registration open, the qualified "
        "players invited first.",
        request=body.Championship,
        answer=answers.ChampionshipCreated,
        status=201,
        tags=SEASONS,
    )
    def post(self, request: Request, season_id: int) -> Response:
        answer = services.championship_create(
            season_id=season_id,
            by=actor(request),
            idempotency_key=self.idempotency_key,
            **valid(request, body.Championship),
        )
        return answered(answer, status=201)


class PlayerHistoryView(PublicReadView):
    @schema.read(
        summary="A player's history",
        description="Every finalized event they played. Their own history shows every hand they "
        "held; anyone else sees what the public final results show (a withdrawn player only as "
        "withdrawn).",
        answer=schema.read_model(PlayerHistory),
        tags=SEASONS,
        public=True,
    )
    def get(self, request: Request, player_id: str) -> Response:
        key = PlayerKey.objects.select_related("user").filter(public_id=player_id).first()
        if key is None or not key.user.is_active:
            raise NotFound("No such player.")
        return Response(to_json(player_history(key.user, reads.account(request.user))))


class MyHistory(ApiView):
    @schema.read(
        summary="My history",
        description="Every finalized event I played, my hands included, and my championship "
        "invitations.",
        answer=schema.read_model(PlayerHistory),
        tags=SEASONS,
    )
    def get(self, request: Request) -> Response:
        user = actor(request)
        return Response(to_json(player_history(user, user)))
