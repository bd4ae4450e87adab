"""The REST API: each view parses the request, calls one service (or one read), returns its answer.

Every write needs an `Idempotency-Key` header; the services store the first answer under it.
Refusals are domain errors, mapped once by `api.errors.exception_handler`.
"""

from __future__ import annotations

import io
from typing import Any

from django.conf import settings
from django.http import HttpResponse
from drf_spectacular.types import OpenApiTypes
from drf_spectacular.utils import OpenApiParameter, OpenApiResponse
from rest_framework.exceptions import APIException, ParseError
from rest_framework.negotiation import BaseContentNegotiation, DefaultContentNegotiation
from rest_framework.parsers import BaseParser, JSONParser
from rest_framework.permissions import SAFE_METHODS, IsAuthenticatedOrReadOnly
from rest_framework.renderers import BaseRenderer, JSONRenderer
from rest_framework.request import Request
from rest_framework.response import Response
from rest_framework.serializers import Serializer
from rest_framework.views import APIView

from accounts.models import User
from api import reads, schema
from api.errors import TOO_LARGE
from audit.export import audit_csv, audit_document
from events import answers, limits, services
from events import request_bodies as body
from events.answers import Answer, as_json
from events.errors import IdempotencyKeyRequired, NotAllowed
from events.lifecycle import formats_summary
from events.query import query_choice, refuse_unknown
from events.reads.board import board_view
from events.reads.common import event_summary, to_json
from events.reads.player import player_state
from house.read_model import house_table
from ledger import answers as ledger_answers
from ledger import cash_box as cash_box_model
from ledger import request_bodies as ledger_body
from ledger import services as ledger

EVENTS = ["Events"]
PLAYING = ["Playing"]
HOUSE = ["House"]


# (Comments, not docstrings, on these base classes: the schema would show a docstring as the
# description of every operation that inherits it.)


class JsonOnly(BaseContentNegotiation):
    # The API always answers JSON, whatever `Accept` or `?format=` asks for.

    def select_parser(self, request: Request, parsers: Any) -> BaseParser | None:
        return DefaultContentNegotiation().select_parser(request, parsers)

    def select_renderer(
        self, request: Request, renderers: Any, format_suffix: str | None = None
    ) -> tuple[BaseRenderer, str]:
        return renderers[0], renderers[0].media_type


class BodyTooLarge(APIException):
    status_code = 413
    default_code = TOO_LARGE
    default_detail = "The request body is too large."


class JsonBody(JSONParser):
    # JSON within the upload limit (DATA_UPLOAD_MAX_MEMORY_SIZE), nested no deeper than the
    # parser can follow: anything else is refused, not a server error.

    def parse(self, stream: Any, media_type: str | None = None, parser_context: Any = None) -> Any:
        limit = settings.DATA_UPLOAD_MAX_MEMORY_SIZE
        raw = stream.read() if limit is None else stream.read(limit + 1)
        if limit is not None and len(raw) > limit:
            raise BodyTooLarge(f"The request body is larger than {limit:,} bytes.")
        try:
            data = super().parse(io.BytesIO(raw), media_type, parser_context)
        except RecursionError:
            raise ParseError("it is nested too deeply") from None
        if _holds_a_lone_surrogate(data):
            raise ParseError(
                "a string holds a lone surrogate, a \\ud800 to \\udfff escape without its pair: "
                "send whole characters"
            )
        return data


def _holds_a_lone_surrogate(data: Any) -> bool:
    """Whether any key or string in the parsed JSON holds half of a character, which no text
    column stores and no answer can carry back (valid JSON syntax, but not text)."""
    pending = [data]
    while pending:
        item = pending.pop()
        if isinstance(item, str):
            if limits.has_lone_surrogate(item):
                return True
        elif isinstance(item, dict):
            pending.extend(item.keys())
            pending.extend(item.values())
        elif isinstance(item, list):
            pending.extend(item)
    return False


class ApiView(APIView):
    # JSON in, JSON out; signed-in users only unless a view says otherwise.

    renderer_classes = (JSONRenderer,)
    parser_classes = (JsonBody,)
    content_negotiation_class = JsonOnly
    idempotency_key: str = ""

    def initial(self, request: Request, *args: Any, **kwargs: Any) -> None:
        super().initial(request, *args, **kwargs)  # sign-in, CSRF and permissions first
        # A method this view does not have is answered 405 by the dispatch, key or not.
        handled = hasattr(self, (request.method or "").lower())
        if request.method not in SAFE_METHODS and handled:
            key = request.headers.get("Idempotency-Key", "").strip()
            if not key:
                raise IdempotencyKeyRequired("Send an Idempotency-Key header with every write.")
            self.idempotency_key = key


