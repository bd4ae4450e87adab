"""Events, the players registered in them, their game results, reviews and the pool."""

from __future__ import annotations

from typing import Self

from django.conf import settings
from django.db import models
from django.db.models import Q
from django.utils.translation import gettext_lazy as _

from audit.chain import GENESIS
from events.formats import FORMATS, Format, FormatName, format_for
from organizations.home import home_organization_id
from staff.models import scope_relation


class Phase(models.TextChoices):
    DRAFT = "draft", _("Draft")
    OPEN = "open", _("Open")
    STARTED = "started", _("Started")
    FINALIZED = "finalized", _("Finalized")


class EntryMode(models.TextChoices):
    """How the pool is funded (docs/decisions.md, "Entry modes")."""

    PAID = "paid", _("Paid entry: the pool is the players' contributions")
    SPONSORED = "sponsored", _("Free entry: a sponsored pool House states")


class RefundPolicy(models.TextChoices):
    """Which entries House may refund (ledger/services.py)."""

    CANCELLATIONS = "cancellations", _("Cancelled entries only")
    WITHDRAWALS = "withdrawals", _("Cancelled entries and withdrawals")
    NONE = "none", _("No refunds")


# The age a venue usually requires, offered when an event asks players to confirm their age.
DEFAULT_MINIMUM_AGE = 21


class Event(models.Model):
    name = models.CharField(max_length=120)
    # The organization that runs it (docs/decisions.md, "Organizations"), the laptop's unless
    # named, and the one of its venues it is played at; `venue` keeps the venue's name as the
    # pages, the audit and the exports have always read it.
    organization = models.ForeignKey(
        "organizations.Organization",
        on_delete=models.PROTECT,
        related_name="events",
        default=home_organization_id,
    )
    place = models.ForeignKey(
        "organizations.Venue",
        on_delete=models.PROTECT,
        related_name="events",
        null=True,
        blank=True,
    )
    venue = models.CharField(max_length=120, blank=True)
    date = models.DateField()
    time_zone = models.CharField(max_length=64, default="UTC")
    format = models.CharField(
        max_length=16,
        choices=[(str(f.name), f.label) for f in FORMATS.values()],
        default=FormatName.LEAGUE.value,
    )
    contribution = models.PositiveIntegerField(default=0, help_text="Whole dollars per player.")
    extra_decks = models.PositiveSmallIntegerField(default=1)
    remainder_policy = models.TextField(blank=True)
    phase = models.CharField(max_length=16, choices=Phase.choices, default=Phase.DRAFT)
    registration_open = models.BooleanField(default=False)
    # Its staff, each with a role, their invitations and its display links (staff/models.py).
    staff = scope_relation("staff.Membership", "event")
    staff_invitations = scope_relation("staff.Invitation", "event")
    display_links = scope_relation("staff.DisplayLink", "event")
    created_at = models.DateTimeField(auto_now_add=True)
    started_at = models.DateTimeField(null=True, blank=True)
    finalized_at = models.DateTimeField(null=True, blank=True)
    # Public once the event starts: sha256 of the secret shuffle seed.
    commitment = models.CharField(max_length=64, blank=True)
    # The stock's supported places, fixed at start.
    supported_places = models.PositiveIntegerField(null=True, blank=True)
    pool_confirmed = models.BooleanField(default=False)
    confirmed_pool = models.PositiveIntegerField(null=True, blank=True)
    # When House first confirmed the pool; kept when a late participant unconfirms it, since
    # registration never reopens after a confirmation (events.registration_switch).
    pool_first_confirmed_at = models.DateTimeField(null=True, blank=True)
    unallocated = models.PositiveIntegerField(null=True, blank=True)
    # Bumped on every change that live views show; clients reload on a gap.
    version = models.PositiveBigIntegerField(default=0)
    # The audit chain's head (last seq and hash), kept on the row every change locks anyway.
    audit_seq = models.PositiveIntegerField(default=0)
    audit_hash = models.CharField(max_length=64, default=GENESIS)
    # Self check-in: registered players at the venue check in from their phones with this code,
    # shown on the board. Empty while House has it switched off.
    self_check_in = models.BooleanField(default=False)
    check_in_code = models.CharField(max_length=12, blank=True)
    # Paid entry (the pool is contribution x participants) or free entry with a sponsored pool.
    entry_mode = models.CharField(max_length=16, choices=EntryMode.choices, default=EntryMode.PAID)
    sponsored_pool = models.PositiveIntegerField(
        default=0, help_text="Whole dollars a sponsor puts up, in a free-entry event."
    )
    refund_policy = models.CharField(
        max_length=16, choices=RefundPolicy.choices, default=RefundPolicy.CANCELLATIONS
    )
    # 0: no age asked; otherwise players confirm they are at least this old before registering.
    minimum_age = models.PositiveSmallIntegerField(default=0)
    # Registration ahead (events/waitlist.py): players register from the event's page between
    # these moments (either empty: no bound on that side) while House has registration open.
    registration_opens_at = models.DateTimeField(null=True, blank=True)
    registration_closes_at = models.DateTimeField(null=True, blank=True)
    # The most players who hold a place (empty: no cap); past it a registration is waitlisted.
    capacity = models.PositiveIntegerField(null=True, blank=True)
    # How long an offered place (or an unpaid place, where the entry is paid ahead) is held:
    # `hold_minutes` before the event's day, `day_hold_minutes` on it.
    hold_minutes = models.PositiveSmallIntegerField(default=30)
    day_hold_minutes = models.PositiveSmallIntegerField(default=10)
    # The entry is paid online when registering, where the deployment has Stripe configured
    # (payments/); otherwise at the door, as always.
    pay_ahead = models.BooleanField(default=False)
    # The language of the projector board, the final page shown on it and the printed sheets
    # (one of settings.LANGUAGES): blank for the deployment's own (settings.LANGUAGE_CODE).
    language = models.CharField(max_length=8, blank=True, default="")

    class Meta:
        ordering = ["-date", "-id"]
        constraints = [
            models.CheckConstraint(
                condition=Q(phase__in=["draft", "open", "started", "finalized"]),
                name="event_phase_known",
            ),
            models.CheckConstraint(
                condition=Q(format__in=[name.value for name in FormatName]),
                name="event_format_known",
            ),
            models.CheckConstraint(
                condition=Q(entry_mode="paid", sponsored_pool=0)
                | Q(entry_mode="sponsored", contribution=0),
                name="entry_mode_funds_the_pool_one_way",
            ),
            # The shipped languages (settings.LANGUAGES); a new one comes with a migration.
            models.CheckConstraint(
                condition=Q(language__in=["", "en", "es", "fr"]),
                name="event_language_shipped",
            ),
        ]

    def __str__(self) -> str:
        return self.name

    @property
    def board_language(self) -> str:
        """The language its board, final page and printed sheets are written in."""
        return self.language or settings.LANGUAGE_CODE

    @property
    def rules(self) -> Format:
        return format_for(self.format)

    @property
    def sponsored(self) -> bool:
        return self.entry_mode == EntryMode.SPONSORED

    @property
    def pool_was_confirmed(self) -> bool:
        """Whether House has ever confirmed the pool (it may be provisional again now)."""
        return self.pool_first_confirmed_at is not None


