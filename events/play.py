"""Playing: starting selection, results, win choices, wild reveals, corrections, reviews."""

from __future__ import annotations

from collections.abc import Mapping, Sequence
from dataclasses import dataclass
from typing import Any

from accounts.models import User
from cards.models import CardState, DealtCard, KeptSource, Offer, OfferKind, ShoeKind
from cards.stock import audit_card
from events import answers, limits, store
from events.dealing import deal, reminder_due, save_cards
from events.errors import (
    HandLocked,
    Invalid,
    NotAllowed,
    NotCheckedIn,
    NotComplete,
    NotFound,
    NothingPending,
    OfferChanged,
    OutOfOrder,
    PendingChoice,
    PlayerIsWithdrawn,
    PlayerPaused,
    ReasonRequired,
    StartingSelectionPending,
    WrongCount,
    WrongPhase,
    WrongState,
)
from events.limits import check_text
from events.models import GameResult, Outcome, Phase, Registration, RegistrationStatus, Review
from events.progress import Progress, progress_of
from events.registration import registration_for
from events.registration_switch import close_if_nobody_waits
from events.runner import Change, Trimmed, action


@action("starting_selection_confirm")
def starting_selection_confirm(
    change: Change,
    *,
    registration_id: int,
    by: User,
    slots: Sequence[int],
    reason: Trimmed = "",
    idempotency_key: str | None = None,
) -> answers.StartingSelectionConfirmed:
    """Lock exactly the required number of face-down cards; all offered cards are revealed."""
    chosen = _clean_slots(slots)
    registration = _playing(change, registration_id, by, reason)
    offer = _pending_offer(registration, OfferKind.STARTING)
    cards = offer.cards
    if len(chosen) != offer.keep:
        raise WrongCount(f"Choose exactly {offer.keep} of {len(cards)} starting cards.")
    if any(slot >= len(cards) for slot in chosen):
        # A slot another format offers (the request is well formed): this offer has fewer cards.
        raise WrongState(
            f"This offer has {len(cards)} starting cards, numbered 0 to {len(cards) - 1}."
        )
    kept = [card for card in cards if card.slot in chosen]
    not_kept = [card for card in cards if card.slot not in chosen]
    for card in not_kept:
        card.state = CardState.NOT_KEPT
        card.face_down = False
    _resolve(change, offer)
    change.audit(
        "starting_selection_confirmed",
        player=registration.label,
        details={
            "kept": [audit_card(c, kind=ShoeKind.STOCK, reveal=True) for c in kept],
            "not_kept": [audit_card(c, kind=ShoeKind.STOCK, reveal=True) for c in not_kept],
        },
        reason=_reason(change, reason),
    )
    source = KeptSource.HOUSE if change.house else KeptSource.START
    in_hand = _keep(change, registration, kept, source, game=None, before=offer.in_hand)
    save_cards(cards)
    _reveal_if_complete(change, registration, in_hand=in_hand)
    return answers.StartingSelectionConfirmed(
        registration_id=registration.pk,
        kept=[c.card for c in kept],
        not_kept=[c.card for c in not_kept],
    )


