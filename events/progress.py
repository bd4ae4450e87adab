"""Where players stand: their hands, what blocks them, and the standings (read-only)."""

from __future__ import annotations

from dataclasses import dataclass

from cards.models import CardState, DealtCard, Offer, OfferKind
from events.models import Event, Registration, RegistrationStatus
from scoring.standings import Hand, Standings, standings


@dataclass(frozen=True, slots=True)
class Progress:
    """A player's position in their games, as far as completeness is concerned."""

    results: int
    kept: int
    starting_confirmed: bool
    pending_offer: bool
    open_reviews: int

    def complete(self, registration: Registration) -> bool:
        """Every required result, every card kept, nothing pending, no open review."""
        rules = registration.event.rules
        return (
            self.starting_confirmed
            and self.results == rules.games
            and self.kept == rules.kept
            and not self.pending_offer
            and self.open_reviews == 0
        )


def progress_of(registration: Registration) -> Progress:
    rules = registration.event.rules
    offers = list(
        Offer.objects.filter(registration=registration).values("kind", "resolved_at", "voided_at")
    )
    starting_confirmed = rules.offered == 0 or any(
        o["kind"] == OfferKind.STARTING and o["resolved_at"] is not None for o in offers
    )
    return Progress(
        results=registration.results.count(),
        kept=DealtCard.objects.filter(registration=registration, state=CardState.KEPT).count(),
        starting_confirmed=starting_confirmed,
        pending_offer=any(o["resolved_at"] is None and o["voided_at"] is None for o in offers),
        open_reviews=registration.reviews.filter(resolved_at__isnull=True).count(),
    )


def kept_cards(registration: Registration) -> list[str]:
    return list(
        DealtCard.objects.filter(registration=registration, state=CardState.KEPT)
        .order_by("kept_index")
        .values_list("card", flat=True)
    )


def hands(event: Event, registrations: list[Registration]) -> dict[int, Hand]:
    """Kept cards (in the order kept) and revealed wilds, keyed by registration id."""
    cards: dict[int, list[str]] = {r.pk: [] for r in registrations}
    for registration_id, card in (
        DealtCard.objects.filter(registration__in=registrations, state=CardState.KEPT)
        .order_by("registration_id", "kept_index")
        .values_list("registration_id", "card")
    ):
        cards[registration_id].append(card)
    return {
        r.pk: Hand(cards=tuple(cards[r.pk]), wild_rank=r.wild_rank or None) for r in registrations
    }


def provisional_standings(event: Event) -> Standings[int]:
    """Checked-in players, not withdrawn and not paused, from their first kept card."""
    players = list(
        event.registrations.filter(status=RegistrationStatus.CHECKED_IN, paused=False).order_by(
            "check_in_order"
        )
    )
    return standings(hands(event, players))


def eligible(event: Event) -> list[Registration]:
    """Final eligibility: complete, wild revealed, not withdrawn, not paused."""
    players = event.registrations.filter(status=RegistrationStatus.CHECKED_IN).order_by(
        "check_in_order"
    )
    return [r for r in players if r.wild_rank and not r.paused and progress_of(r).complete(r)]


def final_standings(event: Event) -> Standings[int]:
    players = eligible(event)
    return standings(hands(event, players))


def blockers(event: Event) -> list[str]:
    """Everything that stops finalization, in plain words, naming each player concerned."""
    problems: list[str] = []
    if event.registration_open:
        problems.append("Registration is still open.")
    if not event.pool_confirmed:
        problems.append("The pool is not confirmed.")
    for registration in event.registrations.filter(status=RegistrationStatus.CHECKED_IN).order_by(
        "check_in_order"
    ):
        problems.extend(player_blockers(registration))
    return problems


def player_blockers(registration: Registration) -> list[str]:
    rules = registration.event.rules
    progress = progress_of(registration)
    label = registration.label
    found: list[str] = []
    if not progress.starting_confirmed:
        found.append(f"{label} has not confirmed the starting selection.")
    if progress.results < rules.games:
        found.append(f"{label} has {progress.results} of {rules.games} results.")
    if progress.pending_offer and progress.starting_confirmed:
        found.append(f"{label} has a card choice pending.")
    if progress.kept < rules.kept:
        found.append(f"{label} has kept {progress.kept} of {rules.kept} cards.")
    if progress.open_reviews or registration.paused:
        found.append(f"{label} is paused for House review.")
    if not registration.wild_rank:
        found.append(f"{label} has no revealed wild.")
    return found
