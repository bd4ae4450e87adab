"""What each audience reads of a season and of a player's past events: typed, frozen, the same
for the pages, the API and the exports (docs/rules.md section 14)."""

from __future__ import annotations

import datetime
from dataclasses import dataclass

from django.core.exceptions import ObjectDoesNotExist
from django.db.models import Q
from django.db.models.functions import Coalesce
from django.utils.translation import gettext as _

from accounts.models import User
from cards.names import RANK_FACES, card_face
from events import display, runner, waitlist
from events.formats import format_for
from events.models import Event, Phase, Registration, RegistrationStatus
from events.player_words import hand_words
from events.progress import hands
from events.reads.board import board_view
from scoring.evaluator import HighValue, evaluate_high
from seasons.models import (
    ChampionshipInvitation,
    FormerPlayer,
    PlayerKey,
    Season,
    SeasonResult,
    SeasonStanding,
    Series,
)
from seasons.points import (
    Finish,
    Rules,
    Scored,
    Total,
    event_points,
    one_event_short,
    season_total,
    table,
)
from staff import roles as staff


@dataclass(frozen=True, slots=True)
class SeasonRow:
    """One player's line of the season table (`player_id` is their public id, never an email)."""

    player_id: str
    display_name: str
    events: int
    counted: list[int]
    total: int
    high_firsts: int
    rank: int
    qualified: bool
    one_event_short: bool
    # A deleted account's row, under its neutral name: it has no history page.
    former: bool = False


@dataclass(frozen=True, slots=True)
class SeasonRules:
    """The season's points rules (docs/rules.md section 14.2)."""

    high_points: list[int]
    low_points: list[int]
    attendance: int
    best_of: int | None
    min_events: int
    qualifiers: int


def season_rules(season: Season) -> SeasonRules:
    rules = Rules.from_dict(season.rules)
    return SeasonRules(
        high_points=list(rules.high_points),
        low_points=list(rules.low_points),
        attendance=rules.attendance,
        best_of=rules.best_of,
        min_events=rules.min_events,
        qualifiers=rules.qualifiers,
    )


@dataclass(frozen=True, slots=True)
class SeasonHead:
    id: int
    name: str
    series_id: int
    series: str
    venue: str
    time_zone: str
    starts_on: str
    ends_on: str
    rules: SeasonRules
    locked: bool
    championship_event_id: int | None

    @property
    def starts_day(self) -> datetime.date:
        """The first day, for a page to write in its reader's language."""
        return datetime.date.fromisoformat(self.starts_on)

    @property
    def ends_day(self) -> datetime.date:
        return datetime.date.fromisoformat(self.ends_on)


@dataclass(frozen=True, slots=True)
class SeasonTable:
    season: SeasonHead
    events: list[int]  # the finalized events counted in the season, in date order
    rows: list[SeasonRow]


def season_head(season: Season) -> SeasonHead:
    series = season.series
    return SeasonHead(
        id=season.pk,
        name=season.name,
        series_id=series.pk,
        series=series.name,
        venue=series.venue,
        time_zone=series.time_zone,
        starts_on=season.starts_on.isoformat(),
        ends_on=season.ends_on.isoformat(),
        rules=season_rules(season),
        locked=season.locked_at is not None,
        championship_event_id=season.championship_id,
    )


def season_events(season: Season) -> list[int]:
    return list(
        Event.objects.filter(pk__in=SeasonResult.objects.filter(season=season).values("event_id"))
        .order_by("date", "pk")
        .values_list("pk", flat=True)
    )


def holder_public_id() -> Coalesce:
    """A season row's public id: its account's, or its former player's (an account deleted)."""
    return Coalesce("player__player_key__public_id", "former__public_id")


def held_by_formers(registration_ids: list[int]) -> dict[int, FormerPlayer]:
    """The former player each of these registrations (of deleted accounts) counts under, by
    registration id, for those a deletion gave one."""
    if not registration_ids:
        return {}
    wanted = Q()
    for registration_id in registration_ids:
        wanted |= Q(registrations__contains=[registration_id])
    return {
        registration_id: former
        for former in FormerPlayer.objects.filter(wanted)
        for registration_id in former.registrations
        if registration_id in registration_ids
    }