class PublicReadView(ApiView):
    # Anyone may read; writes need a signed-in user.

    permission_classes = (IsAuthenticatedOrReadOnly,)


def actor(request: Request) -> User:
    user = reads.account(request.user)
    if user is None:
        raise NotAllowed("Sign in first.")
    return user


def answered(answer: Answer, *, status: int = 200) -> Response:
    """A service's answer as the JSON its dataclass describes."""
    return Response(as_json(answer), status=status)


def valid(request: Request, serializer: type[Serializer[Any]]) -> dict[str, Any]:
    """The request body, checked for types and ranges."""
    checked = serializer(data=request.data)
    checked.is_valid(raise_exception=True)
    return dict(checked.validated_data)


# --- events ---------------------------------------------------------------------------------


class EventList(PublicReadView):
    @schema.read(
        summary="List events",
        description="Events that are not drafts, plus drafts you are House for (site staff "
        "see every draft). Each says whether you are House and names your registration.",
        answer=schema.EventListItem(many=True),
        tags=EVENTS,
        public=True,
    )
    def get(self, request: Request) -> Response:
        return Response(reads.event_list(reads.account(request.user)))

    @schema.write(
        summary="Create an event (site staff)",
        description="The event starts as a draft; its creator becomes its first House member.",
        request=body.EventCreate,
        answer=answers.EventCreated,
        status=201,
        tags=HOUSE,
    )
    def post(self, request: Request) -> Response:
        answer = services.event_create(
            by=actor(request),
            idempotency_key=self.idempotency_key,
            **valid(request, body.EventCreate),
        )
        return answered(answer, status=201)


class EventDetail(PublicReadView):
    @schema.read(summary="An event", answer=schema.EventSummary, tags=EVENTS, public=True)
    def get(self, request: Request, event_id: int) -> Response:
        event = reads.visible_event(reads.account(request.user), event_id)
        return Response(to_json(event_summary(event)))

    @schema.write(
        summary="Edit an event's settings (House)",
        description="Only the settings sent change; allowed until the event starts.",
        request=body.EventUpdate,
        answer=answers.EventUpdated,
        tags=HOUSE,
    )
    def patch(self, request: Request, event_id: int) -> Response:
        return answered(
            services.event_update(
                event_id=event_id,
                by=actor(request),
                changes=valid(request, body.EventUpdate),
                idempotency_key=self.idempotency_key,
            )
        )


class EventBoard(PublicReadView):
    @schema.read(
        summary="The public board",
        description="Live High and Low standings, progress and the pool; public state only.",
        answer=schema.Board,
        tags=EVENTS,
        public=True,
    )
    def get(self, request: Request, event_id: int) -> Response:
        event = reads.visible_event(reads.account(request.user), event_id)
        return Response(to_json(board_view(event).data))


class FormatList(PublicReadView):
    @schema.read(
        summary="The event formats", answer=schema.FormatDoc(many=True), tags=EVENTS, public=True
    )
    def get(self, request: Request) -> Response:
        return Response(formats_summary())


# --- a player's own registration ------------------------------------------------------------


class Register(ApiView):
    @schema.write(
        summary="Register for an event",
        description="An event that asks players to confirm their age (`minimum_age` above 0) "
        "needs `age_confirmed: true` (409 age_not_confirmed).",
        request=body.Registering,
        answer=answers.PlayerRegistered,
        status=201,
        tags=PLAYING,
    )
    def post(self, request: Request, event_id: int) -> Response:
        answer = services.player_register(
            event_id=event_id,
            by=actor(request),
            idempotency_key=self.idempotency_key,
            **valid(request, body.Registering),
        )
        return answered(answer, status=201)


class MyRegistration(ApiView):
    @schema.read(
        summary="My state in an event",
        description="Next step, hand, pending choice (face-down cards are only slots), games "
        "and places.",
        answer=schema.PlayerSnapshot,
        tags=PLAYING,
    )
    def get(self, request: Request, event_id: int) -> Response:
        user = actor(request)
        event = reads.visible_event(user, event_id)
        return Response(to_json(player_state(reads.own_registration(user, event))))


