"""Playing: starting selection, results, win choices, wild reveals, corrections, reviews."""

from __future__ import annotations

from collections.abc import Mapping, Sequence
from typing import Any

from django.utils.translation import gettext as _

from accounts.models import User
from cards.models import CardState, DealtCard, KeptSource, Offer, OfferKind, ShoeKind
from cards.stock import audit_card
from events import answers, limits, store
from events.access import registration_for
from events.dealing import deal, reminder_due, save_cards
from events.errors import (
    DomainError,
    Invalid,
    NotAllowed,
    NotFound,
    NothingPending,
    OfferChanged,
    OutOfOrder,
    ReasonRequired,
    WrongCount,
    WrongPhase,
    WrongState,
)
from events.limits import check_text
from events.models import GameResult, Outcome, Registration, Review
from events.play_rules import (
    choice_refusal,
    in_play_refusal,
    result_refusal,
    reveal_refusal,
    reveals_now,
)
from events.progress import Progress, progress_of
from events.registration import facts_of
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
    registration = _choosing(change, registration_id, by, reason, OfferKind.STARTING)
    offer = _pending_offer(registration, OfferKind.STARTING)
    cards = offer.cards
    if len(chosen) != offer.keep:
        raise WrongCount(
            _("Choose exactly %(keep)s of %(count)s starting cards.")
            % {"keep": offer.keep, "count": len(cards)}
        )
    if any(slot >= len(cards) for slot in chosen):
        # A slot another format offers (the request is well formed): this offer has fewer cards.
        raise WrongState(
            _("This offer has %(count)s starting cards, numbered 0 to %(last)s.")
            % {"count": len(cards), "last": len(cards) - 1}
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
    """Report the next game's result: a loss deals its cards into the hand, a win offers its
    cards face up to choose from (as many as the format says, docs/rules.md section 5)."""
    opponent = check_text(opponent, label=_("The opponent"), max_length=limits.OPPONENT_LENGTH)
    score = check_text(score, label=_("The score"), max_length=limits.SCORE_LENGTH)
    if isinstance(game, bool) or not isinstance(game, int) or not 1 <= game <= limits.MAX_GAME:
        raise Invalid(
            _("The game number is a whole number from 1 to %(max_game)s.")
            % {"max_game": limits.MAX_GAME}
        )
    if outcome not in Outcome.values:
        raise Invalid(_("The result is 'win' or 'loss'."))
    registration = _acting(change, registration_id, by, reason)
    rules = change.event.rules
    progress = change.progress[registration.pk]  # read with the registration, just now
    _refuse(result_refusal(progress.facts(registration, phase=change.event.phase), rules))
    if game != progress.results + 1:
        raise OutOfOrder(
            _("The next game to report is game %(game)s.") % {"game": progress.results + 1}
        )
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
            count=rules.loss_dealt,
            registration=registration,
            state=CardState.KEPT,
            moment=change.now,
            result=result,
            kept_index=in_hand,
            kept_source=source,
        )
        _keep(change, registration, dealt.cards, source, game=game, before=in_hand)
        loss_card = dealt.cards[0].card  # a format's Loss deals one card (events.formats)
    else:
        offer = Offer(
            registration=registration,
            kind=OfferKind.WIN,
            result=result,
            keep=rules.win_kept,
            face_down=False,
            offered_at=change.now,
            reminder_due_at=reminder_due(change.now),
        )
        dealt = deal(
            event=change.event,
            kind=ShoeKind.STOCK,
            count=rules.win_offered,
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
    """Keep one of a win's face-up cards; the others are discarded.

    `offer_id`, when given, names the offer the choice answers: a choice made on an earlier
    offer (a tap kept offline while House settled it and a later game dealt another) is
    refused rather than keep a card the player never saw. House may choose for a player (an
    abandoned choice) with a reason.
    """
    if isinstance(slot, bool) or not isinstance(slot, int) or slot < 0:
        raise Invalid(_("Choose a card by its number (0, 1 ...)."))
    if offer_id is not None and (isinstance(offer_id, bool) or not isinstance(offer_id, int)):
        raise Invalid(_("The offer is named by its id."))
    registration = _choosing(change, registration_id, by, reason, OfferKind.WIN)
    offer = _pending_offer(registration, OfferKind.WIN)
    if offer_id is not None and offer_id != offer.id:
        raise OfferChanged()
    cards = offer.cards
    if slot >= len(cards):
        raise Invalid(
            _("This win offers %(count)s cards: choose card 0 to %(last)s.")
            % {"count": len(cards), "last": len(cards) - 1}
        )
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
            "discarded": _discarded(discarded),
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
        if change.roles:
            raise change.refusal()
        raise NotAllowed(_("Only House reveals wilds in Standard v1 events."))
    _refuse(reveal_refusal(facts_of(change, registration), change.event.rules))
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
        raise Invalid(
            _("The game number is a whole number from 1 to %(max_game)s.")
            % {"max_game": limits.MAX_GAME}
        )
    if outcome not in Outcome.values:
        raise Invalid(_("The result is 'win' or 'loss'."))
    if not reason.strip():
        raise ReasonRequired(_("House must give a reason for a correction."))
    registration = _house_target(change, registration_id, by)
    result = registration.results.filter(game=game).first()
    if result is None:
        raise NotFound(
            _("%(player)s has no result for game %(game)s.")
            % {"player": registration.label, "game": game}
        )
    if result.outcome == outcome:
        if outcome == "win":
            raise Invalid(_("Game %(game)s is already recorded as a win.") % {"game": game})
        raise Invalid(_("Game %(game)s is already recorded as a loss.") % {"game": game})
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
        raise ReasonRequired(_("House must give a reason for a pause."))
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
        raise NotFound(_("No such review."))
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
        raise ReasonRequired(_("House must give a reason when resolving a review."))
    review = Review.objects.get(pk=review_id)
    registration = _house_target(change, review.registration_id, by)
    if review.resolved_at is not None:
        raise WrongPhase(_("This review is already resolved."))
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


def _acting(change: Change, registration_id: int, by: User, reason: str) -> Registration:
    """The registration a player acts on, or House assists with a reason."""
    registration = registration_for(change, registration_id, by)
    if change.house and not reason.strip():
        raise ReasonRequired(_("House must give a reason when acting for a player."))
    return registration


def _choosing(
    change: Change, registration_id: int, by: User, reason: str, kind: OfferKind
) -> Registration:
    """The registration whose pending offer of `kind` the player (or House) chooses from."""
    registration = _acting(change, registration_id, by, reason)
    _refuse(choice_refusal(facts_of(change, registration), kind))
    return registration


def _house_target(change: Change, registration_id: int, by: User) -> Registration:
    registration = registration_for(change, registration_id, by)
    if not change.house:
        raise change.refusal()
    _refuse(in_play_refusal(facts_of(change, registration)))
    return registration


def _refuse(refusal: DomainError | None) -> None:
    if refusal is not None:
        raise refusal


def _pending_offer(registration: Registration, kind: OfferKind) -> store.PendingOffer:
    """The pending selection of this kind, with its cards, read in one statement."""
    offer = store.pending_choice(registration_id=registration.pk)
    if offer is None or offer.kind != kind:
        # `choice_refusal` found it pending in the progress read under the same lock.
        raise NothingPending()
    return offer


def _discarded(cards: list[DealtCard]) -> dict[str, Any] | list[dict[str, Any]]:
    """The audit's `discarded`: the one card a two-card win leaves, as every audit has written it
    since the first; a list when a format's win leaves more (docs/audit.md)."""
    written = [audit_card(card, kind=ShoeKind.STOCK) for card in cards]
    return written[0] if len(written) == 1 else written


def _resolve(change: Change, offer: store.PendingOffer) -> None:
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
    rules = change.event.rules
    # What can be told without reading the progress (`reveals_now` asks it again).
    if not rules.automatic_reveal or registration.wild_rank or registration.paused:
        return
    if progress is None:
        if in_hand is not None and in_hand < rules.kept:
            return
        progress = progress_of(registration)
    if reveals_now(progress.facts(registration, phase=change.event.phase), rules):
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
        raise Invalid(_("Starting cards are chosen by their numbers (0, 1, 2 ...)."))
    chosen = set(slots)
    if len(chosen) != len(slots):
        raise Invalid(_("Each starting card can be chosen once."))
    return chosen


def _reason(change: Change, reason: str) -> str | None:
    return reason.strip() or None if change.house else None