def season_table(season: Season) -> SeasonTable:
    """The table from the kept totals: one query for the rows, ranks computed here."""
    rules = Rules.from_dict(season.rules)
    kept = list(
        SeasonStanding.objects.filter(season=season).values_list(
            "pk",
            "display_name",
            "total",
            "events",
            "high_firsts",
            "counted",
            holder_public_id(),
            "former_id",
        )
    )
    totals = {
        player: Total(total=total, events=events, high_firsts=firsts, counted=tuple(counted))
        for player, _, total, events, firsts, counted, _, _ in kept
    }
    names = {player: name for player, name, *_ in kept}
    public = {player: key for player, *_, key, _ in kept}
    formers = {player for player, *_, former in kept if former is not None}
    rows = [
        SeasonRow(
            player_id=public[standing.player] or "",
            display_name=names[standing.player],
            events=standing.events,
            counted=list(standing.counted),
            total=standing.total,
            high_firsts=standing.high_firsts,
            rank=standing.rank,
            qualified=standing.qualified,
            one_event_short=not standing.qualified and one_event_short(rules, standing.events),
            former=standing.player in formers,
        )
        for standing in table(rules, totals, names)
    ]
    return SeasonTable(season=season_head(season), events=season_events(season), rows=rows)


def public_id(user: User) -> str:
    """The account's public id, made on first need."""
    key, _ = PlayerKey.objects.get_or_create(user=user)
    return key.public_id


# A player's history -------------------------------------------------------------------------------


@dataclass(frozen=True, slots=True)
class PlayedEvent:
    """One finalized event a player played, as its viewer may see it."""

    event_id: int
    date: str
    name: str
    series: str | None
    format: str
    status: str  # "eligible" or "withdrawn"
    hand: list[str]  # empty for another viewer's withdrawn hand
    wild_rank: str | None
    high_place: int | None
    low_place: int | None
    award: int
    season_points: int | None

    @property
    def day(self) -> datetime.date:
        """The event's date, for a page to write in its reader's language."""
        return datetime.date.fromisoformat(self.date)

    @property
    def format_words(self) -> str:
        """The event's format as the reader's language names it ("League", "Liga")."""
        return format_for(self.format).label_words

    @property
    def faces(self) -> list[dict[str, object]]:
        """The hand as the page shows it: card faces, those of the wild rank marked wild."""
        return [{**card_face(card), "wild": card[0] == self.wild_rank} for card in self.hand]

    @property
    def wild_words(self) -> str:
        """'Wild 10', as the board says it, in the active language."""
        if not self.wild_rank:
            return ""
        return _("Wild %(rank)s") % {"rank": RANK_FACES.get(self.wild_rank, self.wild_rank)}


@dataclass(frozen=True, slots=True)
class PlayerHistory:
    player_id: str
    display_name: str
    own: bool
    events: list[PlayedEvent]
    played: int
    awards: int
    season_points: int
    best_hand: list[str]
    best_hand_name: str
    best_hand_event_id: int | None
    invitations: list[Invitation]

    @property
    def best_hand_faces(self) -> list[dict[str, object]]:
        """The best hand as the page shows it: its night's card faces, the wild marked."""
        night = self._best_night()
        return night.faces if night is not None else []

    @property
    def best_hand_words(self) -> str:
        """The best hand's name as the page says it, in the active language ('Full de reyes y
        cincos'); `best_hand_name` keeps scoring's English description."""
        night = self._best_night()
        if night is None or not night.hand:
            return ""
        return hand_words(evaluate_high(night.hand, night.wild_rank))

    def _best_night(self) -> PlayedEvent | None:
        return next((row for row in self.events if row.event_id == self.best_hand_event_id), None)


