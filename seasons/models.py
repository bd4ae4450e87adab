"""Series of events, their seasons, and each season's points per event and per player
(docs/rules.md section 14)."""

from __future__ import annotations

import secrets

from django.conf import settings
from django.db import models
from django.db.models import F, Q

from audit.chain import GENESIS
from audit.models import ChainedEntry, SignedHeadRow
from events import limits
from events.models import EntryMode
from organizations.home import home_organization_id
from staff.models import scope_relation

# The bounds of a series' registration defaults (seasons/services.py `series_defaults_set`): an
# event's own (events/limits.py), and a window opening at most a year ahead.
MAX_CAPACITY = limits.MAX_CAPACITY
MAX_HOLD_MINUTES = limits.MAX_HOLD_MINUTES
MAX_OPENS_DAYS_BEFORE = 365


class Series(models.Model):
    """Events run week after week by the same House: "Thursday League at The Dock"."""

    name = models.CharField(max_length=120)
    # The organization that runs it, the laptop's unless named (docs/decisions.md,
    # "Organizations"): its staff hold their roles in the series and its events.
    organization = models.ForeignKey(
        "organizations.Organization",
        on_delete=models.PROTECT,
        related_name="series",
        default=home_organization_id,
    )
    venue = models.CharField(max_length=120, blank=True)
    time_zone = models.CharField(max_length=64, default="UTC")
    # Defaults each event of the series takes when it is made or put in the series as a draft
    # (docs/decisions.md, "Series defaults"); the sponsored pool stays each night's own.
    entry_mode = models.CharField(max_length=16, choices=EntryMode.choices, default=EntryMode.PAID)
    # 0: no age asked; otherwise players confirm they are at least this old before registering.
    minimum_age = models.PositiveSmallIntegerField(default=0)
    # Registration ahead (docs/decisions.md, "Series defaults"): the most players who hold a
    # place (empty: no cap), how long an offered or unpaid place is held before the event's day
    # and on it, and whether the entry is paid online where Stripe is configured.
    capacity = models.PositiveIntegerField(null=True, blank=True)
    hold_minutes = models.PositiveSmallIntegerField(default=30)
    day_hold_minutes = models.PositiveSmallIntegerField(default=10)
    pay_ahead = models.BooleanField(default=False)
    # The registration window, relative to each event's date at its venue: it opens at midnight
    # this many days before the date, and closes at this time on the date (either empty: no
    # bound on that side, as House's registration switch says).
    registration_opens_days_before = models.PositiveSmallIntegerField(null=True, blank=True)
    registration_closes_time = models.TimeField(null=True, blank=True)
    # The language the series' new events take for their board and printed sheets (one of
    # settings.LANGUAGES): blank for the deployment's own (settings.LANGUAGE_CODE).
    language = models.CharField(max_length=8, blank=True, default="")
    # Staff of every event of the series, each with a role, their invitations and the series'
    # display links (staff/models.py).
    staff = scope_relation("staff.Membership", "series")
    staff_invitations = scope_relation("staff.Invitation", "series")
    display_links = scope_relation("staff.DisplayLink", "series")
    # The series' events (`SeriesEvent`): `Event.objects.filter(series=...)` finds them.
    events = models.ManyToManyField(
        "events.Event", through="SeriesEvent", related_name="+", related_query_name="series"
    )
    created_at = models.DateTimeField(auto_now_add=True)
    # The head of the series' own audit chain (SeriesAuditEntry), as an event keeps its own.
    audit_seq = models.PositiveIntegerField(default=0)
    audit_hash = models.CharField(max_length=64, default=GENESIS)

    class Meta:
        ordering = ["name", "id"]
        verbose_name_plural = "series"
        constraints = [
            models.CheckConstraint(
                condition=Q(entry_mode__in=["paid", "sponsored"], minimum_age__lte=99),
                name="series_defaults_known",
            ),
            models.CheckConstraint(
                condition=Q(
                    hold_minutes__gte=1,
                    hold_minutes__lte=MAX_HOLD_MINUTES,
                    day_hold_minutes__gte=1,
                    day_hold_minutes__lte=MAX_HOLD_MINUTES,
                )
                & (Q(capacity__isnull=True) | Q(capacity__gte=1, capacity__lte=MAX_CAPACITY))
                & (
                    Q(registration_opens_days_before__isnull=True)
                    | Q(registration_opens_days_before__lte=MAX_OPENS_DAYS_BEFORE)
                ),
                name="series_registration_defaults_known",
            ),
            models.CheckConstraint(
                condition=Q(language__in=["", "en", "es", "fr"]),
                name="series_language_shipped",
            ),
        ]

    def __str__(self) -> str:
        return self.name

    @property
    def board_language(self) -> str:
        """The language its season's projector view is written in, as an event's board is."""
        return self.language or settings.LANGUAGE_CODE


