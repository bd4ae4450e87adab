"""The REST API of events: each endpoint calls one service or one read (api/endpoints.py).

Every write needs an `Idempotency-Key` header; the services store the first answer under it.
"""

from __future__ import annotations

from typing import Any

from rest_framework.request import Request
from rest_framework.response import Response

from api import reads, schema
from api.endpoints import ApiView, PublicReadView, Section, actor, answered, valid
from audit.export import audit_csv, audit_document
from events import answers, services, waitlist
from events import request_bodies as body
from events.lifecycle import formats_summary
from events.reads.board import board_view
from events.reads.common import event_summary
from events.reads.player import player_state
from house.read_model import house_table
from ledger import cash_box as cash_box_model
from ledger import request_bodies as ledger_body
from ledger import services as ledger
from payments import checkout

EVENTS = Section(["Events"])
PLAYING = Section(["Playing"])
HOUSE = Section(["House"])


# --- events ---------------------------------------------------------------------------------


class EventList(PublicReadView):
    get = EVENTS.read(
        reads.event_list,
        summary="List events",
        description="Events that are not drafts, plus drafts you are House for (site staff "
        "see every draft). Each says whether you are House and names your registration.",
        answer=schema.EventListItem(many=True),
        public=True,
    )
    post = HOUSE.write(
        services.event_create,
        summary="Create an event (site staff)",
        description="The event starts as a draft; its creator becomes its first House member.",
        body=body.EventCreate,
        status=201,
    )


class EventDetail(PublicReadView):
    get = EVENTS.read(
        lambda viewer, event_id: event_summary(reads.visible_event(viewer, event_id)),
        summary="An event",
        answer=schema.EventSummary,
        public=True,
    )
    patch = HOUSE.write(
        services.event_update,
        summary="Edit an event's settings (House)",
        description="Only the settings sent change; allowed until the event starts, and for the "
        "board's `language` alone until it is finalized.",
        body=body.EventUpdate,
        arguments=lambda data: {"changes": data},
    )


EventBoard = EVENTS.get(
    lambda viewer, event_id: board_view(reads.visible_event(viewer, event_id)).data,
    summary="The public board",
    description="Live High and Low standings, progress and the pool; public state only.",
    answer=schema.Board,
    public=True,
)


FormatList = EVENTS.get(
    lambda viewer: formats_summary(),
    summary="The event formats",
    answer=schema.FormatDoc(many=True),
    public=True,
)


# --- a player's own registration ------------------------------------------------------------


Register = PLAYING.post(
    services.player_register,
    summary="Register for an event",
    description="An event that asks players to confirm their age (`minimum_age` above 0) "
    "needs `age_confirmed: true` (409 age_not_confirmed). Outside the event's registration "
    "window: 409 registration_closed, saying when it opens or closed. Past the event's "
    "`capacity` (or while others wait in line) the registration is `waitlisted`, with its "
    "`position` in line; a place that frees is offered to the first in line.",
    body=body.Registering,
    status=201,
)


MyRegistration = PLAYING.get(
    lambda viewer, event_id: player_state(
        reads.own_registration(viewer, reads.visible_event(viewer, event_id))
    ),
    summary="My state in an event",
    description="Next step, hand, pending choice (face-down cards are only slots), games "
    "and places.",
    answer=schema.PlayerSnapshot,
)


RegistrationDetail = PLAYING.get(
    lambda viewer, registration_id: player_state(
        reads.readable_registration(viewer, registration_id)
    ),
    summary="A registration's player state (its player, or House)",
    answer=schema.PlayerSnapshot,
)


RegistrationCancel = PLAYING.post(
    services.registration_cancel,
    summary="Cancel a registration not yet checked in",
    description="Also leaves the waitlist; a place it held is offered to the first in line.",
)


PlaceClaim = PLAYING.post(
    services.place_claim,
    summary="Claim the place offered to me",
    description="Before the hold ends (`offered_until`; after it: 409 offer_lapsed, the place "
    "has passed on); not offered: 409 no_place_offered. Where the entry is paid ahead, the "
    "place is then held unpaid until `hold_until`.",
)


StartingSelection = PLAYING.post(
    services.starting_selection_confirm,
    summary="Confirm the starting selection",
    description="Keeps exactly the required number of the face-down offer and reveals every "
    "offered card. House may select for a player, with a reason.",
    body=body.StartingSelection,
)


