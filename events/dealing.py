"""Dealing from an event's shoes to its players, strictly in order; saving what became of cards."""

from __future__ import annotations

from dataclasses import dataclass
from datetime import datetime, timedelta

from django.conf import settings
from django.db import connection, models
from django.utils.translation import gettext as _

from cards.models import CardState, DealtCard, Offer, Shoe, ShoeKind
from events import store
from events.errors import DomainError, StockExhausted, WrongPhase
from events.models import Event, GameResult, Registration
from events.progress import Progress


@dataclass(frozen=True, slots=True)
class Dealt:
    cards: list[DealtCard]  # in slot order
    progress: Progress  # the player's, with what the deal wrote


def reminder_due(offered_at: datetime) -> datetime:
    """When a player who has not chosen from an offer is nudged, once (`PUSH_REMINDER_DELAY`
    seconds on): stored with the offer, so a reminder whose countdown was lost is still found."""
    return offered_at + timedelta(seconds=settings.PUSH_REMINDER_DELAY)


def deal(
    *,
    event: Event,
    kind: ShoeKind,
    count: int,
    registration: Registration,
    state: CardState,
    moment: datetime,
    offer: Offer | None = None,
    result: GameResult | None = None,
    face_down: bool = False,
    kept_index: int | None = None,
    kept_source: str = "",
) -> Dealt:
    """Deal `count` cards from the top of the shoe to `registration`, recording each position.

    Cards dealt straight into the hand (`state` kept) take slots from `kept_index` on. An `offer`
    and the game `result` that earned the cards, not saved yet, are saved with them.
    """
    dealt = store.deal(
        event_id=event.pk,
        shoe=str(kind),
        count=count,
        registration_id=registration.pk,
        state=str(state),
        dealt_at=moment,
        face_down=face_down,
        kept_index=kept_index,
        kept_source=str(kept_source),
        result=None
        if result is None
        else store.NewResult(
            game=result.game,
            outcome=str(result.outcome),
            opponent=result.opponent,
            score=result.score,
            assisted=result.assisted,
        ),
        offer=None
        if offer is None
        else store.NewOffer(
            kind=str(offer.kind),
            keep=offer.keep,
            face_down=offer.face_down,
            reminder_due_at=offer.reminder_due_at,
        ),
    )
    if dealt is None:
        raise _refusal(event, kind)
    if result is not None and dealt.result_id is not None:
        result.submitted_at = moment
        _saved(result, dealt.result_id)
    if offer is not None and dealt.offer_id is not None:
        offer.result_id = dealt.result_id
        _saved(offer, dealt.offer_id)
    cards = [
        DealtCard(
            id=row.id,
            shoe_id=row.shoe_id,
            position=row.position,
            card=row.card,
            registration=registration,
            offer=offer,
            result=result,
            slot=row.slot,
            face_down=face_down,
            state=state,
            kept_index=None if kept_index is None else kept_index + row.slot,
            kept_source=kept_source,
            dealt_at=moment,
        )
        for row in dealt.cards
    ]
    for card in cards:
        _saved(card, card.pk)
    return Dealt(cards, Progress.of(dealt.progress, event.rules))


def _saved(instance: models.Model, pk: int) -> None:
    """Mark an instance the deal's statement inserted as saved, as `Model.save` would."""
    instance.pk = pk
    instance._state.adding = False
    instance._state.db = connection.alias


def _refusal(event: Event, kind: ShoeKind) -> DomainError:
    """Why the shoe gave no cards: there is none yet, or it would run past its end."""
    if not Shoe.objects.filter(event=event, kind=kind).exists():
        return WrongPhase(_("The cards are not shuffled yet: the event has not started."))
    return StockExhausted()


def save_cards(cards: list[DealtCard]) -> None:
    """Write each card's state, face, hand slot and source, all cards in one UPDATE."""
    if not cards:
        return
    store.write_cards(
        cards=[
            store.CardChange(
                id=card.pk,
                state=str(card.state),
                face_down=card.face_down,
                kept_index=card.kept_index,
                kept_source=str(card.kept_source),
            )
            for card in cards
        ]
    )
