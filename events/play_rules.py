"""The rules' predicates: what a player may do next, when a hand is complete, what blocks a result
or the finalization, and which House actions apply to a player (docs/rules.md sections 5, 6, 8
and 10).

Pure functions of plain facts, read once by whoever asks: the services' guards raise the refusal a
predicate names, and the pages' flags and step texts ask the same predicates, so a page never
offers what the service would refuse. A refusal is returned, not raised, so a page can ask "may
they?" (`... is None`) without catching anything.
"""

from __future__ import annotations

from dataclasses import dataclass
from typing import Protocol

from django.utils.translation import gettext as _

from cards.models import OfferKind
from events.errors import (
    DomainError,
    EventIsFinalized,
    HandLocked,
    NotCheckedIn,
    NotComplete,
    NothingPending,
    OutOfOrder,
    PendingChoice,
    PlayerIsWithdrawn,
    PlayerPaused,
    StartingSelectionPending,
    WrongPhase,
)
from events.formats import Format
from events.models import Phase, RegistrationStatus

# The registrations that count for the pool and whose contribution House records.
PARTICIPANTS = (
    RegistrationStatus.REGISTERED,
    RegistrationStatus.CHECKED_IN,
    RegistrationStatus.WITHDRAWN,
)


class Counts(Protocol):
    """A player's position in their games (`events.progress.Progress` is one)."""

    @property
    def results(self) -> int: ...
    @property
    def kept(self) -> int: ...
    @property
    def starting_confirmed(self) -> bool: ...
    @property
    def pending_offer(self) -> bool: ...
    @property
    def open_reviews(self) -> int: ...


@dataclass(frozen=True, slots=True)
class PlayerFacts:
    """What the rules ask about one player of an event."""

    label: str
    phase: str  # the event's Phase
    status: str  # RegistrationStatus
    paused: bool
    wild_revealed: bool
    results: int  # results reported
    kept: int  # cards in the hand
    starting_confirmed: bool
    pending: str | None  # the pending offer's kind (OfferKind), if any
    open_reviews: int

    @property
    def pending_offer(self) -> bool:
        return self.pending is not None


def starting_confirmed(rules: Format, pending: str | None) -> bool:
    """Whether a player in play has the starting selection behind them, told from the pending
    offer's kind alone (for a page that reads the offer, not the selection): the starting offer is
    dealt at the start or at a late check-in and stays pending until it is confirmed."""
    return rules.offered == 0 or pending != OfferKind.STARTING


def hand_complete(counts: Counts, rules: Format) -> bool:
    """Every required result, every card kept, nothing pending, no open review (section 6)."""
    return (
        counts.starting_confirmed
        and counts.results == rules.games
        and counts.kept == rules.kept
        and not counts.pending_offer
        and counts.open_reviews == 0
    )


# --- what a player may do next -------------------------------------------------------------


def in_play_refusal(facts: PlayerFacts) -> DomainError | None:
    """Why this player cannot play now: the event is not under way, or they are not in it."""
    if facts.phase == Phase.FINALIZED:
        return EventIsFinalized()
    if facts.phase != Phase.STARTED:
        return WrongPhase(_("The event has not started yet."))
    if facts.status == RegistrationStatus.WITHDRAWN:
        return PlayerIsWithdrawn()
    if facts.status != RegistrationStatus.CHECKED_IN:
        return NotCheckedIn()
    return None


def play_refusal(facts: PlayerFacts) -> DomainError | None:
    """Why this player's hand cannot change: not in play, or the wild is revealed (section 3)."""
    refusal = in_play_refusal(facts)
    if refusal is None and facts.wild_revealed:
        return HandLocked()
    return refusal


def result_refusal(facts: PlayerFacts, rules: Format) -> DomainError | None:
    """What blocks this player's next result (section 5), or None."""
    if (refusal := play_refusal(facts)) is not None:
        return refusal
    if facts.paused:
        return PlayerPaused(_("Waiting for House review before the next result."))
    if not facts.starting_confirmed:
        return StartingSelectionPending()
    if facts.pending_offer:
        return PendingChoice()
    if facts.results >= rules.games:
        return OutOfOrder(_("All %(games)s games are already reported.") % {"games": rules.games})
    return None


def choice_refusal(facts: PlayerFacts, kind: OfferKind) -> DomainError | None:
    """What stops this player choosing from an offer of `kind` (a starting selection or a win
    choice, sections 4 and 5), or None."""
    if (refusal := play_refusal(facts)) is not None:
        return refusal
    if facts.pending != kind:
        if kind == OfferKind.STARTING:
            return NothingPending(_("There is no pending starting selection."))
        return NothingPending(_("There is no pending win choice."))
    return None