class RegistrationStatus(models.TextChoices):
    REGISTERED = "registered", _("Registered")
    CHECKED_IN = "checked_in", _("Checked in")
    WITHDRAWN = "withdrawn", _("Withdrawn")
    CANCELLED = "cancelled", _("Cancelled")
    NO_SHOW = "no_show", _("No-show")
    # Past the event's capacity: in line for a place, by `waitlist_seq` (events/waitlist.py).
    WAITLISTED = "waitlisted", _("Waitlisted")
    # A place freed and is held for this player until `hold_until`; claimed in one tap.
    OFFERED = "offered", _("Offered a place")


class Registration(models.Model):
    """A player's place in one event; `label` is their public name there."""

    event = models.ForeignKey(Event, on_delete=models.PROTECT, related_name="registrations")
    player = models.ForeignKey(
        settings.AUTH_USER_MODEL,
        on_delete=models.SET_NULL,
        null=True,
        related_name="registrations",
    )
    label = models.CharField(max_length=48)
    status = models.CharField(
        max_length=16, choices=RegistrationStatus.choices, default=RegistrationStatus.REGISTERED
    )
    registered_at = models.DateTimeField(auto_now_add=True)
    checked_in_at = models.DateTimeField(null=True, blank=True)
    # 1, 2, 3 ... in check-in order: starting offers are dealt in this order.
    check_in_order = models.PositiveIntegerField(null=True, blank=True)
    late = models.BooleanField(default=False)
    added_by_house = models.BooleanField(default=False)
    paused = models.BooleanField(default=False)
    withdrawn_at = models.DateTimeField(null=True, blank=True)
    wild_rank = models.CharField(max_length=1, blank=True)
    revealed_at = models.DateTimeField(null=True, blank=True)
    # Final standing, stored at finalization.
    high_place = models.PositiveIntegerField(null=True, blank=True)
    low_place = models.PositiveIntegerField(null=True, blank=True)
    award = models.PositiveIntegerField(null=True, blank=True)
    # Bumped on every change to this player's own state; their page reloads on a gap.
    version = models.PositiveBigIntegerField(default=0)
    # House took this player's contribution (cash at the table); see events/check_in.py.
    paid = models.BooleanField(default=False)
    # The player confirmed they are of the event's minimum age when registering.
    age_confirmed = models.BooleanField(default=False)
    # Private: the salt of the commitment to the person `player_registered` records
    # (events/person.py); erased, with the account's link, when the account is deleted.
    person_salt = models.CharField(max_length=32, blank=True)
    # The order of the waitlist: 1, 2, 3 ... per event as players join it (never renumbered; a
    # player's position is their rank among those still waiting).
    waitlist_seq = models.PositiveIntegerField(null=True, blank=True)
    # An offered place is held until then; so is an unpaid place where the entry is paid ahead.
    hold_until = models.DateTimeField(null=True, blank=True)

    class Meta:
        ordering = ["event_id", "id"]
        constraints = [
            models.UniqueConstraint(fields=["event", "player"], name="one_registration_per_player"),
            models.UniqueConstraint(fields=["event", "label"], name="unique_label_per_event"),
            models.UniqueConstraint(
                fields=["event", "check_in_order"], name="unique_check_in_order"
            ),
            models.UniqueConstraint(fields=["event", "waitlist_seq"], name="unique_waitlist_seq"),
            models.CheckConstraint(
                condition=Q(
                    status__in=["registered", "cancelled", "no_show", "waitlisted", "offered"]
                )
                | Q(checked_in_at__isnull=False, check_in_order__isnull=False),
                name="players_in_play_are_checked_in",
            ),
        ]

    def __str__(self) -> str:
        return f"{self.label} @ {self.event}"

    @property
    def is_active(self) -> bool:
        """Checked in and not withdrawn: the player is in play."""
        return self.status == RegistrationStatus.CHECKED_IN


