"""Domain errors: each carries a stable snake_case code, an HTTP status and a plain message.

Services raise them; the API and the pages map them once (`error.as_json()`), never by hand.
The codes are listed in docs/errors.md and never change meaning.
"""

from __future__ import annotations

from django.utils.translation import gettext_lazy

# The kinds every layer refuses with live on the ground floor; the engine's own kinds follow.
from helpers.errors import DomainError as DomainError
from helpers.errors import IdempotencyKeyRequired as IdempotencyKeyRequired
from helpers.errors import Invalid as Invalid
from helpers.errors import NotAllowed as NotAllowed
from helpers.errors import NotFound as NotFound
from helpers.errors import WrongState as WrongState


class ReasonRequired(DomainError):
    code = "reason_required"
    status = 400
    default_message = gettext_lazy("House must give a reason for this action.")


class WrongCount(DomainError):
    code = "wrong_count"
    status = 400
    default_message = gettext_lazy("Choose exactly the number of cards required.")


class WrongPhase(WrongState):
    code = "wrong_phase"
    default_message = gettext_lazy("The event is not at the stage where that can be done.")


class EventIsFinalized(WrongState):
    code = "event_finalized"
    default_message = gettext_lazy("The event is finalized: nothing can change any more.")


class RegistrationIsClosed(WrongState):
    code = "registration_closed"
    default_message = gettext_lazy("Registration is closed.")


class AlreadyRegistered(WrongState):
    code = "already_registered"
    default_message = gettext_lazy("You are already registered for this event.")


class OfferLapsed(WrongState):
    code = "offer_lapsed"
    default_message = gettext_lazy(
        "The hold on this place has ended: it has passed to the next player."
    )


class NoPlaceOffered(WrongState):
    code = "no_place_offered"
    default_message = gettext_lazy("No place is offered to this registration.")


class CapacityBelowField(WrongState):
    code = "capacity_below_field"
    default_message = gettext_lazy("More players already hold a place than that capacity.")


class NotCheckedIn(WrongState):
    code = "not_checked_in"
    default_message = gettext_lazy("Check in with House before playing.")


class LateEntryClosed(WrongState):
    code = "late_entry_closed"
    default_message = gettext_lazy(
        "Late entry is closed: a Round 2 result has already been accepted."
    )


class NoSupportedPlace(WrongState):
    code = "no_supported_place"
    default_message = gettext_lazy("The stock has no supported place left for another player.")


class StartingSelectionPending(WrongState):
    code = "starting_selection_pending"
    default_message = gettext_lazy(
        "Finish selecting your starting cards before submitting game results."
    )


class PendingChoice(WrongState):
    code = "pending_choice"
    default_message = gettext_lazy("Finish your pending card selection before the next submission.")


class OutOfOrder(WrongState):
    code = "out_of_order"
    default_message = gettext_lazy("Results are reported for the next game only, in game order.")


class NothingPending(WrongState):
    code = "nothing_pending"
    default_message = gettext_lazy("There is no pending card selection.")


class OfferChanged(WrongState):
    # A keep names the offer it answers: a tap kept offline must not keep a card of a later offer.
    code = "offer_changed"
    default_message = gettext_lazy(
        "That choice was for an earlier offer: look at your cards again."
    )


class PlayerIsWithdrawn(WrongState):
    code = "player_withdrawn"
    default_message = gettext_lazy("This player has withdrawn.")


class PlayerPaused(WrongState):
    code = "player_paused"
    default_message = gettext_lazy("This player is paused for House review.")


class HandLocked(WrongState):
    code = "hand_locked"
    default_message = gettext_lazy("The hand and its wild are locked.")


class NotComplete(WrongState):
    code = "not_complete"
    default_message = gettext_lazy("The hand is not complete yet.")


class PoolLocked(WrongState):
    code = "pool_locked"
    default_message = gettext_lazy("The pool is confirmed and locked.")


class PoolNotConfirmed(WrongState):
    code = "pool_not_confirmed"
    default_message = gettext_lazy("Confirm the pool first.")


class FinalizationBlocked(WrongState):
    code = "finalization_blocked"
    default_message = gettext_lazy("Finalization is blocked: the checklist names each blocker.")


class StockExhausted(WrongState):
    code = "stock_exhausted"
    default_message = gettext_lazy("The stock has no cards left.")


class WrongCheckInCode(DomainError):
    code = "wrong_check_in_code"
    status = 403
    default_message = gettext_lazy(
        "That is not this event's check-in code: read it from the board or ask House."
    )


class SelfCheckInOff(WrongState):
    code = "self_check_in_off"
    default_message = gettext_lazy("Self check-in is off for this event: check in with House.")


class TooManyGuesses(DomainError):
    # 403 like a wrong code: the statuses of the domain are those of docs/rules.md section 11.2 (429
    # is the API's own request throttle).
    code = "too_many_guesses"
    status = 403
    default_message = gettext_lazy(
        "Too many wrong check-in codes: wait a few minutes, or check in with House."
    )


class LateEntryNeedsHouse(WrongState):
    code = "late_entry_needs_house"
    default_message = gettext_lazy(
        "The event has started: late entry needs House. Ask House to check you in."
    )