class RegistrationDetail(ApiView):
    @schema.read(
        summary="A registration's player state (its player, or House)",
        answer=schema.PlayerSnapshot,
        tags=PLAYING,
    )
    def get(self, request: Request, registration_id: int) -> Response:
        registration = reads.readable_registration(actor(request), registration_id)
        return Response(to_json(player_state(registration)))


class RegistrationCancel(ApiView):
    @schema.write(
        summary="Cancel a registration not yet checked in",
        request=None,
        answer=answers.RegistrationCancelled,
        tags=PLAYING,
    )
    def post(self, request: Request, registration_id: int) -> Response:
        valid(request, body.Empty)
        return answered(
            services.registration_cancel(
                registration_id=registration_id,
                by=actor(request),
                idempotency_key=self.idempotency_key,
            )
        )


class StartingSelection(ApiView):
    @schema.write(
        summary="Confirm the starting selection",
        description="Keeps exactly the required number of the face-down offer and reveals every "
        "offered card. House may select for a player, with a reason.",
        request=body.StartingSelection,
        answer=answers.StartingSelectionConfirmed,
        tags=PLAYING,
    )
    def post(self, request: Request, registration_id: int) -> Response:
        return answered(
            services.starting_selection_confirm(
                registration_id=registration_id,
                by=actor(request),
                idempotency_key=self.idempotency_key,
                **valid(request, body.StartingSelection),
            )
        )


class Results(ApiView):
    @schema.write(
        summary="Report the next game's result",
        description="A loss deals its card into the hand; a win deals the face-up cards the "
        "event's format offers (`offered`) to choose from. House may report for a player, with a "
        "reason.",
        request=body.ResultReport,
        answer=answers.ResultSubmitted,
        status=201,
        tags=PLAYING,
    )
    def post(self, request: Request, registration_id: int) -> Response:
        answer = services.result_submit(
            registration_id=registration_id,
            by=actor(request),
            idempotency_key=self.idempotency_key,
            **valid(request, body.ResultReport),
        )
        return answered(answer, status=201)


class WinChoice(ApiView):
    @schema.write(
        summary="Keep one of a win's face-up cards",
        description="House may choose for a player (an abandoned choice), with a reason.",
        request=body.WinChoice,
        answer=answers.WinChoiceConfirmed,
        tags=PLAYING,
    )
    def post(self, request: Request, registration_id: int) -> Response:
        return answered(
            services.win_choice_confirm(
                registration_id=registration_id,
                by=actor(request),
                idempotency_key=self.idempotency_key,
                **valid(request, body.WinChoice),
            )
        )


class Withdraw(ApiView):
    @schema.write(
        summary="Withdraw (leave early, or House withdraws a player with a reason)",
        description="Final. Voids a pending offer or choice.",
        request=body.Withdrawal,
        answer=answers.PlayerWithdrawn,
        tags=PLAYING,
    )
    def post(self, request: Request, registration_id: int) -> Response:
        return answered(
            services.player_withdraw(
                registration_id=registration_id,
                by=actor(request),
                idempotency_key=self.idempotency_key,
                **valid(request, body.Withdrawal),
            )
        )


# --- House ----------------------------------------------------------------------------------


class RegistrationOpen(ApiView):
    @schema.write(
        summary="Open registration (opens a draft event)",
        answer=answers.RegistrationOpened,
        tags=HOUSE,
    )
    def post(self, request: Request, event_id: int) -> Response:
        valid(request, body.Empty)
        return answered(
            services.registration_open(
                event_id=event_id, by=actor(request), idempotency_key=self.idempotency_key
            )
        )


class RegistrationClose(ApiView):
    @schema.write(
        summary="Close registration",
        description="Registrations never checked in become no-shows.",
        answer=answers.RegistrationClosed,
        tags=HOUSE,
    )
    def post(self, request: Request, event_id: int) -> Response:
        valid(request, body.Empty)
        return answered(
            services.registration_close(
                event_id=event_id, by=actor(request), idempotency_key=self.idempotency_key
            )
        )


class Start(ApiView):
    @schema.write(
        summary="Start the event",
        description="Sizes and locks the stock from the checked-in players and deals the "
        "face-down starting offers.",
        answer=answers.EventStarted,
        tags=HOUSE,
    )
    def post(self, request: Request, event_id: int) -> Response:
        valid(request, body.Empty)
        return answered(
            services.event_start(
                event_id=event_id, by=actor(request), idempotency_key=self.idempotency_key
            )
        )