def player_history(player: User, viewer: User | None) -> PlayerHistory:
    """Every finalized event the player played (newest first). The player sees their own hand
    even when they withdrew; anyone else sees what the public board showed: an eligible final
    hand, and a withdrawn player only as withdrawn (docs/rules.md section 14.5)."""
    own = viewer is not None and viewer.pk == player.pk
    registrations = list(
        Registration.objects.filter(
            player=player,
            event__phase=Phase.FINALIZED,
            status__in=[RegistrationStatus.CHECKED_IN, RegistrationStatus.WITHDRAWN],
        )
        .select_related("event", "event__series_link__series")
        .order_by("-event__date", "-event_id")
    )
    points: dict[int, int] = {}
    for event_id, value in SeasonResult.objects.filter(player=player).values_list(
        "event_id", "points"
    ):
        points[event_id] = points.get(event_id, 0) + value
    played: list[PlayedEvent] = []
    best: tuple[HighValue, list[str], int] | None = None
    for registration in registrations:
        event = registration.event
        eligible = registration.status == RegistrationStatus.CHECKED_IN
        shown = eligible or own
        cards = list(hands(event, [registration])[registration.pk].cards) if shown else []
        played.append(
            PlayedEvent(
                event_id=event.pk,
                date=event.date.isoformat(),
                name=event.name,
                series=_series_name(event),
                format=event.format,
                status="eligible" if eligible else "withdrawn",
                hand=cards,
                wild_rank=(registration.wild_rank or None) if shown else None,
                high_place=registration.high_place if eligible else None,
                low_place=registration.low_place if eligible else None,
                award=registration.award or 0,
                season_points=points.get(event.pk),
            )
        )
        if eligible and cards:
            high = evaluate_high(cards, registration.wild_rank or None)
            if best is None or high > best[0]:
                best = (high, cards, event.pk)
    return PlayerHistory(
        player_id=public_id(player),
        display_name=player.display_name,
        own=own,
        events=played,
        played=len(played),
        awards=sum(row.award for row in played),
        season_points=sum(points.values()),
        best_hand=best[1] if best else [],
        best_hand_name=best[0].description if best else "",
        best_hand_event_id=best[2] if best else None,
        invitations=invitations_of(player) if own else [],
    )


def _series_name(event: Event) -> str | None:
    """The name of the series an event is in (its link read with it), or None."""
    try:
        return event.series_link.series.name
    except ObjectDoesNotExist:
        return None


# Series ------------------------------------------------------------------------------------------


@dataclass(frozen=True, slots=True)
class SeriesItem:
    id: int
    name: str
    venue: str
    time_zone: str


@dataclass(frozen=True, slots=True)
class SeriesSeason:
    id: int
    name: str
    starts_on: str
    ends_on: str
    locked: bool
    championship_event_id: int | None

    @property
    def starts_day(self) -> datetime.date:
        return datetime.date.fromisoformat(self.starts_on)

    @property
    def ends_day(self) -> datetime.date:
        return datetime.date.fromisoformat(self.ends_on)


@dataclass(frozen=True, slots=True)
class SeriesEvent:
    id: int
    name: str
    date: str
    phase: str
    championship: bool

    @property
    def day(self) -> datetime.date:
        return datetime.date.fromisoformat(self.date)

    @property
    def phase_label(self) -> str:
        """The phase as the page names it ('Draft'), from the engine's own choices."""
        return str(Phase(self.phase).label)


@dataclass(frozen=True, slots=True)
class SeriesView:
    """A series with its seasons and events (drafts only for its House), newest first."""

    id: int
    name: str
    venue: str
    time_zone: str
    # The defaults its events take (docs/decisions.md, "Series defaults").
    entry_mode: str
    minimum_age: int
    capacity: int | None
    hold_minutes: int
    day_hold_minutes: int
    pay_ahead: bool
    registration_opens_days_before: int | None
    # HH:MM at the venue on each event's date; None: no bound.
    registration_closes_time: str | None
    # Its new events' board and printed sheets language; "": the deployment's.
    language: str
    house: bool
    seasons: list[SeriesSeason]
    events: list[SeriesEvent]


def series_list() -> list[SeriesItem]:
    return [
        SeriesItem(id=pk, name=name, venue=venue, time_zone=zone)
        for pk, name, venue, zone in Series.objects.order_by("name", "pk").values_list(
            "pk", "name", "venue", "time_zone"
        )
    ]


