"""The stock, the House deck and every card dealt from them."""

from __future__ import annotations

from typing import Self

from django.db import models
from django.db.models import Q


class Shuffle(models.Model):
    """The secret seed of an event's shoes; revealed only in the audit at finalization."""

    event = models.OneToOneField("events.Event", on_delete=models.PROTECT, related_name="shuffle")
    seed = models.BinaryField()
    commitment = models.CharField(max_length=64)


class ShoeKind(models.TextChoices):
    STOCK = "stock", "Stock"
    HOUSE = "house", "House deck"


class Shoe(models.Model):
    """A shuffled shoe, dealt strictly in order from position 0 under a row lock."""

    event = models.ForeignKey("events.Event", on_delete=models.PROTECT, related_name="shoes")
    kind = models.CharField(max_length=5, choices=ShoeKind.choices)
    decks = models.PositiveIntegerField()
    size = models.PositiveIntegerField()
    next_position = models.PositiveIntegerField(default=0)
    # The shuffled order, two characters a card. Secret until finalization, like the seed.
    order = models.TextField()

    class Meta:
        constraints = [
            models.UniqueConstraint(fields=["event", "kind"], name="one_shoe_of_each_kind"),
            models.CheckConstraint(
                condition=Q(next_position__lte=models.F("size")), name="never_past_the_end"
            ),
        ]

    def card_at(self, position: int) -> str:
        return self.order[2 * position : 2 * position + 2]


class OfferKind(models.TextChoices):
    STARTING = "starting", "Starting selection"
    WIN = "win", "Win choice"


def pending_offer(via: str = "") -> Q:
    """An offer still waiting for its player's choice: neither resolved nor voided. `via` reaches
    the offer through a relation (`"offer__"`)."""
    return Q(**{f"{via}resolved_at__isnull": True, f"{via}voided_at__isnull": True})


class OfferQuerySet(models.QuerySet["Offer"]):
    def pending(self) -> Self:
        """Offers still waiting for their player's choice."""
        return self.filter(pending_offer())


class Offer(models.Model):
    """Cards dealt for a player to choose from: face down at the start, face up after a win."""

    registration = models.ForeignKey(
        "events.Registration", on_delete=models.PROTECT, related_name="offers"
    )
    kind = models.CharField(max_length=8, choices=OfferKind.choices)
    result = models.OneToOneField(
        "events.GameResult", on_delete=models.PROTECT, null=True, blank=True, related_name="offer"
    )
    keep = models.PositiveSmallIntegerField()
    face_down = models.BooleanField()
    offered_at = models.DateTimeField()
    resolved_at = models.DateTimeField(null=True, blank=True)
    resolved_by_house = models.BooleanField(default=False)
    voided_at = models.DateTimeField(null=True, blank=True)
    reminder_due_at = models.DateTimeField(null=True, blank=True)
    reminded_at = models.DateTimeField(null=True, blank=True)

    objects = OfferQuerySet.as_manager()

    class Meta:
        ordering = ["registration_id", "id"]
        constraints = [
            models.UniqueConstraint(
                fields=["registration"],
                condition=Q(kind="starting"),
                name="one_starting_offer_per_player",
            ),
            models.UniqueConstraint(
                fields=["registration"],
                condition=pending_offer(),
                name="one_pending_offer_per_player",
            ),
        ]

    @property
    def pending(self) -> bool:
        return self.resolved_at is None and self.voided_at is None


class CardState(models.TextChoices):
    OFFERED = "offered", "Offered"
    KEPT = "kept", "Kept"
    NOT_KEPT = "not_kept", "Not kept"
    DISCARDED = "discarded", "Discarded"
    INDICATOR = "indicator", "Wild indicator"


class KeptSource(models.TextChoices):
    START = "start", "Starting selection"
    LOSS = "loss", "Loss"
    WIN = "win", "Win"
    HOUSE = "house", "House"


class DealtCard(models.Model):
    """One card dealt from a shoe position. `card` stays hidden while `face_down` is true."""

    shoe = models.ForeignKey(Shoe, on_delete=models.PROTECT, related_name="dealt")
    position = models.PositiveIntegerField()
    card = models.CharField(max_length=2)
    registration = models.ForeignKey(
        "events.Registration", on_delete=models.PROTECT, related_name="dealt_cards"
    )
    offer = models.ForeignKey(
        Offer, on_delete=models.PROTECT, null=True, blank=True, related_name="cards"
    )
    # The game result that dealt the card (a loss card, a win's two cards), for reviews of it.
    result = models.ForeignKey(
        "events.GameResult",
        on_delete=models.PROTECT,
        null=True,
        blank=True,
        related_name="dealt_cards",
    )
    slot = models.PositiveSmallIntegerField(default=0)  # place within its offer
    face_down = models.BooleanField(default=False)
    state = models.CharField(max_length=9, choices=CardState.choices)
    kept_index = models.PositiveSmallIntegerField(null=True, blank=True)
    kept_source = models.CharField(max_length=5, choices=KeptSource.choices, blank=True)
    dealt_at = models.DateTimeField()

    class Meta:
        ordering = ["shoe_id", "position"]
        constraints = [
            models.UniqueConstraint(fields=["shoe", "position"], name="one_card_per_position"),
            models.UniqueConstraint(
                fields=["registration", "kept_index"],
                condition=Q(kept_index__isnull=False),
                name="one_card_per_hand_slot",
            ),
            models.CheckConstraint(
                condition=Q(state="kept", kept_index__isnull=False)
                | (~Q(state="kept") & Q(kept_index__isnull=True)),
                name="kept_cards_have_a_slot",
            ),
        ]

    @property
    def public(self) -> str | None:
        """The card's identity when it may be shown, else None."""
        return None if self.face_down else self.card