class CheckIn(ApiView):
    @schema.write(
        summary="Check a player in (after the start: a late entry)",
        answer=answers.PlayerCheckedIn,
        tags=HOUSE,
    )
    def post(self, request: Request, registration_id: int) -> Response:
        valid(request, body.Empty)
        return answered(
            services.player_check_in(
                registration_id=registration_id,
                by=actor(request),
                idempotency_key=self.idempotency_key,
            )
        )


class CheckInUndo(ApiView):
    @schema.write(
        summary="Undo a check-in (before the start)", answer=answers.CheckInUndone, tags=HOUSE
    )
    def post(self, request: Request, registration_id: int) -> Response:
        valid(request, body.Empty)
        return answered(
            services.check_in_undo(
                registration_id=registration_id,
                by=actor(request),
                idempotency_key=self.idempotency_key,
            )
        )


class Participants(ApiView):
    @schema.write(
        summary="Add a participant (late entry), checked in at once",
        description="Names the account by `user_id` or `email`. Unconfirms a confirmed pool.",
        request=body.Participant,
        answer=answers.ParticipantAdded,
        status=201,
        tags=HOUSE,
    )
    def post(self, request: Request, event_id: int) -> Response:
        by = actor(request)
        data = valid(request, body.Participant)
        player = reads.account_for_house(by=by, event_id=event_id, **data)
        answer = services.participant_add(
            event_id=event_id, by=by, player=player, idempotency_key=self.idempotency_key
        )
        return answered(answer, status=201)


class SelfCheckInSwitch(ApiView):
    @schema.write(
        summary="Switch self check-in on or off",
        description="On, registered players check in from their phones with the code shown on "
        "the board; switching on again makes a new code.",
        request=body.SelfCheckInSwitch,
        answer=answers.SelfCheckInSwitched,
        tags=HOUSE,
    )
    def post(self, request: Request, event_id: int) -> Response:
        return answered(
            services.self_check_in_switch(
                event_id=event_id,
                by=actor(request),
                idempotency_key=self.idempotency_key,
                **valid(request, body.SelfCheckInSwitch),
            )
        )


class SelfCheckIn(ApiView):
    @schema.write(
        summary="Check myself in with the event's code",
        description="While House has self check-in on, before the start: after it a late "
        "entry needs House (409 late_entry_needs_house). Wrong codes are limited per account "
        "(403 too_many_guesses). With `register`, a player not yet registered registers in the "
        "same step; an event that asks players to confirm their age then needs "
        "`age_confirmed: true` (409 age_not_confirmed).",
        request=body.SelfCheckIn,
        answer=answers.SelfCheckedIn,
        tags=PLAYING,
    )
    def post(self, request: Request, event_id: int) -> Response:
        return answered(
            services.self_check_in(
                event_id=event_id,
                by=actor(request),
                idempotency_key=self.idempotency_key,
                **valid(request, body.SelfCheckIn),
            )
        )


class CheckInAll(ApiView):
    @schema.write(
        summary="Check in every registered player (before the start)",
        answer=answers.EveryoneCheckedIn,
        tags=HOUSE,
    )
    def post(self, request: Request, event_id: int) -> Response:
        valid(request, body.Empty)
        return answered(
            services.check_in_all(
                event_id=event_id, by=actor(request), idempotency_key=self.idempotency_key
            )
        )


class Payment(ApiView):
    @schema.write(
        summary="Mark a player's contribution paid or not paid",
        description="A paid entry needs the event's remainder policy first (409 "
        "remainder_policy_required). Once any entry is paid, the contribution and the remainder "
        "policy are locked (409 paid_entries_exist).",
        request=body.Payment,
        answer=answers.PaymentMarked,
        tags=HOUSE,
    )
    def post(self, request: Request, registration_id: int) -> Response:
        return answered(
            services.payment_mark(
                registration_id=registration_id,
                by=actor(request),
                idempotency_key=self.idempotency_key,
                **valid(request, body.Payment),
            )
        )


class Announcements(ApiView):
    @schema.write(
        summary="Send an announcement to every player",
        description="Shown at once on open player pages and sent by Poker push to players who "
        "turned it on.",
        request=body.AnnouncementText,
        answer=answers.AnnouncementSent,
        status=201,
        tags=HOUSE,
    )
    def post(self, request: Request, event_id: int) -> Response:
        answer = services.announcement_send(
            event_id=event_id,
            by=actor(request),
            idempotency_key=self.idempotency_key,
            **valid(request, body.AnnouncementText),
        )
        return answered(answer, status=201)