def series_view(series: Series, viewer: User | None) -> SeriesView:
    house = staff.may_see(_roles(series, viewer), "house")
    events = Event.objects.filter(series=series).order_by("-date", "-pk")
    if not house:
        events = events.exclude(phase=Phase.DRAFT)
    championships = set(
        Season.objects.filter(series=series, championship__isnull=False).values_list(
            "championship_id", flat=True
        )
    )
    return SeriesView(
        id=series.pk,
        name=series.name,
        venue=series.venue,
        time_zone=series.time_zone,
        entry_mode=series.entry_mode,
        minimum_age=series.minimum_age,
        capacity=series.capacity,
        hold_minutes=series.hold_minutes,
        day_hold_minutes=series.day_hold_minutes,
        pay_ahead=series.pay_ahead,
        registration_opens_days_before=series.registration_opens_days_before,
        registration_closes_time=(
            None
            if series.registration_closes_time is None
            else series.registration_closes_time.isoformat(timespec="minutes")
        ),
        language=series.language,
        house=house,
        seasons=[
            SeriesSeason(
                id=season.pk,
                name=season.name,
                starts_on=season.starts_on.isoformat(),
                ends_on=season.ends_on.isoformat(),
                locked=season.locked_at is not None,
                championship_event_id=season.championship_id,
            )
            for season in series.seasons.order_by("-starts_on", "-pk")
        ],
        events=[
            SeriesEvent(
                id=event.pk,
                name=event.name,
                date=event.date.isoformat(),
                phase=event.phase,
                championship=event.pk in championships,
            )
            for event in events
        ],
    )


@dataclass(frozen=True, slots=True)
class SeriesPowers:
    """What the viewer's role in a series lets them change on its page beyond its staff (the
    staff section is House's one: house/staff_pages.py)."""

    sets_defaults: bool
    manages_seasons: bool


def series_powers(series: Series, viewer: User | None) -> SeriesPowers:
    roles = _roles(series, viewer)
    return SeriesPowers(
        sets_defaults=staff.acting_role(roles, "series_defaults_set") is not None,
        manages_seasons=staff.acting_role(roles, "season_manage") is not None,
    )


def _roles(series: Series, viewer: User | None) -> frozenset[str]:
    """The roles `viewer` holds in the series, its organization's included (the runner's one
    chain of scopes); a superuser is owner."""
    return runner.scope_roles(viewer, series.pk)


@dataclass(frozen=True, slots=True)
class Invitation:
    """A championship the player is invited to (their own view only)."""

    season_id: int
    season: str
    event_id: int
    registered: bool


def invitations_of(player: User) -> list[Invitation]:
    invited = ChampionshipInvitation.objects.filter(
        player=player, season__championship__isnull=False
    ).select_related("season")
    registered = set(
        Registration.objects.filter(player=player)
        .exclude(status=RegistrationStatus.CANCELLED)
        .values_list("event_id", flat=True)
    )
    return [
        Invitation(
            season_id=row.season_id,
            season=row.season.name,
            event_id=row.season.championship_id or 0,
            registered=row.season.championship_id in registered,
        )
        for row in invited
    ]


# If tonight ended now ------------------------------------------------------------------------


@dataclass(frozen=True, slots=True)
class Tonight:
    """The season table as it would stand if an event in play were finalized now, from the
    places its public board shows (docs/rules.md section 14.4); nothing is stored."""

    event_id: int
    event: str
    rows: list[SeasonRow]


def if_tonight_ended(season: Season) -> list[Tonight]:
    """One table for each event of the season in play (started, not finalized)."""
    playing = Event.objects.filter(
        series=season.series_id,
        phase=Phase.STARTED,
        date__gte=season.starts_on,
        date__lte=season.ends_on,
    ).exclude(championship_of__isnull=False)
    tables = []
    for event in playing.order_by("date", "pk"):
        tables.append(_tonight(season, event))
    return tables