def reveal_refusal(facts: PlayerFacts, rules: Format) -> DomainError | None:
    """What stops House revealing this player's wild by hand (Standard v1, section 3), or None."""
    if (refusal := in_play_refusal(facts)) is not None:
        return refusal
    if rules.automatic_reveal:
        return WrongPhase(_("This format reveals each wild automatically."))
    if facts.wild_revealed:
        return HandLocked(_("This player's wild is already revealed."))
    if facts.paused:
        return PlayerPaused()
    if not hand_complete(facts, rules):
        return NotComplete(_("%(player)s's hand is not complete yet.") % {"player": facts.label})
    return None


def reveals_now(facts: PlayerFacts, rules: Format) -> bool:
    """Whether the wild is revealed by itself now: League and Switch, the moment the hand is
    verified complete and no review holds it (section 3)."""
    return (
        rules.automatic_reveal
        and in_play_refusal(facts) is None
        and not facts.wild_revealed
        and not facts.paused
        and hand_complete(facts, rules)
    )


def may_submit_result(facts: PlayerFacts, rules: Format) -> bool:
    return result_refusal(facts, rules) is None


def may_choose_start(facts: PlayerFacts) -> bool:
    return choice_refusal(facts, OfferKind.STARTING) is None


def may_choose_win(facts: PlayerFacts) -> bool:
    return choice_refusal(facts, OfferKind.WIN) is None


# --- what blocks the finalization ------------------------------------------------------------


def finalization_blockers(facts: PlayerFacts, rules: Format) -> list[str]:
    """What this checked-in player still owes before the event can be finalized (section 10),
    naming them."""
    label = facts.label
    found: list[str] = []
    if not facts.starting_confirmed:
        found.append(_("%(player)s has not confirmed the starting selection.") % {"player": label})
    if facts.results < rules.games:
        found.append(
            _("%(player)s has %(results)s of %(games)s results.")
            % {"player": label, "results": facts.results, "games": rules.games}
        )
    if facts.pending_offer and facts.starting_confirmed:
        found.append(_("%(player)s has a card choice pending.") % {"player": label})
    if facts.kept < rules.kept:
        found.append(
            _("%(player)s has kept %(kept)s of %(cards)s cards.")
            % {"player": label, "kept": facts.kept, "cards": rules.kept}
        )
    if facts.open_reviews or facts.paused:
        found.append(_("%(player)s is paused for House review.") % {"player": label})
    if not facts.wild_revealed:
        found.append(_("%(player)s has no revealed wild.") % {"player": label})
    return found


# --- what House may do for a player ----------------------------------------------------------


@dataclass(frozen=True, slots=True)
class HouseActions:
    """The House actions that apply to one player now (section 8); the dashboard offers these."""

    cancel: bool
    mark_paid: bool
    check_in: bool
    add_back: bool
    undo: bool
    choose_start: bool
    choose_win: bool
    submit: bool
    correct: bool
    pause: bool
    reveal: bool
    withdraw: bool
    reset: bool


# A registration not yet checked in: a place, or one in line for a place (events/waitlist.py).
NOT_CHECKED_IN = (
    RegistrationStatus.REGISTERED,
    RegistrationStatus.WAITLISTED,
    RegistrationStatus.OFFERED,
)


def may_cancel(facts: PlayerFacts) -> bool:
    """A registration not yet checked in (section 9), in line for a place or holding one."""
    return facts.status in NOT_CHECKED_IN and facts.phase != Phase.FINALIZED


def may_undo_check_in(facts: PlayerFacts) -> bool:
    """Before the start only: after it, a check-in has dealt cards (section 9)."""
    return facts.status == RegistrationStatus.CHECKED_IN and facts.phase == Phase.OPEN


def house_actions(
    facts: PlayerFacts, rules: Format, *, contribution: int, paid: bool, has_account: bool
) -> HouseActions:
    """Which House actions apply to this player now."""
    in_play = in_play_refusal(facts) is None
    running = facts.phase in (Phase.OPEN, Phase.STARTED)
    return HouseActions(
        cancel=may_cancel(facts),
        # A participant's contribution, or undoing a mark (events.check_in.payment_mark).
        mark_paid=facts.phase != Phase.FINALIZED
        and contribution > 0
        and (paid or facts.status in PARTICIPANTS),
        # A player in line is given a place by House's check-in (events/waitlist.py).
        check_in=facts.status in NOT_CHECKED_IN and running,
        add_back=facts.status == RegistrationStatus.NO_SHOW and has_account and running,
        undo=may_undo_check_in(facts),
        choose_start=may_choose_start(facts),
        choose_win=may_choose_win(facts),
        submit=may_submit_result(facts, rules),
        correct=in_play and facts.results > 0,
        pause=in_play,
        reveal=reveal_refusal(facts, rules) is None,
        withdraw=in_play,
        reset=has_account and facts.status in PARTICIPANTS,
    )
