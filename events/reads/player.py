"""A player's own state: the player page's panel, the API's and the socket's snapshot.

`player_state(registration)` builds it; `player_states` does so for several players of one event
in a few queries. Face-down cards are only slots here until the confirmation reveals them.
"""

from __future__ import annotations

import datetime
import zoneinfo
from dataclasses import dataclass
from typing import Annotated

from django.db.models import Q
from django.utils import formats, timezone, translation
from django.utils.translation import gettext as _
from django.utils.translation import pgettext

from cards.models import CardState, DealtCard, KeptSource, Offer, OfferKind, pending_offer
from cards.names import card_face
from events import waitlist
from events.answers import Described
from events.check_in import self_check_in_open
from events.formats import Format
from events.models import (
    Event,
    GameResult,
    Outcome,
    Phase,
    Registration,
    RegistrationStatus,
    Review,
)
from events.money import dollars
from events.play_rules import (
    PlayerFacts,
    hand_complete,
    may_choose_start,
    may_choose_win,
    may_submit_result,
    starting_confirmed,
)
from events.player_words import (
    HandNames,
    ReviewWords,
    hand_names,
    review_words,
    wild_effect,
    win_keep_words,
)
from events.progress import provisional_standings
from events.reads.common import CardFace, face
from events.reads.final import FinalWinners, final_winners
from events.waitlist import positions
from scoring.standings import Standings

REVEAL_SECONDS = 10  # how long a page load still shows the revealed starting offer


@dataclass(frozen=True, slots=True)
class NextStep:
    """The one thing to do now, in the rules' words."""

    code: Annotated[str, Described("`choose_start`, `report`, `choose_win`, `done` ...")]
    text: str
    game: Annotated[str | None, Described("The game to report next.")] = None


@dataclass(frozen=True, slots=True)
class HandCard(CardFace):
    """A kept card: where it came from, and whether it is of the player's wild rank."""

    source: KeptSource
    wild: bool


@dataclass(frozen=True, slots=True)
class PendingCard:
    """An offered card: a face-down one is only its slot until the confirmation reveals it."""

    slot: int
    face_down: bool
    code: Annotated[str | None, Described("Face-up cards only.")] = None
    rank: str | None = None
    suit: str | None = None
    symbol: str | None = None
    name: str | None = None


@dataclass(frozen=True, slots=True)
class Pending:
    """The offer waiting for the player's choice: starting cards, or a Win's face-up cards."""

    id: Annotated[int, Described("The offer; a win choice may name it (`offer_id`).")]
    kind: OfferKind
    keep: int
    offered: int
    game: int | None
    since: datetime.datetime
    cards: tuple[PendingCard, ...]


@dataclass(frozen=True, slots=True)
class RevealCard(CardFace):
    """An offered starting card, face up: kept, or marked Not kept."""

    kept: Annotated[bool, Described("False: marked Not kept.")]


@dataclass(frozen=True, slots=True)
class Reveal:
    """Every offered starting card, face up, for a few seconds after the confirmation."""

    cards: tuple[RevealCard, ...]
    at: Annotated[
        datetime.datetime | None,
        Described("When the confirmation revealed them (Not kept leave 3 s on)."),
    ]


@dataclass(frozen=True, slots=True)
class GameRow:
    """One game of the player's: its result once reported."""

    game: int
    outcome: Outcome | None
    opponent: str | None = None
    score: str | None = None


@dataclass(frozen=True, slots=True)
class PayAhead:
    """The entry a player holding a place pays online before their hold ends."""

    amount: Annotated[str, Described("The entry, written as dollars: `$20`.")]
    held_until: Annotated[
        str | None, Described("Until when the unpaid place is held (ISO 8601, UTC).")
    ]
    held_until_words: Annotated[str | None, Described("The same in the venue's time: `7:42 pm`.")]