Results = PLAYING.post(
    services.result_submit,
    summary="Report the next game's result",
    description="A loss deals its card into the hand; a win deals the face-up cards the "
    "event's format offers (`offered`) to choose from. House may report for a player, with a "
    "reason.",
    body=body.ResultReport,
    status=201,
)


WinChoice = PLAYING.post(
    services.win_choice_confirm,
    summary="Keep one of a win's face-up cards",
    description="House may choose for a player (an abandoned choice), with a reason.",
    body=body.WinChoice,
)


Checkout = PLAYING.post(
    checkout.checkout_start,
    summary="Pay the entry ahead, online: a Stripe Checkout page",
    description="Where the event asks for the entry ahead and Stripe is configured (else 409 "
    "online_payment_unavailable): the player's own registration, holding a place whose entry is "
    "unpaid, gets the page of a Stripe Checkout Session for the entry (an open one is given "
    "again). The payment counts only when Stripe's signed webhook confirms it; an unpaid place "
    "is held only for the event's hold time.",
)


Withdraw = PLAYING.post(
    services.player_withdraw,
    summary="Withdraw (leave early, or House withdraws a player with a reason)",
    description="Final. Voids a pending offer or choice.",
    body=body.Withdrawal,
)


# --- House ----------------------------------------------------------------------------------


RegistrationOpen = HOUSE.post(
    services.registration_open,
    summary="Open registration (opens a draft event)",
)


RegistrationClose = HOUSE.post(
    services.registration_close,
    summary="Close registration",
    description="Registrations never checked in become no-shows.",
)


Start = HOUSE.post(
    services.event_start,
    summary="Start the event",
    description="Sizes and locks the stock from the checked-in players and deals the "
    "face-down starting offers.",
)


CheckIn = HOUSE.post(
    services.player_check_in,
    summary="Check a player in (after the start: a late entry)",
)


CheckInUndo = HOUSE.post(services.check_in_undo, summary="Undo a check-in (before the start)")


WaitlistPromote = HOUSE.post(
    services.waitlist_promote,
    summary="Give a player in line a place now",
    description="A waitlisted player, or one offered a place, is registered at once, past the "
    "capacity if need be; with a reason.",
    body=body.Reason,
)


RegistrationRemove = HOUSE.post(
    services.registration_remove,
    summary="Remove a registration not checked in",
    description="Registered, waitlisted or offered a place; with a reason. A place it held is "
    "offered to the first in line.",
    body=body.Reason,
)


Waitlist = HOUSE.get(
    lambda viewer, event_id: waitlist.waitlist_view(reads.house_event(viewer, event_id)),
    summary="The waitlist (House)",
    description="The capacity, the places held and the players in line, those offered a place "
    "first.",
    answer=schema.read_model(waitlist.Waitlist),
)


class Participants(ApiView):
    @schema.write(
        summary="Add a participant (late entry), checked in at once",
        description="Names the account by `user_id` or `email`. Unconfirms a confirmed pool.",
        request=body.Participant,
        answer=answers.ParticipantAdded,
        status=201,
        tags=HOUSE.tags,
    )
    def post(self, request: Request, event_id: int) -> Response:
        by = actor(request)
        data = valid(request, body.Participant)
        player = reads.account_for_house(by=by, event_id=event_id, **data)
        answer = services.participant_add(
            event_id=event_id, by=by, player=player, idempotency_key=self.idempotency_key
        )
        return answered(answer, status=201)


SelfCheckInSwitch = HOUSE.post(
    services.self_check_in_switch,
    summary="Switch self check-in on or off",
    description="On, registered players check in from their phones with the code shown on "
    "the board; switching on again makes a new code.",
    body=body.SelfCheckInSwitch,
)


SelfCheckIn = PLAYING.post(
    services.self_check_in,
    summary="Check myself in with the event's code",
    description="While House has self check-in on, before the start: after it a late "
    "entry needs House (409 late_entry_needs_house). Wrong codes are limited per account "
    "(403 too_many_guesses). With `register`, a player not yet registered registers in the "
    "same step; an event that asks players to confirm their age then needs "
    "`age_confirmed: true` (409 age_not_confirmed).",
    body=body.SelfCheckIn,
)


CheckInAll = HOUSE.post(
    services.check_in_all,
    summary="Check in every registered player (before the start)",
)


Payment = HOUSE.post(
    services.payment_mark,
    summary="Mark a player's contribution paid or not paid",
    description="A paid entry needs the event's remainder policy first (409 "
    "remainder_policy_required). Once any entry is paid, the contribution and the remainder "
    "policy are locked (409 paid_entries_exist).",
    body=body.Payment,
)


