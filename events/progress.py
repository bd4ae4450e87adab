"""Where players stand: their hands, what blocks them, and the standings (read-only)."""

from __future__ import annotations

from dataclasses import dataclass

from django.utils.translation import gettext as _

from cards.models import CardState, DealtCard, OfferKind
from events import store
from events.formats import Format
from events.models import Event, Registration, RegistrationStatus
from events.play_rules import PARTICIPANTS, PlayerFacts, finalization_blockers, hand_complete
from scoring.standings import Hand, Standings, standings


@dataclass(frozen=True, slots=True)
class Progress:
    """A player's position in their games, as far as completeness is concerned."""

    results: int
    kept: int
    starting_confirmed: bool
    pending_offer: bool
    open_reviews: int

    @classmethod
    def of(cls, row: store.ProgressRow, rules: Format) -> Progress:
        """The progress counted in `row` (the one definition, `events.store`), under `rules`."""
        return cls(
            results=row.results,
            kept=row.kept,
            starting_confirmed=rules.offered == 0 or row.starting_resolved,
            pending_offer=row.pending_offer,
            open_reviews=row.open_reviews,
        )

    @property
    def pending_kind(self) -> OfferKind | None:
        """The pending offer's kind: a starting offer stays pending until it is confirmed, and
        no result (so no win choice) comes before that."""
        if not self.pending_offer:
            return None
        return OfferKind.WIN if self.starting_confirmed else OfferKind.STARTING

    def complete(self, registration: Registration) -> bool:
        """Every required result, every card kept, nothing pending, no open review."""
        return self.complete_for(registration.event.rules)

    def complete_for(self, rules: Format) -> bool:
        return hand_complete(self, rules)

    def facts(self, registration: Registration, *, phase: str) -> PlayerFacts:
        """What the rules ask about this player (`events.play_rules`) with this progress, in an
        event in `phase`."""
        return PlayerFacts(
            label=registration.label,
            phase=phase,
            status=registration.status,
            paused=registration.paused,
            wild_revealed=bool(registration.wild_rank),
            results=self.results,
            kept=self.kept,
            starting_confirmed=self.starting_confirmed,
            pending=self.pending_kind,
            open_reviews=self.open_reviews,
        )


def progress_of(registration: Registration) -> Progress:
    """One player's progress in one statement."""
    row = store.progress_of(registration_id=registration.pk)
    return Progress.of(row, registration.event.rules)


def progress_of_many(event: Event, registrations: list[Registration]) -> dict[int, Progress]:
    """Progress for many players of `event` in one statement, whatever their number."""
    rows = store.progress_of_many(event_id=event.pk)
    return {r.pk: Progress.of(rows[r.pk], event.rules) for r in registrations}


def participants(event: Event) -> int:
    """Registrations that count for the pool: not cancelled, not no-shows; withdrawals included."""
    return event.registrations.filter(status__in=PARTICIPANTS).count()


def kept_cards(registration: Registration) -> list[str]:
    return list(
        DealtCard.objects.filter(registration=registration, state=CardState.KEPT)
        .order_by("kept_index")
        .values_list("card", flat=True)
    )


def hands(event: Event, registrations: list[Registration]) -> dict[int, Hand]:
    """Kept cards (in the order kept) and revealed wilds, keyed by registration id."""
    cards: dict[int, list[str]] = {r.pk: [] for r in registrations}
    # By event (one parameter, not one per player); other players' cards are skipped.
    for registration_id, card in (
        DealtCard.objects.filter(registration__event=event, state=CardState.KEPT)
        .order_by("registration_id", "kept_index")
        .values_list("registration_id", "card")
    ):
        if registration_id in cards:
            cards[registration_id].append(card)
    return {
        r.pk: Hand(cards=tuple(cards[r.pk]), wild_rank=r.wild_rank or None) for r in registrations
    }


def provisional_standings(event: Event) -> Standings[int]:
    """Checked-in players, not withdrawn and not paused, from their first kept card."""
    players = list(
        event.registrations.filter(status=RegistrationStatus.CHECKED_IN).order_by("check_in_order")
    )
    return standings_of(players, hands(event, players))


def standings_of(players: list[Registration], held: dict[int, Hand]) -> Standings[int]:
    """Provisional standings of checked-in `players` (in check-in order) holding `held`.

    Paused players are left out until their review is resolved.
    """
    return standings({r.pk: held[r.pk] for r in players if not r.paused})


def eligible(event: Event) -> list[Registration]:
    """Final eligibility: complete, wild revealed, not withdrawn, not paused."""
    players = list(
        event.registrations.filter(status=RegistrationStatus.CHECKED_IN).order_by("check_in_order")
    )
    progress = progress_of_many(event, players)
    return [
        r
        for r in players
        if r.wild_rank and not r.paused and progress[r.pk].complete_for(event.rules)
    ]


def final_standings(event: Event) -> Standings[int]:
    players = eligible(event)
    return standings(hands(event, players))


@dataclass(frozen=True, slots=True)
class Blocker:
    """One thing that stops finalization, and the player it concerns (if any)."""

    text: str
    player: str | None = None
    registration_id: int | None = None

    def __str__(self) -> str:
        return self.text


def blockers(
    event: Event,
    registrations: list[Registration] | None = None,
    progress: dict[int, Progress] | None = None,
) -> list[str]:
    """Everything that stops finalization, in plain words, naming each player concerned."""
    return [blocker.text for blocker in finalization_checklist(event, registrations, progress)]


def finalization_checklist(
    event: Event,
    registrations: list[Registration] | None = None,
    progress: dict[int, Progress] | None = None,
) -> list[Blocker]:
    """What stops finalization. A caller that has read every registration of the event, and
    (optionally) their progress, passes them on instead of reading them again."""
    found: list[Blocker] = []
    if event.registration_open:
        found.append(Blocker(_("Registration is still open.")))
    if not event.pool_confirmed:
        found.append(Blocker(_("The pool is not confirmed.")))
    if registrations is None:
        registrations = list(event.registrations.filter(status=RegistrationStatus.CHECKED_IN))
    players = sorted(
        (r for r in registrations if r.status == RegistrationStatus.CHECKED_IN),
        key=lambda r: (r.check_in_order is None, r.check_in_order or 0),
    )
    if progress is None:
        progress = progress_of_many(event, players)
    rules = event.rules
    for registration in players:
        facts = progress[registration.pk].facts(registration, phase=event.phase)
        found.extend(
            Blocker(text, registration.label, registration.pk)
            for text in finalization_blockers(facts, rules)
        )
    return found