@dataclass(frozen=True, slots=True)
class PlayerState:
    """One player's own state: the player page's panel, the API's and the socket's snapshot."""

    registration_id: int
    label: str
    status: RegistrationStatus
    paused: bool
    version: int
    event_version: int
    next_step: NextStep
    hand: tuple[HandCard, ...]
    slots: Annotated[int, Described("Cards a complete hand holds.")]
    wild_rank: str | None
    wild_indicator: Annotated[
        CardFace | None, Described("The House-deck card that set the wild (not playable).")
    ]
    pending: Pending | None
    reveal: Annotated[
        Reveal | None,
        Described("Every offered starting card, face up, for a few seconds after confirming."),
    ]
    empty: Annotated[tuple[int, ...], Described("One item per hand slot still empty.")]
    games: tuple[GameRow, ...]
    high_place: int | None
    low_place: int | None
    ranked: int
    award: int | None
    final: bool
    # The page's words (events.player_words): only kept cards and a revealed wild go into them.
    hand_names: Annotated[
        HandNames, Described("The kept cards' High and Low names (null before any).")
    ]
    wild_effect: Annotated[str | None, Described("What the revealed wild does to the High hand.")]
    review: Annotated[ReviewWords | None, Described("While paused: the open review.")]
    # Once the event is final: its winners, the same for every player (None before).
    winners: Annotated[
        FinalWinners | None, Described("Once the event is final: its High and Low winners.")
    ]
    # Registration ahead (events/waitlist.py): the place in line, an offered place's hold, and
    # the entry to pay online where the event asks for it ahead.
    position: Annotated[int | None, Described("While waitlisted: the place in line, from 1.")] = (
        None
    )
    offered_until: Annotated[
        str | None, Described("While offered a place: until when it is held (ISO 8601, UTC).")
    ] = None
    pay_ahead: Annotated[
        PayAhead | None,
        Described("Where the entry is paid ahead online and this place's is not yet paid."),
    ] = None
    entry_paid: Annotated[bool, Described("The entry is paid (at the door or online).")] = False


def player_state(registration: Registration) -> PlayerState:
    """One player's own state: next step, hand, pending choice, games, places."""
    return player_states([registration])[registration.pk]


def player_states(
    registrations: list[Registration], standings: Standings[int] | None = None
) -> dict[int, PlayerState]:
    """`player_state` for several players of one event, in four queries whatever their number.

    Each registration's `event` must be loaded; `standings`, when given, are the event's
    provisional standings.
    """
    if not registrations:
        return {}
    event = registrations[0].event
    rules = event.rules
    ids = [r.pk for r in registrations]
    kept: dict[int, list[DealtCard]] = {pk: [] for pk in ids}
    indicators: dict[int, str] = {}
    for card in DealtCard.objects.filter(
        registration_id__in=ids, state__in=[CardState.KEPT, CardState.INDICATOR]
    ).order_by("registration_id", "kept_index", "id"):
        if card.state == CardState.KEPT:
            kept[card.registration_id].append(card)
        else:
            indicators.setdefault(card.registration_id, card.card)
    pending_offers: dict[int, Offer] = {}
    starting_offers: dict[int, Offer] = {}
    for offer in (
        Offer.objects.filter(registration_id__in=ids)
        .filter(pending_offer() | Q(kind=OfferKind.STARTING, resolved_at__isnull=False))
        .select_related("result")
        .order_by("registration_id", "id")
    ):
        if offer.resolved_at is None:
            pending_offers.setdefault(offer.registration_id, offer)
        else:
            starting_offers.setdefault(offer.registration_id, offer)
    now = timezone.now()
    recent = {
        pk: offer
        for pk, offer in starting_offers.items()
        if offer.resolved_at is not None
        and (now - offer.resolved_at).total_seconds() <= REVEAL_SECONDS
    }
    shown = [o.pk for o in pending_offers.values()] + [o.pk for o in recent.values()]
    offer_cards: dict[int, list[DealtCard]] = {pk: [] for pk in shown}
    for card in DealtCard.objects.filter(offer_id__in=shown).order_by("offer_id", "slot"):
        if card.offer_id is not None:
            offer_cards[card.offer_id].append(card)
    results: dict[int, list[GameRow]] = {pk: [] for pk in ids}
    for registration_id, game, outcome, opponent, score in (
        GameResult.objects.filter(registration_id__in=ids)
        .order_by("registration_id", "game")
        .values_list("registration_id", "game", "outcome", "opponent", "score")
    ):
        results[registration_id].append(GameRow(game, Outcome(outcome), opponent, score))
    reviews: dict[int, Review] = {}
    paused = [r.pk for r in registrations if r.paused]
    if paused:
        for review in (
            Review.objects.open()
            .filter(registration_id__in=paused)
            .select_related("result")
            .order_by("registration_id", "-id")
        ):
            reviews.setdefault(review.registration_id, review)
    table = (
        standings
        if standings is not None
        else (provisional_standings(event) if event.phase == Phase.STARTED else None)
    )
    winners = final_winners(event)
    # Only while someone of them waits in line: one query for every place in it.
    in_line = (
        positions(event)
        if any(r.status == RegistrationStatus.WAITLISTED for r in registrations)
        else {}
    )
    return {
        r.pk: _player(
            r,
            rules,
            kept=kept[r.pk],
            indicator=indicators.get(r.pk),
            offer=pending_offers.get(r.pk),
            recent=recent.get(r.pk),
            offer_cards=offer_cards,
            results=results[r.pk],
            table=table,
            review=reviews.get(r.pk),
            winners=winners,
            position=in_line.get(r.pk),
        )
        for r in registrations
    }