Announcements = HOUSE.post(
    services.announcement_send,
    summary="Send an announcement to every player",
    description="Shown at once on open player pages and sent by Poker push to players who "
    "turned it on.",
    body=body.AnnouncementText,
    status=201,
)


Corrections = HOUSE.post(
    services.result_correct,
    summary="Correct a result (Win <-> Loss)",
    description="No card moves; the player is paused for review.",
    body=body.Correction,
)


Reviews = HOUSE.post(
    services.review_open,
    summary="Pause a player for review",
    body=body.Reason,
    status=201,
)


ReviewResolve = HOUSE.post(
    services.review_resolve,
    summary="Resolve a review",
    description="The player resumes when no review is left open.",
    body=body.Reason,
)


WildReveal = HOUSE.post(
    services.wild_reveal,
    summary="Reveal a complete player's wild (Standard v1)",
)


AccessReset = HOUSE.post(
    services.access_reset,
    summary="Reset a player's access",
    description="Ends their sessions and emails a password reset; cards stay as they are.",
    body=body.Reason,
)


def _adjustments(data: dict[str, Any]) -> dict[str, Any]:
    """The pool's adjustments as the service takes them: (amount, explanation) pairs."""
    return {"adjustments": [(a["amount"], a["explanation"]) for a in data["adjustments"]]}


PoolConfirm = HOUSE.post(
    services.pool_confirm,
    summary="Confirm the pool",
    description="Base plus every adjustment in force; registration must be closed.",
    body=body.PoolConfirmation,
    arguments=_adjustments,
)


Finalize = HOUSE.post(
    services.event_finalize,
    summary="Finalize the event",
    description="Computes places and awards, locks the event and reveals the seed.",
)


HouseDashboard = HOUSE.get(
    lambda viewer, event_id: house_table(reads.house_event(viewer, event_id)),
    summary="House's players table",
    description="House sees no face-down card either.",
    answer=schema.HouseSnapshot,
)


CashBox = HOUSE.get(
    lambda viewer, event_id: cash_box_model.cash_box(reads.money_event(viewer, event_id)),
    summary="The cash box",
    description="The night's money as the ledger's lines add it up: cash expected in the box, "
    "card, online, comps, refunds, payouts, and the difference with the pool, named.",
    answer=schema.read_model(cash_box_model.CashBox),
)


LedgerEntries = HOUSE.post(
    ledger.entry_payment,
    summary="Record a player's entry: cash, card, online or comp",
    description="An online payment needs its reference, a comp its reason. The line is an "
    "audit entry (`entry_paid`).",
    body=ledger_body.EntryPayment,
    status=201,
)


LedgerRefunds = HOUSE.post(
    ledger.entry_refund,
    summary="Record a refund",
    description="For a cancelled entry or a withdrawal, as the event's refund policy allows "
    "(409 refund_not_in_policy), never more than the player paid in and has not had back "
    "(409 refund_exceeds_payment).",
    body=ledger_body.Refund,
    status=201,
)


LedgerPayouts = HOUSE.post(
    ledger.payout_record,
    summary="Record a payout of an award",
    description="Once the event is finalized, never more than what is left of the award "
    "(409 payout_exceeds_award). Winnings net of the entry above the reporting threshold are "
    "flagged `reportable`.",
    body=ledger_body.Payout,
    status=201,
)


LedgerSponsor = HOUSE.post(
    ledger.sponsor_payment,
    summary="Record a sponsor's money",
    description="In a free-entry event: money the sponsor handed over (cash, into the box) or "
    "transferred, never more than the sponsored pool not yet recorded (409 "
    "sponsor_exceeds_pool). The line is an audit entry (`sponsor_paid`).",
    body=ledger_body.SponsorPayment,
    status=201,
)


Checklist = HOUSE.get(
    lambda viewer, event_id: reads.checklist(reads.house_event(viewer, event_id)),
    summary="The finalization checklist",
    description="Everything that blocks finalization, naming each player concerned.",
    answer=schema.Checklist,
)


class AuditExport(ApiView):
    get = HOUSE.download(
        lambda viewer, event_id: reads.house_event(viewer, event_id),
        document=audit_document,
        csv=audit_csv,
        filename=lambda event: f"event-{event.pk}-audit.csv",
        summary="Download the audit (House)",
        formats="`json` (one document) or `csv` (one row per entry, `details` as JSON text).",
        answer=schema.AuditDocument,
        rows="One row an entry.",
    )