class SeriesAuditEntry(ChainedEntry):
    """An entry of a series' audit chain (docs/audit.md, "A series' audit"): who appointed whom,
    handed the series over, changed its defaults and seasons, put events in it or took them out.
    Append-only in the database, as an event's entries (migration 0007)."""

    series = models.ForeignKey(Series, on_delete=models.PROTECT, related_name="audit_entries")

    class Meta:
        ordering = ["series_id", "seq"]
        constraints = [
            models.UniqueConstraint(fields=["series", "seq"], name="one_series_entry_per_seq"),
        ]
        verbose_name_plural = "series audit entries"


class SeriesHeadSignature(SignedHeadRow):
    """A head of a series' chain the deployment signed for an export (seasons/audit.py): the same
    chain and series block under the same key carry it again."""

    series = models.ForeignKey(Series, on_delete=models.CASCADE, related_name="head_signatures")
    series_block = models.CharField(max_length=64)

    class Meta:
        constraints = [
            models.UniqueConstraint(
                fields=["series", "seq", "hash", "series_block", "key_id"],
                name="one_signature_per_series_head",
            ),
        ]


class SeriesEvent(models.Model):
    """An event of a series, whose House also runs it: at most one series per event. It cannot
    change once the event has started (docs/rules.md section 14.1): a trigger of migration 0009
    refuses putting a started or finalized event in a series, moving it or taking it out."""

    event = models.OneToOneField(
        "events.Event", on_delete=models.CASCADE, primary_key=True, related_name="series_link"
    )
    series = models.ForeignKey(Series, on_delete=models.PROTECT, related_name="event_links")

    def __str__(self) -> str:
        return f"event {self.event_id} of series {self.series_id}"


def series_of(event_id: int) -> Series | None:
    """The series an event is in, or None."""
    link = SeriesEvent.objects.filter(event_id=event_id).select_related("series").first()
    return None if link is None else link.series


def series_id_of(event_id: int) -> int | None:
    """The id of the series an event is in, or None."""
    return SeriesEvent.objects.filter(event_id=event_id).values_list("series_id", flat=True).first()


class Season(models.Model):
    """A stretch of a series' events with one points table; its rules lock at its first
    finalized event (`locked_at`)."""

    series = models.ForeignKey(Series, on_delete=models.PROTECT, related_name="seasons")
    name = models.CharField(max_length=120)
    starts_on = models.DateField()
    ends_on = models.DateField()
    # seasons.points.Rules.as_dict(), checked by Rules.from_dict on every write.
    rules = models.JSONField()
    locked_at = models.DateTimeField(null=True, blank=True)
    championship = models.OneToOneField(
        "events.Event",
        on_delete=models.PROTECT,
        null=True,
        blank=True,
        related_name="championship_of",
    )
    created_at = models.DateTimeField(auto_now_add=True)

    class Meta:
        ordering = ["-starts_on", "-id"]
        constraints = [
            models.CheckConstraint(
                condition=Q(ends_on__gte=F("starts_on")), name="season_ends_after_it_starts"
            ),
        ]

    def __str__(self) -> str:
        return self.name


def new_public_id() -> str:
    return "pl_" + secrets.token_urlsafe(9)


class PlayerKey(models.Model):
    """The public id that names an account in season exports: random, never the email, the same
    for every event of that account; made on first need."""

    user = models.OneToOneField(
        settings.AUTH_USER_MODEL, on_delete=models.CASCADE, related_name="player_key"
    )
    public_id = models.CharField(max_length=24, unique=True, default=new_public_id)

    def __str__(self) -> str:
        return self.public_id