class PaidEntriesExist(WrongState):
    code = "paid_entries_exist"
    default_message = gettext_lazy(
        "Paid entries have been accepted: the contribution and the remainder policy are locked."
    )


class RemainderPolicyRequired(WrongState):
    code = "remainder_policy_required"
    default_message = gettext_lazy(
        "Announce the remainder policy (how an indivisible High remainder will be handled) "
        "before accepting paid entries."
    )


class RegistrationCannotReopen(WrongState):
    code = "registration_cannot_reopen"
    default_message = gettext_lazy(
        "Registration cannot reopen once the pool has been confirmed or every player has a "
        "first result. House may still add a late participant."
    )


class WithdrawnCannotReturn(WrongState):
    code = "withdrawn_cannot_return"
    default_message = gettext_lazy(
        "This player has withdrawn, and a withdrawal is final: withdrawn players cannot return."
    )


class AnnouncementRateLimited(WrongState):
    code = "announcement_rate_limited"
    default_message = gettext_lazy(
        "Too many announcements for this event in the last minute: try again shortly."
    )


class OrganizationLimitReached(WrongState):
    code = "organization_limit_reached"
    default_message = gettext_lazy(
        "You have made as many organizations today as one person may: try again tomorrow."
    )


class EventCapReached(WrongState):
    code = "event_cap_reached"
    default_message = gettext_lazy(
        "This organization has made as many events this month as its plan allows."
    )


class OrganizationSuspended(NotAllowed):
    code = "organization_suspended"
    default_message = gettext_lazy(
        "This organization is suspended: its House is closed until the operator resumes it. "
        "Its public pages stay open."
    )


class WrongCashBox(WrongState):
    code = "wrong_cash_box"
    default_message = gettext_lazy(
        "That player is not in this event: a ledger line goes in their own event's cash box."
    )


class RefundExceedsPayment(WrongState):
    code = "refund_exceeds_payment"
    default_message = gettext_lazy(
        "A refund cannot be larger than what the player paid and has not had back."
    )


class RefundNotInPolicy(WrongState):
    code = "refund_not_in_policy"
    default_message = gettext_lazy("The event's refund policy does not refund this entry.")


class EntryPartlyRefunded(WrongState):
    code = "entry_partly_refunded"
    default_message = gettext_lazy(
        "Part of this entry has been refunded: the money changed hands, so the rest is refunded "
        "rather than marked not paid."
    )


class SponsorExceedsPool(WrongState):
    code = "sponsor_exceeds_pool"
    default_message = gettext_lazy(
        "The sponsor's money recorded cannot be more than the sponsored pool."
    )


class PayoutExceedsAward(WrongState):
    code = "payout_exceeds_award"
    default_message = gettext_lazy(
        "A payout cannot be larger than what is left of the player's award."
    )


class OnlinePaymentUnavailable(WrongState):
    code = "online_payment_unavailable"
    default_message = gettext_lazy(
        "This event takes the entry at the door: online payment is not set up."
    )


class AgeNotConfirmed(WrongState):
    code = "age_not_confirmed"
    default_message = gettext_lazy(
        "This event is for players of age: confirm your age to register."
    )


class DeletionBlocked(WrongState):
    code = "deletion_blocked"
    default_message = gettext_lazy(
        "You have a card to choose in an event in play: choose it (or ask House), then delete "
        "your account."
    )


class IdempotencyConflict(DomainError):
    code = "idempotency_conflict"
    status = 422
    default_message = gettext_lazy("This Idempotency-Key was already used for a different request.")


ALL_ERRORS: tuple[type[DomainError], ...] = (
    Invalid,
    IdempotencyKeyRequired,
    ReasonRequired,
    WrongCount,
    NotAllowed,
    NotFound,
    WrongState,
    WrongPhase,
    EventIsFinalized,
    RegistrationIsClosed,
    AlreadyRegistered,
    NotCheckedIn,
    LateEntryClosed,
    NoSupportedPlace,
    StartingSelectionPending,
    PendingChoice,
    OutOfOrder,
    NothingPending,
    PlayerIsWithdrawn,
    PlayerPaused,
    HandLocked,
    NotComplete,
    PoolLocked,
    PoolNotConfirmed,
    FinalizationBlocked,
    StockExhausted,
    WrongCheckInCode,
    SelfCheckInOff,
    TooManyGuesses,
    LateEntryNeedsHouse,
    PaidEntriesExist,
    RemainderPolicyRequired,
    RegistrationCannotReopen,
    WithdrawnCannotReturn,
    AnnouncementRateLimited,
    OrganizationLimitReached,
    EventCapReached,
    OrganizationSuspended,
    WrongCashBox,
    RefundExceedsPayment,
    RefundNotInPolicy,
    PayoutExceedsAward,
    OnlinePaymentUnavailable,
    AgeNotConfirmed,
    DeletionBlocked,
    IdempotencyConflict,
)
ERRORS_BY_CODE: dict[str, type[DomainError]] = {error.code: error for error in ALL_ERRORS}