def _pending(offer: Offer, cards: list[DealtCard]) -> Pending:
    return Pending(
        id=offer.pk,  # what a choice names, so it never answers a later offer
        kind=OfferKind(offer.kind),
        keep=offer.keep,
        offered=len(cards),
        game=offer.result.game if offer.result else None,
        since=offer.offered_at,
        # Face-down cards are only slots until the confirmation reveals them.
        cards=tuple(
            PendingCard(slot=c.slot, face_down=True)
            if c.face_down
            else PendingCard(slot=c.slot, face_down=False, **card_face(c.card))
            for c in cards
        ),
    )


def _player(
    registration: Registration,
    rules: Format,
    *,
    kept: list[DealtCard],
    indicator: str | None,
    offer: Offer | None,
    recent: Offer | None,
    offer_cards: dict[int, list[DealtCard]],
    results: list[GameRow],
    table: Standings[int] | None,
    review: Review | None = None,
    winners: FinalWinners | None = None,
    position: int | None = None,
) -> PlayerState:
    event = registration.event
    final = event.phase == Phase.FINALIZED
    pending = None if offer is None else _pending(offer, offer_cards[offer.pk])
    # Every offered starting card, face up, for a few seconds after the confirmation.
    reveal = (
        None
        if recent is None
        else Reveal(
            cards=tuple(
                RevealCard(**card_face(c.card), kept=c.state == CardState.KEPT)
                for c in offer_cards[recent.pk]
            ),
            at=recent.resolved_at,
        )
    )
    reported = {row.game: row for row in results}
    pending_game = pending.game if pending else None
    pending_outcome = reported[pending_game].outcome if pending_game in reported else None
    wild_rank = registration.wild_rank or None
    held = [c.card for c in kept]
    paying = _pay_ahead(registration)
    step = next_step(
        registration,
        rules,
        len(kept),
        len(results),
        pending,
        pending_outcome=pending_outcome,
        position=position,
        paying=paying,
    )
    return PlayerState(
        registration_id=registration.pk,
        label=registration.label,
        status=RegistrationStatus(registration.status),
        paused=registration.paused,
        version=registration.version,
        event_version=event.version,
        next_step=step,
        hand=tuple(
            HandCard(
                **card_face(c.card),
                source=KeptSource(c.kept_source),
                wild=bool(registration.wild_rank) and c.card[0] == registration.wild_rank,
            )
            for c in kept
        ),
        slots=rules.kept,
        wild_rank=wild_rank,
        # The House-deck card that set the wild; not a playable card.
        wild_indicator=face(indicator) if registration.wild_rank and indicator else None,
        pending=pending,
        reveal=reveal,
        empty=tuple(range(max(rules.kept - len(kept), 0))),
        games=tuple(
            reported.get(g, GameRow(game=g, outcome=None)) for g in range(1, rules.games + 1)
        ),
        high_place=(
            registration.high_place
            if final
            else table.high_place(registration.pk)
            if table
            else None
        ),
        low_place=(
            registration.low_place if final else table.low_place(registration.pk) if table else None
        ),
        ranked=len(table.high) if table else 0,
        award=registration.award if final else None,
        final=final,
        # The page's words: only the kept cards and a revealed wild go into them.
        hand_names=hand_names(held, wild_rank),
        wild_effect=wild_effect(held, wild_rank),
        review=review_words(review) if registration.paused else None,
        winners=winners,
        position=position,
        offered_until=(
            registration.hold_until.isoformat()
            if registration.status == RegistrationStatus.OFFERED and registration.hold_until
            else None
        ),
        pay_ahead=paying,
        entry_paid=registration.paid,
    )


def _pay_ahead(registration: Registration) -> PayAhead | None:
    """The entry to pay online: a place held, not paid, where the event asks for it ahead."""
    event = registration.event
    if (
        registration.status != RegistrationStatus.REGISTERED
        or registration.paid
        or event.phase != Phase.OPEN
        or not waitlist.pays_ahead(event)
    ):
        return None
    until = registration.hold_until
    return PayAhead(
        amount=dollars(event.contribution),
        held_until=None if until is None else until.isoformat(),
        held_until_words=None if until is None else venue_clock(event, until),
    )


