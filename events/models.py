"""Events and the players registered in them."""

from __future__ import annotations

from django.conf import settings
from django.db import models
from django.db.models import Q

from events.formats import FORMATS, Format, FormatName


class Phase(models.TextChoices):
    DRAFT = "draft", "Draft"
    OPEN = "open", "Open"
    STARTED = "started", "Started"
    FINALIZED = "finalized", "Finalized"


class Event(models.Model):
    name = models.CharField(max_length=120)
    venue = models.CharField(max_length=120, blank=True)
    date = models.DateField()
    time_zone = models.CharField(max_length=64, default="UTC")
    format = models.CharField(
        max_length=16,
        choices=[(f.name.value, f.label) for f in FORMATS.values()],
        default=FormatName.LEAGUE.value,
    )
    contribution = models.PositiveIntegerField(
        default=0, help_text="Whole dollars per participant."
    )
    extra_decks = models.PositiveSmallIntegerField(default=1)
    remainder_policy = models.TextField(blank=True)
    phase = models.CharField(max_length=16, choices=Phase.choices, default=Phase.DRAFT)
    registration_open = models.BooleanField(default=False)
    house = models.ManyToManyField(
        settings.AUTH_USER_MODEL, related_name="house_events", blank=True
    )
    created_at = models.DateTimeField(auto_now_add=True)

    class Meta:
        ordering = ["-date", "-id"]

    def __str__(self) -> str:
        return self.name

    @property
    def rules(self) -> Format:
        return FORMATS[FormatName(self.format)]


class RegistrationStatus(models.TextChoices):
    REGISTERED = "registered", "Registered"
    CHECKED_IN = "checked_in", "Checked in"
    WITHDRAWN = "withdrawn", "Withdrawn"
    CANCELLED = "cancelled", "Cancelled"
    NO_SHOW = "no_show", "No-show"


class Registration(models.Model):
    """A player's place in one event; `label` is their public name there."""

    event = models.ForeignKey(Event, on_delete=models.CASCADE, related_name="registrations")
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

    class Meta:
        ordering = ["event", "id"]
        constraints = [
            models.UniqueConstraint(fields=["event", "player"], name="one_registration_per_player"),
            models.UniqueConstraint(fields=["event", "label"], name="unique_label_per_event"),
            models.CheckConstraint(
                condition=Q(status=RegistrationStatus.REGISTERED)
                | Q(status=RegistrationStatus.CANCELLED)
                | Q(status=RegistrationStatus.NO_SHOW)
                | Q(checked_in_at__isnull=False),
                name="played_registrations_are_checked_in",
            ),
        ]

    def __str__(self) -> str:
        return f"{self.label} @ {self.event}"