class FormerPlayer(models.Model):
    """A deleted account as its seasons keep it (docs/decisions.md, "Players' data"): a public id
    of its own (never the account's, which earlier exports paired with its name), a neutral name,
    and the registrations of its series' events not final at the deletion, whose season rows
    join it when those events are finalized."""

    public_id = models.CharField(max_length=24, unique=True, default=new_public_id)
    display_name = models.CharField(max_length=80)
    registrations = models.JSONField(default=list)

    def __str__(self) -> str:
        return self.public_id


# A season row is an account's, or a deleted account's (then its former player's).
ONE_HOLDER = Q(player__isnull=False, former__isnull=True) | Q(
    player__isnull=True, former__isnull=False
)


class SeasonResult(models.Model):
    """One player's finish in one finalized event of a season, and its points under the season's
    rules. Written once, when the event is finalized (finalized events never change)."""

    season = models.ForeignKey(Season, on_delete=models.CASCADE, related_name="results")
    event = models.ForeignKey("events.Event", on_delete=models.PROTECT, related_name="+")
    # Unlinked by a deletion (accounts/registry.py), which hands the row to `former`.
    player = models.ForeignKey(
        settings.AUTH_USER_MODEL,
        on_delete=models.PROTECT,
        null=True,
        blank=True,
        related_name="season_results",
    )
    former = models.ForeignKey(
        FormerPlayer, on_delete=models.PROTECT, null=True, blank=True, related_name="results"
    )
    label = models.CharField(max_length=48)
    eligible = models.BooleanField()
    high_place = models.PositiveIntegerField(null=True, blank=True)
    low_place = models.PositiveIntegerField(null=True, blank=True)
    points = models.PositiveIntegerField()

    class Meta:
        ordering = ["season_id", "event_id", "id"]
        constraints = [
            models.UniqueConstraint(
                fields=["season", "event", "player"], name="one_season_result_per_event_player"
            ),
            models.UniqueConstraint(
                fields=["season", "event", "former"], name="one_season_result_per_event_former"
            ),
            models.CheckConstraint(condition=ONE_HOLDER, name="season_result_has_one_holder"),
        ]
        indexes = [models.Index(fields=["season", "player"], name="season_results_by_player")]


class SeasonStanding(models.Model):
    """One player's season so far, kept up to date one finalized event at a time."""

    season = models.ForeignKey(Season, on_delete=models.CASCADE, related_name="standings")
    player = models.ForeignKey(
        settings.AUTH_USER_MODEL,
        on_delete=models.PROTECT,
        null=True,
        blank=True,
        related_name="season_standings",
    )
    former = models.ForeignKey(
        FormerPlayer, on_delete=models.PROTECT, null=True, blank=True, related_name="standings"
    )
    display_name = models.CharField(max_length=80)
    total = models.PositiveIntegerField(default=0)
    events = models.PositiveIntegerField(default=0)
    high_firsts = models.PositiveIntegerField(default=0)
    counted = models.JSONField(default=list)
    # [event_id, points, eligible, high_first, date] for each of the season's events the player
    # played (date: the event's, ISO 8601, which orders equal event totals under best_of):
    # the next finalization adds one without reading the other events' rows.
    scores = models.JSONField(default=list)

    class Meta:
        ordering = ["season_id", "-total", "id"]
        constraints = [
            models.UniqueConstraint(fields=["season", "player"], name="one_standing_per_player"),
            models.UniqueConstraint(fields=["season", "former"], name="one_standing_per_former"),
            models.CheckConstraint(condition=ONE_HOLDER, name="season_standing_has_one_holder"),
        ]


class ChampionshipInvitation(models.Model):
    """A qualified player invited to register for the season's championship first."""

    season = models.ForeignKey(Season, on_delete=models.CASCADE, related_name="invitations")
    player = models.ForeignKey(
        settings.AUTH_USER_MODEL, on_delete=models.PROTECT, related_name="invitations"
    )
    rank = models.PositiveIntegerField()
    invited_at = models.DateTimeField(auto_now_add=True)

    class Meta:
        ordering = ["season_id", "rank", "id"]
        constraints = [
            models.UniqueConstraint(fields=["season", "player"], name="one_invitation_per_player"),
        ]