def venue_clock(event: Event, moment: datetime.datetime) -> str:
    """A moment as a player reads it at the venue: `7:42 pm`, with the day when it is not today."""
    try:
        zone = zoneinfo.ZoneInfo(event.time_zone)
    except (zoneinfo.ZoneInfoNotFoundError, ValueError):
        zone = zoneinfo.ZoneInfo("UTC")
    local = moment.astimezone(zone)
    # The venue's English reads "7:42 pm"; other languages write the time their own way (24-hour
    # in Spanish and French).
    clock = (
        f"{local.hour % 12 or 12}:{local.minute:02d} {'am' if local.hour < 12 else 'pm'}"
        if translation.get_language() in (None, "en")
        else formats.time_format(local)
    )
    if local.date() == timezone.now().astimezone(zone).date():
        return clock
    # "7:42 pm on Tue 5 May": the day and month in the active language's words.
    return _("%(clock)s on %(day)s") % {
        "clock": clock,
        "day": formats.date_format(local, pgettext("a day, shortened", "D j M")),
    }


def next_step(
    registration: Registration,
    rules: Format,
    kept: int,
    reported: int,
    pending: Pending | None,
    *,
    pending_outcome: str | None = None,
    position: int | None = None,
    paying: PayAhead | None = None,
) -> NextStep:
    """The one thing to do now, in the rules' words (`pending_outcome`: the game result, as
    recorded now, that the pending win choice came from)."""
    event = registration.event
    status = registration.status
    if event.phase == Phase.FINALIZED:
        return NextStep("final", _("The event is final."))
    if status == RegistrationStatus.WITHDRAWN:
        return NextStep("withdrawn", _("You have left this event."))
    if status in (RegistrationStatus.CANCELLED, RegistrationStatus.NO_SHOW):
        return NextStep("out", _("You are not playing in this event."))
    if status == RegistrationStatus.WAITLISTED:
        return NextStep(
            "waitlisted",
            _("You are #%(position)s on the waitlist.") % {"position": position}
            if position
            else _("You are on the waitlist."),
        )
    if status == RegistrationStatus.OFFERED:
        until = registration.hold_until
        return NextStep(
            "offered",
            _("A place is yours: claim it.")
            if until is None
            else _("A place is yours until %(time)s: claim it.")
            % {"time": venue_clock(event, until)},
        )
    if status == RegistrationStatus.REGISTERED and paying is not None:
        return NextStep(
            "pay",
            _("Pay the %(amount)s entry online to keep your place.") % {"amount": paying.amount}
            if paying.held_until_words is None
            else _("Pay the %(amount)s entry online to keep your place (held until %(time)s).")
            % {"amount": paying.amount, "time": paying.held_until_words},
        )
    if status == RegistrationStatus.REGISTERED:
        if self_check_in_open(event):
            # The page offers the board's code right below (web/_self_check_in.html).
            return NextStep(
                "self_check_in",
                _("Check in with the board's code or with House before playing."),
            )
        return NextStep("check_in", _("Check in with House before playing."))
    if event.phase != Phase.STARTED:
        return NextStep("wait_start", _("Checked in. Waiting for House to start the event."))
    kind = pending.kind if pending else None
    facts = PlayerFacts(
        label=registration.label,
        phase=event.phase,
        status=status,
        paused=registration.paused,
        wild_revealed=bool(registration.wild_rank),
        results=reported,
        kept=kept,
        starting_confirmed=starting_confirmed(rules, kind),
        pending=kind,
        open_reviews=int(registration.paused),  # paused while any review of theirs is open
    )
    if pending and may_choose_start(facts):
        return NextStep(
            "choose_start",
            _("Choose %(keep)s of %(offered)s starting cards")
            % {"keep": pending.keep, "offered": pending.offered},
        )
    if pending and may_choose_win(facts) and pending_outcome == Outcome.LOSS:
        # A Win -> Loss correction leaves the choice in place (docs/rules.md section 8.2).
        return NextStep(
            "choose_win",
            _("Game %(game)s is now a loss, but its choice stays: %(choice)s")
            % {"game": pending.game, "choice": win_keep_words(rules)},
        )
    if pending and may_choose_win(facts):
        return NextStep(
            "choose_win",
            _("You won game %(game)s: %(choice)s")
            % {"game": pending.game, "choice": win_keep_words(rules)},
        )
    if registration.paused:
        return NextStep("review", _("Waiting for House review"))
    if may_submit_result(facts, rules):
        return NextStep(
            "report", _("Report game %(game)s") % {"game": reported + 1}, game=str(reported + 1)
        )
    if registration.wild_rank:
        return NextStep(
            "done",
            _("All done: your Wild is %(rank)s") % {"rank": _rank_word(registration.wild_rank)},
        )
    if hand_complete(facts, rules):
        return NextStep("await_reveal", _("All games reported: House reveals your Wild"))
    return NextStep("wait", _("Waiting for House."))


def _rank_word(rank: str) -> str:
    return {"T": "10"}.get(rank, rank)