class Outcome(models.TextChoices):
    WIN = "win", _("Win")
    LOSS = "loss", _("Loss")


class GameResult(models.Model):
    """One game's result, accepted on submission; a correction changes `outcome` only."""

    registration = models.ForeignKey(Registration, on_delete=models.PROTECT, related_name="results")
    game = models.PositiveSmallIntegerField()
    outcome = models.CharField(max_length=4, choices=Outcome.choices)
    original_outcome = models.CharField(max_length=4, choices=Outcome.choices)
    opponent = models.CharField(max_length=80, blank=True)
    score = models.CharField(max_length=20, blank=True)
    assisted = models.BooleanField(default=False)
    submitted_at = models.DateTimeField(auto_now_add=True)

    class Meta:
        ordering = ["registration_id", "game"]
        constraints = [
            models.UniqueConstraint(fields=["registration", "game"], name="one_result_per_game"),
            models.CheckConstraint(condition=Q(game__gte=1), name="games_count_from_one"),
        ]


def open_review(via: str = "") -> Q:
    """A review not resolved yet (its player stays paused). `via` reaches the review through a
    relation (`"reviews__"`)."""
    return Q(**{f"{via}resolved_at__isnull": True})


class ReviewQuerySet(models.QuerySet["Review"]):
    def open(self) -> Self:
        """Reviews not resolved yet."""
        return self.filter(open_review())


class Review(models.Model):
    """A House review that pauses a player until resolved with a reason."""

    registration = models.ForeignKey(Registration, on_delete=models.PROTECT, related_name="reviews")
    result = models.ForeignKey(
        GameResult, on_delete=models.PROTECT, null=True, blank=True, related_name="reviews"
    )
    corrected_from = models.CharField(max_length=4, choices=Outcome.choices, blank=True)
    corrected_to = models.CharField(max_length=4, choices=Outcome.choices, blank=True)
    reason = models.TextField()
    opened_by = models.CharField(max_length=80)
    opened_at = models.DateTimeField(auto_now_add=True)
    resolution = models.TextField(blank=True)
    resolved_by = models.CharField(max_length=80, blank=True)
    resolved_at = models.DateTimeField(null=True, blank=True)

    objects = ReviewQuerySet.as_manager()

    class Meta:
        ordering = ["registration_id", "id"]


class PoolAdjustment(models.Model):
    """A signed whole-dollar change to the pool (a refund is negative), always explained."""

    event = models.ForeignKey(Event, on_delete=models.PROTECT, related_name="adjustments")
    amount = models.IntegerField()
    explanation = models.TextField()
    created_by = models.CharField(max_length=80)
    created_at = models.DateTimeField(auto_now_add=True)

    class Meta:
        ordering = ["event_id", "id"]
        constraints = [
            models.CheckConstraint(condition=~Q(amount=0), name="adjustments_are_not_zero"),
        ]


class Announcement(models.Model):
    """A short message House sent to every player of an event."""

    event = models.ForeignKey(Event, on_delete=models.PROTECT, related_name="announcements")
    text = models.CharField(max_length=280)
    sent_by = models.CharField(max_length=80)
    sent_at = models.DateTimeField()

    class Meta:
        ordering = ["event_id", "-sent_at", "-id"]


class IdempotencyRecord(models.Model):
    """The first answer to a write, replayed for a retry with the same key
    (docs/rules.md section 11.1).

    Kept `IDEMPOTENCY_RECORD_HOURS` (24): a retry comes within seconds or minutes; the hourly
    beat task `events.tasks.expire_idempotency_records` deletes older ones.
    """

    user = models.ForeignKey(settings.AUTH_USER_MODEL, on_delete=models.CASCADE)
    key = models.CharField(max_length=200)
    fingerprint = models.CharField(max_length=64)
    answer = models.JSONField(null=True)
    error_code = models.CharField(max_length=40, blank=True)
    error_message = models.TextField(blank=True)
    created_at = models.DateTimeField(auto_now_add=True)

    class Meta:
        constraints = [
            models.UniqueConstraint(fields=["user", "key"], name="one_answer_per_key"),
        ]
        # The hourly expiry deletes by age (events/tasks.py).
        indexes = [models.Index(fields=["created_at"], name="idempotency_by_age")]