@action("result_submit")
def result_submit(
    change: Change,
    *,
    registration_id: int,
    by: User,
    game: int,
    outcome: str,
    opponent: Trimmed = "",
    score: Trimmed = "",
    reason: Trimmed = "",
    idempotency_key: str | None = None,
) -> answers.ResultSubmitted:
    """Report the next game's result: a loss keeps one card, a win offers two face up."""
    opponent = check_text(opponent, label="The opponent", max_length=limits.OPPONENT_LENGTH)
    score = check_text(score, label="The score", max_length=limits.SCORE_LENGTH)
    if isinstance(game, bool) or not isinstance(game, int) or not 1 <= game <= limits.MAX_GAME:
        raise Invalid(f"The game number is a whole number from 1 to {limits.MAX_GAME}.")
    if outcome not in Outcome.values:
        raise Invalid("The result is 'win' or 'loss'.")
    registration = _playing(change, registration_id, by, reason)
    rules = change.event.rules
    if registration.paused:
        raise PlayerPaused("Waiting for House review before the next result.")
    progress = change.progress[registration.pk]  # read with the registration, just now
    if not progress.starting_confirmed:
        raise StartingSelectionPending()
    if progress.pending_offer:
        raise PendingChoice()
    if progress.results >= rules.games:
        raise OutOfOrder(f"All {rules.games} games are already reported.")
    if game != progress.results + 1:
        raise OutOfOrder(f"The next game to report is game {progress.results + 1}.")
    result = GameResult(  # saved by `deal`, in the statement that deals its cards
        registration=registration,
        game=game,
        outcome=outcome,
        original_outcome=outcome,
        opponent=opponent,
        score=score,
        assisted=change.house,
    )
    change.audit(
        "result_submitted",
        player=registration.label,
        details={
            "game": game,
            "result": outcome,
            "opponent": opponent or None,
            "score": score or None,
            "assisted": change.house,
        },
        reason=_reason(change, reason),
    )
    loss_card: str | None = None
    offered: list[str] | None = None
    in_hand = progress.kept
    if outcome == Outcome.LOSS:
        source = KeptSource.HOUSE if change.house else KeptSource.LOSS
        # Dealt straight into the hand: no one chooses a loss card.
        dealt = deal(
            event=change.event,
            kind=ShoeKind.STOCK,
            count=1,
            registration=registration,
            state=CardState.KEPT,
            moment=change.now,
            result=result,
            kept_index=in_hand,
            kept_source=source,
        )
        (card,) = dealt.cards
        _keep(change, registration, [card], source, game=game, before=in_hand)
        loss_card = card.card
    else:
        offer = Offer(
            registration=registration,
            kind=OfferKind.WIN,
            result=result,
            keep=1,
            face_down=False,
            offered_at=change.now,
            reminder_due_at=reminder_due(change.now),
        )
        dealt = deal(
            event=change.event,
            kind=ShoeKind.STOCK,
            count=2,
            registration=registration,
            state=CardState.OFFERED,
            moment=change.now,
            offer=offer,  # saved with its cards, after the result
            result=result,
        )
        cards = dealt.cards
        change.offered(offer.pk)
        change.audit(
            "win_cards_dealt",
            player=registration.label,
            details={
                "game": game,
                "cards": [audit_card(c, kind=ShoeKind.STOCK) for c in cards],
            },
        )
        offered = [c.card for c in cards]
    if game == 1:  # only a first result can leave nobody waiting for one
        close_if_nobody_waits(change)
    _reveal_if_complete(change, registration, progress=dealt.progress)
    return answers.ResultSubmitted(
        registration_id=registration.pk,
        game=game,
        result=Outcome(outcome),
        card=loss_card,
        offered=offered,
    )


@action("win_choice_confirm")
def win_choice_confirm(
    change: Change,
    *,
    registration_id: int,
    by: User,
    slot: int,
    offer_id: int | None = None,
    reason: Trimmed = "",
    idempotency_key: str | None = None,
) -> answers.WinChoiceConfirmed:
    """Keep one of the two face-up cards of a win; the other is discarded.

    `offer_id`, when given, names the offer the choice answers: a choice made on an earlier
    offer (a tap kept offline while House settled it and a later game dealt another) is
    refused rather than keep a card the player never saw. House may choose for a player (an
    abandoned choice) with a reason.
    """
    if isinstance(slot, bool) or slot not in (0, 1):
        raise Invalid("Choose card 0 or card 1.")
    if offer_id is not None and (isinstance(offer_id, bool) or not isinstance(offer_id, int)):
        raise Invalid("The offer is named by its id.")
    registration = _playing(change, registration_id, by, reason)
    offer = _pending_offer(registration, OfferKind.WIN)
    if offer_id is not None and offer_id != offer.id:
        raise OfferChanged()
    cards = offer.cards
    kept = cards[slot]
    discarded = [card for card in cards if card.pk != kept.pk]
    for card in discarded:
        card.state = CardState.DISCARDED
    _resolve(change, offer)
    game = offer.game
    change.audit(
        "win_choice_confirmed",
        player=registration.label,
        details={
            "game": game,
            "kept": audit_card(kept, kind=ShoeKind.STOCK),
            "discarded": audit_card(discarded[0], kind=ShoeKind.STOCK),
            "by_house": change.house,
        },
        reason=_reason(change, reason),
    )
    source = KeptSource.HOUSE if change.house else KeptSource.WIN
    in_hand = _keep(change, registration, [kept], source, game=game, before=offer.in_hand)
    save_cards(cards)
    _reveal_if_complete(change, registration, in_hand=in_hand)
    return answers.WinChoiceConfirmed(registration_id=registration.pk, game=game, kept=kept.card)


@action("wild_reveal")
def wild_reveal(
    change: Change,
    *,
    registration_id: int,
    by: User,
    idempotency_key: str | None = None,
) -> answers.WildRevealed:
    """House reveals one complete player's wild (Standard v1)."""
    registration = registration_for(change, registration_id, by)
    if not change.house:
        raise NotAllowed("Only House reveals wilds in Standard v1 events.")
    _refuse_unless_in_play(change, registration)
    if change.event.rules.automatic_reveal:
        raise WrongPhase("This format reveals each wild automatically.")
    if registration.wild_rank:
        raise HandLocked("This player's wild is already revealed.")
    if registration.paused:
        raise PlayerPaused()
    if not change.progress[registration.pk].complete(registration):
        raise NotComplete(f"{registration.label}'s hand is not complete yet.")
    wild = _reveal(change, registration)
    return answers.WildRevealed(registration_id=registration.pk, wild_rank=wild)