def _tonight(season: Season, event: Event) -> Tonight:
    rules = Rules.from_dict(season.rules)
    places = board_view(event).standings
    playing = list(
        event.registrations.filter(
            status__in=[RegistrationStatus.CHECKED_IN, RegistrationStatus.WITHDRAWN],
        ).values_list("pk", "player_id", "player__display_name", "status")
    )
    # A deleted account's registration counts under its former player (a registration whose
    # deletion kept none will have one of its own once the event is final: not shown before).
    formers = held_by_formers([pk for pk, player, _, _ in playing if player is None])
    tonight = [
        (pk, (player, None), name, status)
        if player is not None
        else (pk, (None, formers[pk].pk), formers[pk].display_name, status)
        for pk, player, name, status in playing
        if player is not None or pk in formers
    ]
    PlayerKey.objects.bulk_create(
        [PlayerKey(user_id=key[0]) for _, key, _, _ in tonight if key[0] is not None],
        ignore_conflicts=True,
    )
    # Keyed by (account, former player): a deleted account's row has only the second.
    kept: dict[tuple[int | None, int | None], tuple[str, list[Scored]]] = {
        (player, former): (name, [Scored(*score) for score in scores])
        for player, former, name, scores in SeasonStanding.objects.filter(
            season=season
        ).values_list("player_id", "former_id", "display_name", "scores")
    }
    for registration, player, name, status in tonight:
        eligible = status == RegistrationStatus.CHECKED_IN and places is not None
        high = places.high_place(registration) if eligible and places else None
        low = places.low_place(registration) if eligible and places else None
        finish = Finish(eligible=eligible, high_place=high, low_place=low)
        earlier = kept.get(player, (name, []))[1]
        kept[player] = (
            name,
            [
                *earlier,
                Scored(
                    event.pk,
                    event_points(rules, finish),
                    eligible,
                    high == 1,
                    event.date.isoformat(),
                ),
            ],
        )
    totals = {player: season_total(rules, scores) for player, (_, scores) in kept.items()}
    names = {player: name for player, (name, _) in kept.items()}
    public: dict[tuple[int | None, int | None], str] = {
        (user, None): key
        for user, key in PlayerKey.objects.filter(
            user_id__in=[player for player, _ in kept if player is not None]
        ).values_list("user_id", "public_id")
    } | {
        (None, former): key
        for former, key in FormerPlayer.objects.filter(
            pk__in=[former for _, former in kept if former is not None]
        ).values_list("pk", "public_id")
    }
    rows = [
        SeasonRow(
            player_id=public.get(standing.player, ""),
            display_name=names[standing.player],
            events=standing.events,
            counted=list(standing.counted),
            total=standing.total,
            high_firsts=standing.high_firsts,
            rank=standing.rank,
            qualified=standing.qualified,
            one_event_short=not standing.qualified and one_event_short(rules, standing.events),
            former=standing.player[0] is None,
        )
        for standing in table(rules, totals, names)
    ]
    return Tonight(event_id=event.pk, event=event.name, rows=rows)


@dataclass(frozen=True, slots=True)
class SeriesDisplayLinks:
    """A series' display links, newest first."""

    series_id: int
    links: list[display.DisplayLinkRow]


def series_links(series: Series) -> SeriesDisplayLinks:
    return SeriesDisplayLinks(series_id=series.pk, links=display.rows(series))


# The nights ahead -------------------------------------------------------------------------------


@dataclass(frozen=True, slots=True)
class ComingNight:
    """A night of the series not started yet, that players register for ahead from the season's
    page (events/waitlist.py): whether registering is open now, and the places left."""

    event_id: int
    name: str
    date: datetime.date
    venue: str
    open_now: bool
    # Why not, in the engine's words ("Registration opens on ..."), when registering is not open.
    closed_because: str
    capacity: int | None
    places_left: int | None


def coming_up(season: Season, now: datetime.datetime) -> list[ComingNight]:
    """The series' nights that are open and not started, from the season's first day on, in date
    order (a championship is reached through its invitations)."""
    nights = Event.objects.filter(
        series=season.series_id, phase=Phase.OPEN, date__gte=season.starts_on
    ).exclude(championship_of__isnull=False)
    found = []
    for event in nights.order_by("date", "pk"):
        refusal = waitlist.window_refusal(event, now)
        if not event.registration_open:
            why = _("Registration is not open yet.")
        else:
            why = "" if refusal is None else refusal.message
        left = (
            None if event.capacity is None else max(event.capacity - waitlist.places_held(event), 0)
        )
        found.append(
            ComingNight(
                event_id=event.pk,
                name=event.name,
                date=event.date,
                venue=event.venue,
                open_now=not why,
                closed_because=why,
                capacity=event.capacity,
                places_left=left,
            )
        )
    return found