class Corrections(ApiView):
    @schema.write(
        summary="Correct a result (Win <-> Loss)",
        description="No card moves; the player is paused for review.",
        request=body.Correction,
        answer=answers.ResultCorrected,
        tags=HOUSE,
    )
    def post(self, request: Request, registration_id: int) -> Response:
        return answered(
            services.result_correct(
                registration_id=registration_id,
                by=actor(request),
                idempotency_key=self.idempotency_key,
                **valid(request, body.Correction),
            )
        )


class Reviews(ApiView):
    @schema.write(
        summary="Pause a player for review",
        request=body.Reason,
        answer=answers.ReviewOpened,
        status=201,
        tags=HOUSE,
    )
    def post(self, request: Request, registration_id: int) -> Response:
        answer = services.review_open(
            registration_id=registration_id,
            by=actor(request),
            idempotency_key=self.idempotency_key,
            **valid(request, body.Reason),
        )
        return answered(answer, status=201)


class ReviewResolve(ApiView):
    @schema.write(
        summary="Resolve a review",
        description="The player resumes when no review is left open.",
        request=body.Reason,
        answer=answers.ReviewResolved,
        tags=HOUSE,
    )
    def post(self, request: Request, review_id: int) -> Response:
        return answered(
            services.review_resolve(
                review_id=review_id,
                by=actor(request),
                idempotency_key=self.idempotency_key,
                **valid(request, body.Reason),
            )
        )


class WildReveal(ApiView):
    @schema.write(
        summary="Reveal a complete player's wild (Standard v1)",
        answer=answers.WildRevealed,
        tags=HOUSE,
    )
    def post(self, request: Request, registration_id: int) -> Response:
        valid(request, body.Empty)
        return answered(
            services.wild_reveal(
                registration_id=registration_id,
                by=actor(request),
                idempotency_key=self.idempotency_key,
            )
        )


class AccessReset(ApiView):
    @schema.write(
        summary="Reset a player's access",
        description="Ends their sessions and emails a password reset; cards stay as they are.",
        request=body.Reason,
        answer=answers.AccessReset,
        tags=HOUSE,
    )
    def post(self, request: Request, registration_id: int) -> Response:
        return answered(
            services.access_reset(
                registration_id=registration_id,
                by=actor(request),
                idempotency_key=self.idempotency_key,
                **valid(request, body.Reason),
            )
        )


class PoolConfirm(ApiView):
    @schema.write(
        summary="Confirm the pool",
        description="Base plus every adjustment in force; registration must be closed.",
        request=body.PoolConfirmation,
        answer=answers.PoolConfirmed,
        tags=HOUSE,
    )
    def post(self, request: Request, event_id: int) -> Response:
        data = valid(request, body.PoolConfirmation)
        return answered(
            services.pool_confirm(
                event_id=event_id,
                by=actor(request),
                adjustments=[(a["amount"], a["explanation"]) for a in data["adjustments"]],
                idempotency_key=self.idempotency_key,
            )
        )


class Finalize(ApiView):
    @schema.write(
        summary="Finalize the event",
        description="Computes places and awards, locks the event and reveals the seed.",
        answer=answers.EventFinalized,
        tags=HOUSE,
    )
    def post(self, request: Request, event_id: int) -> Response:
        valid(request, body.Empty)
        return answered(
            services.event_finalize(
                event_id=event_id, by=actor(request), idempotency_key=self.idempotency_key
            )
        )


class HouseDashboard(ApiView):
    @schema.read(
        summary="House's players table",
        description="House sees no face-down card either.",
        answer=schema.HouseSnapshot,
        tags=HOUSE,
    )
    def get(self, request: Request, event_id: int) -> Response:
        return Response(house_table(reads.house_event(actor(request), event_id)).data())


class CashBox(ApiView):
    @schema.read(
        summary="The cash box",
        description="The night's money as the ledger's lines add it up: cash expected in the box, "
        "card, online, comps, refunds, payouts, and the difference with the pool, named.",
        answer=schema.read_model(cash_box_model.CashBox),
        tags=HOUSE,
    )
    def get(self, request: Request, event_id: int) -> Response:
        box = cash_box_model.cash_box(reads.money_event(actor(request), event_id))
        return Response(to_json(box))