@action("result_correct")
def result_correct(
    change: Change,
    *,
    registration_id: int,
    by: User,
    game: int,
    outcome: str,
    reason: Trimmed,
    idempotency_key: str | None = None,
) -> answers.ResultCorrected:
    """House corrects a result (Win <-> Loss). No card moves; the player is paused for review."""
    if isinstance(game, bool) or not isinstance(game, int) or not 1 <= game <= limits.MAX_GAME:
        raise Invalid(f"The game number is a whole number from 1 to {limits.MAX_GAME}.")
    if outcome not in Outcome.values:
        raise Invalid("The result is 'win' or 'loss'.")
    if not reason.strip():
        raise ReasonRequired("House must give a reason for a correction.")
    registration = _house_target(change, registration_id, by)
    result = registration.results.filter(game=game).first()
    if result is None:
        raise NotFound(f"{registration.label} has no result for game {game}.")
    if result.outcome == outcome:
        raise Invalid(f"Game {game} is already recorded as a {outcome}.")
    before = result.outcome
    result.outcome = outcome
    result.save(update_fields=["outcome"])
    review = Review.objects.create(
        registration=registration,
        result=result,
        corrected_from=before,
        corrected_to=outcome,
        reason=reason.strip(),
        opened_by=change.actor,
    )
    _pause(registration)
    change.audit(
        "result_corrected",
        player=registration.label,
        details={"game": game, "from": before, "to": outcome},
        reason=reason.strip(),
    )
    change.audit(
        "review_opened",
        player=registration.label,
        details={"review": review.pk, "game": game},
        reason=reason.strip(),
    )
    return answers.ResultCorrected(registration_id=registration.pk, review_id=review.pk)


@action("review_open")
def review_open(
    change: Change,
    *,
    registration_id: int,
    by: User,
    reason: Trimmed,
    idempotency_key: str | None = None,
) -> answers.ReviewOpened:
    """House pauses a player for review without a correction."""
    if not reason.strip():
        raise ReasonRequired("House must give a reason for a pause.")
    registration = _house_target(change, registration_id, by)
    review = Review.objects.create(
        registration=registration, reason=reason.strip(), opened_by=change.actor
    )
    _pause(registration)
    change.audit(
        "review_opened",
        player=registration.label,
        details={"review": review.pk, "game": None},
        reason=reason.strip(),
    )
    return answers.ReviewOpened(registration_id=registration.pk, review_id=review.pk)


def _registration_of_review(arguments: Mapping[str, Any]) -> int:
    """The registration whose event a review's resolution locks."""
    review = Review.objects.filter(pk=arguments["review_id"]).values("registration_id").first()
    if review is None:
        raise NotFound("No such review.")
    return int(review["registration_id"])


@action("review_resolve", registration_of=_registration_of_review)
def review_resolve(
    change: Change,
    *,
    review_id: int,
    by: User,
    reason: Trimmed,
    idempotency_key: str | None = None,
) -> answers.ReviewResolved:
    """House resolves a review with a reason; the player resumes when none is left open."""
    if not reason.strip():
        raise ReasonRequired("House must give a reason when resolving a review.")
    review = Review.objects.get(pk=review_id)
    registration = _house_target(change, review.registration_id, by)
    if review.resolved_at is not None:
        raise WrongPhase("This review is already resolved.")
    review.resolution = reason.strip()
    review.resolved_by = change.actor
    review.resolved_at = change.now
    review.save(update_fields=["resolution", "resolved_by", "resolved_at"])
    if not registration.reviews.open().exists():
        registration.paused = False
        registration.save(update_fields=["paused"])
    change.audit(
        "review_resolved",
        player=registration.label,
        details={"review": review.pk},
        reason=reason.strip(),
    )
    _reveal_if_complete(change, registration)
    return answers.ReviewResolved(
        registration_id=registration.pk, review_id=review.pk, paused=registration.paused
    )


# --- the steps the services share -----------------------------------------------------------


def _playing(change: Change, registration_id: int, by: User, reason: str) -> Registration:
    """The registration a player acts on, or House assists with a reason."""
    registration = registration_for(change, registration_id, by)
    if change.house and not reason.strip():
        raise ReasonRequired("House must give a reason when acting for a player.")
    _refuse_unless_in_play(change, registration)
    if registration.wild_rank:
        raise HandLocked()
    return registration


def _house_target(change: Change, registration_id: int, by: User) -> Registration:
    registration = registration_for(change, registration_id, by)
    if not change.house:
        raise NotAllowed("Only House can do that.")
    _refuse_unless_in_play(change, registration)
    return registration


def _refuse_unless_in_play(change: Change, registration: Registration) -> None:
    change.refuse_if_finalized()
    if change.event.phase != Phase.STARTED:
        raise WrongPhase("The event has not started yet.")
    if registration.status == RegistrationStatus.WITHDRAWN:
        raise PlayerIsWithdrawn()
    if registration.status != RegistrationStatus.CHECKED_IN:
        raise NotCheckedIn()


@dataclass(frozen=True, slots=True)
class PendingOffer:
    """A player's pending selection and its cards, in slot order."""

    id: int
    keep: int
    game: int | None
    cards: list[DealtCard]
    in_hand: int  # cards the player's hand holds already


def _pending_offer(registration: Registration, kind: OfferKind) -> PendingOffer:
    """The pending selection of this kind, with its cards, read in one statement."""
    offer = store.pending_choice(registration_id=registration.pk)
    if offer is None or offer.kind != kind:
        what = "starting selection" if kind == OfferKind.STARTING else "win choice"
        raise NothingPending(f"There is no pending {what}.")
    return PendingOffer(
        id=offer.id,
        keep=offer.keep,
        game=offer.game,
        cards=offer.cards,
        in_hand=offer.in_hand,
    )


def _resolve(change: Change, offer: PendingOffer) -> None:
    store.resolve_offer(offer_id=offer.id, resolved_at=change.now, by_house=change.house)


def _keep(
    change: Change,
    registration: Registration,
    cards: list[DealtCard],
    source: KeptSource,
    *,
    game: int | None,
    before: int,
) -> int:
    """Put cards into a hand holding `before` cards, in order, each with its `card_kept` entry.

    The caller saves the cards (`save_cards`); returns how many cards the hand holds now.
    """
    for index, card in enumerate(cards, start=before):
        card.state = CardState.KEPT
        card.face_down = False
        card.kept_index = index
        card.kept_source = source
        change.audit(
            "card_kept",
            player=registration.label,
            details={
                "card": audit_card(card, kind=ShoeKind.STOCK),
                "source": source.value,
                "game": game,
            },
        )
    return before + len(cards)


def _pause(registration: Registration) -> None:
    if not registration.paused:
        registration.paused = True
        registration.save(update_fields=["paused"])


def _reveal_if_complete(
    change: Change,
    registration: Registration,
    *,
    in_hand: int | None = None,
    progress: Progress | None = None,
) -> None:
    """League and Switch reveal the wild the moment the hand is verified complete.

    `progress`, when the caller knows it, is the player's progress now (read under this change's
    lock, with what the change wrote); otherwise `in_hand`, how many cards the hand holds
    now, settles most actions without a query: a hand short of cards cannot be complete.
    """
    if not change.event.rules.automatic_reveal or registration.wild_rank or registration.paused:
        return
    if registration.status != RegistrationStatus.CHECKED_IN:
        return
    if progress is None:
        if in_hand is not None and in_hand < change.event.rules.kept:
            return
        progress = progress_of(registration)
    if progress.complete(registration):
        _reveal(change, registration, by_system=True)


def _reveal(change: Change, registration: Registration, *, by_system: bool = False) -> str:
    (indicator,) = deal(
        event=change.event,
        kind=ShoeKind.HOUSE,
        count=1,
        registration=registration,
        state=CardState.INDICATOR,
        moment=change.now,
    ).cards
    registration.wild_rank = indicator.card[0]
    registration.revealed_at = change.now
    change.save_at_end(registration, "wild_rank", "revealed_at")
    change.audit(
        "wild_revealed",
        player=registration.label,
        details={
            "indicator": audit_card(indicator, kind=ShoeKind.HOUSE),
            "wild_rank": registration.wild_rank,
        },
        by_system=by_system,
    )
    return registration.wild_rank


def _clean_slots(slots: Sequence[int]) -> set[int]:
    if isinstance(slots, str | bytes) or not all(
        isinstance(slot, int) and not isinstance(slot, bool) and slot >= 0 for slot in slots
    ):
        raise Invalid("Starting cards are chosen by their numbers (0, 1, 2 ...).")
    chosen = set(slots)
    if len(chosen) != len(slots):
        raise Invalid("Each starting card can be chosen once.")
    return chosen


def _reason(change: Change, reason: str) -> str | None:
    return reason.strip() or None if change.house else None