class LedgerEntries(ApiView):
    @schema.write(
        summary="Record a player's entry: cash, card, online or comp",
        description="An online payment needs its reference, a comp its reason. The line is an "
        "audit entry (`entry_paid`).",
        request=ledger_body.EntryPayment,
        answer=ledger_answers.EntryPaid,
        status=201,
        tags=HOUSE,
    )
    def post(self, request: Request, event_id: int) -> Response:
        answer = ledger.entry_payment(
            event_id=event_id,
            by=actor(request),
            idempotency_key=self.idempotency_key,
            **valid(request, ledger_body.EntryPayment),
        )
        return answered(answer, status=201)


class LedgerRefunds(ApiView):
    @schema.write(
        summary="Record a refund",
        description="For a cancelled entry or a withdrawal, as the event's refund policy allows "
        "(409 refund_not_in_policy), never more than the player paid in and has not had back "
        "(409 refund_exceeds_payment).",
        request=ledger_body.Refund,
        answer=ledger_answers.EntryRefunded,
        status=201,
        tags=HOUSE,
    )
    def post(self, request: Request, event_id: int) -> Response:
        answer = ledger.entry_refund(
            event_id=event_id,
            by=actor(request),
            idempotency_key=self.idempotency_key,
            **valid(request, ledger_body.Refund),
        )
        return answered(answer, status=201)


class LedgerPayouts(ApiView):
    @schema.write(
        summary="Record a payout of an award",
        description="Once the event is finalized, never more than what is left of the award "
        "(409 payout_exceeds_award). Winnings net of the entry above the reporting threshold are "
        "flagged `reportable`.",
        request=ledger_body.Payout,
        answer=ledger_answers.PayoutMade,
        status=201,
        tags=HOUSE,
    )
    def post(self, request: Request, event_id: int) -> Response:
        answer = ledger.payout_record(
            event_id=event_id,
            by=actor(request),
            idempotency_key=self.idempotency_key,
            **valid(request, ledger_body.Payout),
        )
        return answered(answer, status=201)


class LedgerSponsor(ApiView):
    @schema.write(
        summary="Record a sponsor's money",
        description="In a free-entry event: money the sponsor handed over (cash, into the box) or "
        "transferred, never more than the sponsored pool not yet recorded (409 "
        "sponsor_exceeds_pool). The line is an audit entry (`sponsor_paid`).",
        request=ledger_body.SponsorPayment,
        answer=ledger_answers.SponsorPaid,
        status=201,
        tags=HOUSE,
    )
    def post(self, request: Request, event_id: int) -> Response:
        answer = ledger.sponsor_payment(
            event_id=event_id,
            by=actor(request),
            idempotency_key=self.idempotency_key,
            **valid(request, ledger_body.SponsorPayment),
        )
        return answered(answer, status=201)


class Checklist(ApiView):
    @schema.read(
        summary="The finalization checklist",
        description="Everything that blocks finalization, naming each player concerned.",
        answer=schema.Checklist,
        tags=HOUSE,
    )
    def get(self, request: Request, event_id: int) -> Response:
        return Response(reads.checklist(reads.house_event(actor(request), event_id)))


AUDIT_FORMAT = OpenApiParameter(
    name="format",
    type=str,
    location=OpenApiParameter.QUERY,
    enum=["json", "csv"],
    default="json",
    description="`json` (one document) or `csv` (one row per entry, `details` as JSON text).",
)


class AuditExport(ApiView):
    @schema.read(
        summary="Download the audit (House)",
        answer={
            (200, "application/json"): schema.AuditDocument,
            (200, "text/csv"): OpenApiResponse(OpenApiTypes.STR, description="One row an entry."),
        },
        parameters=[AUDIT_FORMAT],
        tags=HOUSE,
    )
    def get(self, request: Request, event_id: int) -> Response | HttpResponse:
        event = reads.house_event(actor(request), event_id)
        # A misspelt parameter and an empty `?format=` are refused, not read as the default.
        refuse_unknown(request, "format")
        if query_choice(request, "format", ("json", "csv"), "json", strict=True) == "csv":
            return HttpResponse(
                audit_csv(event),
                content_type="text/csv; charset=utf-8",
                headers={
                    "Content-Disposition": f'attachment; filename="event-{event.pk}-audit.csv"'
                },
            )
        return Response(audit_document(event))
