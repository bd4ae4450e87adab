"""The OpenAPI description of the API (drf-spectacular): answer shapes, errors, the key header.

The serializers here only document what the snapshots and reads return; no view runs them. The
services' answers are documented from their dataclasses (`answer_serializer`).
`tests/api/test_schema.py` checks real answers against these shapes.
"""

from __future__ import annotations

import dataclasses
import datetime
import zoneinfo
from collections.abc import Callable
from types import NoneType, UnionType
from typing import Annotated, Any, Union, get_args, get_origin, get_type_hints

from django.db.models import Choices
from drf_spectacular.utils import OpenApiParameter, OpenApiResponse, extend_schema
from rest_framework import serializers

from api.errors import METHOD_NOT_ALLOWED, SERVER_ERROR, THROTTLED, TOO_LARGE
from audit import anchor
from cards.models import KeptSource, OfferKind
from events import limits, snapshots
from events.answers import Answer, Described
from events.errors import ALL_ERRORS
from events.formats import FormatName
from events.models import Outcome, Phase, RegistrationStatus
from house.read_model import HouseTable
from syndicate.busy import UNAVAILABLE

ERROR_CODES = [error.code for error in ALL_ERRORS] + [
    METHOD_NOT_ALLOWED,
    SERVER_ERROR,
    THROTTLED,
    TOO_LARGE,
    UNAVAILABLE,
]

IDEMPOTENCY_KEY = OpenApiParameter(
    name="Idempotency-Key",
    type=str,
    location=OpenApiParameter.HEADER,
    required=True,
    description=(
        "Required on every write, at most 200 characters, scoped to the signed-in user. A retry "
        "with the same key returns the first answer (refusals included) and changes nothing; the "
        "same key with different content is refused with 422 `idempotency_conflict`."
    ),
)


class Doc(serializers.Serializer[Any]):
    """A documented answer shape (never used to read or write data)."""


# --- errors ---------------------------------------------------------------------------------


class ErrorDetail(Doc):
    code = serializers.ChoiceField(
        choices=ERROR_CODES, help_text="Stable snake_case code (docs/errors.md)."
    )
    message = serializers.CharField(help_text="What went wrong, in plain words.")


class Error(Doc):
    error = ErrorDetail()


def _error(description: str) -> OpenApiResponse:
    return OpenApiResponse(Error, description=description)


MALFORMED = _error(
    "Malformed request: `invalid` (a field is missing or wrong, or the body is not JSON or "
    "holds a lone surrogate, a `\\ud800` to `\\udfff` escape without its pair), "
    "`idempotency_key_required` (the Idempotency-Key header is missing), `reason_required`, "
    "`wrong_count`."
)
NOT_ALLOWED = _error("`not_allowed`: not signed in, no CSRF token, or not allowed to do this.")
NOT_FOUND = _error("`not_found`: no such thing, or not yours (someone else's registration).")
WRONG_STATE = _error(
    "Wrong state: `wrong_phase`, `event_finalized`, `out_of_order`, `pending_choice` and the "
    "other 409 codes of docs/errors.md."
)
KEY_CONFLICT = _error("`idempotency_conflict`: this key was used before with different content.")

# --- cards, events, formats -----------------------------------------------------------------


class CardFace(Doc):
    code = serializers.CharField(help_text="Rank and suit, like `As`, `Td`, `7h`.")
    rank = serializers.CharField(help_text="The rank as printed (`10` for a ten).")
    suit = serializers.CharField(help_text="`c`, `d`, `h` or `s`.")
    symbol = serializers.CharField()
    name = serializers.CharField(help_text="The card in words, like `Ace of spades`.")


class EventSummary(Doc):
    id = serializers.IntegerField()
    name = serializers.CharField()
    venue = serializers.CharField()
    date = serializers.DateField()
    time_zone = serializers.CharField()
    format = serializers.ChoiceField(choices=[name.value for name in FormatName])
    format_label = serializers.CharField()
    games = serializers.IntegerField()
    offered = serializers.IntegerField(help_text="Face-down starting cards offered.")
    starting = serializers.IntegerField(help_text="Starting cards kept.")
    kept = serializers.IntegerField(help_text="Cards a complete hand holds.")
    contribution = serializers.IntegerField(help_text="Whole dollars per participant.")
    remainder_policy = serializers.CharField()
    phase = serializers.ChoiceField(choices=Phase.values)
    registration_open = serializers.BooleanField()
    commitment = serializers.CharField(
        allow_null=True, help_text="sha256 of the secret shuffle seed, public from the start."
    )
    version = serializers.IntegerField()


class EventListItem(EventSummary):
    house = serializers.BooleanField(help_text="Whether you are House for this event.")
    registration_id = serializers.IntegerField(
        allow_null=True, help_text="Your registration in this event, if any."
    )


class FormatDoc(Doc):
    name = serializers.ChoiceField(choices=[name.value for name in FormatName])
    label = serializers.CharField()  # type: ignore[assignment]
    offered = serializers.IntegerField()
    starting = serializers.IntegerField()
    games = serializers.IntegerField()
    kept = serializers.IntegerField()
    reserve = serializers.IntegerField(help_text="Stock cards reserved per supported place.")


class PoolAdjustment(Doc):
    amount = serializers.IntegerField()
    explanation = serializers.CharField()


class Pool(Doc):
    contribution = serializers.IntegerField()
    participants = serializers.IntegerField()
    base = serializers.IntegerField()
    confirmed = serializers.BooleanField()
    pool = serializers.IntegerField()
    adjustments = PoolAdjustment(many=True)
    unallocated = serializers.IntegerField(allow_null=True)


class Progress(Doc):
    players = serializers.IntegerField()
    kept = serializers.IntegerField()
    to_keep = serializers.IntegerField()


class StandingRow(Doc):
    place = serializers.IntegerField()
    player = serializers.CharField(help_text="The player's public label.")
    cards = CardFace(many=True, help_text="The five cards that make the hand (fewer early on).")
    held = serializers.IntegerField()
    wild_rank = serializers.CharField(allow_null=True)
    category = serializers.CharField()
    description = serializers.CharField()
    award = serializers.IntegerField(
        required=False, allow_null=True, help_text="Final board only: dollars won."
    )


class Board(Doc):
    event = EventSummary()
    version = serializers.IntegerField()
    progress = Progress()
    high = StandingRow(many=True)
    low = StandingRow(many=True)
    final = serializers.BooleanField()
    pool = Pool()


# --- a player's own state -------------------------------------------------------------------


class NextStep(Doc):
    code = serializers.CharField(help_text="`choose_start`, `report`, `choose_win`, `done` ...")
    text = serializers.CharField()
    game = serializers.CharField(required=False, help_text="The game to report next.")


class HandCard(CardFace):
    source = serializers.ChoiceField(choices=KeptSource.values)  # type: ignore[assignment]
    wild = serializers.BooleanField()


class PendingCard(Doc):
    """An offered card: a face-down one is only its slot until the confirmation reveals it."""

    slot = serializers.IntegerField()
    face_down = serializers.BooleanField()
    code = serializers.CharField(required=False, help_text="Face-up cards only.")
    rank = serializers.CharField(required=False)
    suit = serializers.CharField(required=False)
    symbol = serializers.CharField(required=False)
    name = serializers.CharField(required=False)


class Pending(Doc):
    id = serializers.IntegerField(help_text="The offer; a win choice may name it (`offer_id`).")
    kind = serializers.ChoiceField(choices=OfferKind.values)
    keep = serializers.IntegerField()
    offered = serializers.IntegerField()
    game = serializers.IntegerField(allow_null=True)
    since = serializers.DateTimeField()
    cards = PendingCard(many=True)


class RevealCard(CardFace):
    kept = serializers.BooleanField(help_text="False: marked Not kept.")


class Reveal(Doc):
    cards = RevealCard(many=True)
    at = serializers.DateTimeField(
        allow_null=True, help_text="When the confirmation revealed them (Not kept leave 3 s on)."
    )


class HandNames(Doc):
    high = serializers.CharField(
        allow_null=True, help_text="'Three of a Kind, twos'; the wild counts once revealed."
    )
    low = serializers.CharField(allow_null=True)


class ReviewWords(Doc):
    game = serializers.IntegerField(allow_null=True)
    text = serializers.CharField(help_text="What House is reviewing and why, in words.")


class GameRow(Doc):
    game = serializers.IntegerField()
    outcome = serializers.ChoiceField(choices=Outcome.values, allow_null=True)
    opponent = serializers.CharField(required=False)
    score = serializers.CharField(required=False)


class WinnerCard(CardFace):
    wild = serializers.BooleanField(help_text="A card of the winner's wild rank (High only).")


class Winner(Doc):
    player = serializers.CharField(help_text="The winner's public label.")
    cards = WinnerCard(many=True, help_text="The winning five.")
    description = serializers.CharField(help_text="'Full House, kings over fives'.")
    wild_rank = serializers.CharField(allow_null=True)
    prize = serializers.IntegerField(help_text="Dollars won in this column.")


class FinalWinners(Doc):
    high = Winner(many=True)
    low = Winner(many=True)


class PlayerSnapshot(Doc):
    registration_id = serializers.IntegerField()
    label = serializers.CharField()  # type: ignore[assignment]
    status = serializers.ChoiceField(choices=RegistrationStatus.values)
    paused = serializers.BooleanField()
    version = serializers.IntegerField()
    event_version = serializers.IntegerField()
    next_step = NextStep()
    hand = HandCard(many=True)
    slots = serializers.IntegerField(help_text="Cards a complete hand holds.")
    wild_rank = serializers.CharField(allow_null=True)
    wild_indicator = CardFace(
        allow_null=True, help_text="The House-deck card that set the wild (not playable)."
    )
    pending = Pending(allow_null=True)
    reveal = Reveal(
        allow_null=True,
        help_text="Every offered starting card, face up, for a few seconds after confirming.",
    )
    empty = serializers.ListField(
        child=serializers.IntegerField(), help_text="One item per hand slot still empty."
    )
    games = GameRow(many=True)
    high_place = serializers.IntegerField(allow_null=True)
    low_place = serializers.IntegerField(allow_null=True)
    ranked = serializers.IntegerField()
    award = serializers.IntegerField(allow_null=True)
    final = serializers.BooleanField()
    hand_names = HandNames(help_text="The kept cards' High and Low names (null before any).")
    wild_effect = serializers.CharField(
        allow_null=True, help_text="What the revealed wild does to the High hand."
    )
    review = ReviewWords(allow_null=True, help_text="While paused: the open review.")
    winners = FinalWinners(
        allow_null=True, help_text="Once the event is final: its High and Low winners."
    )


# --- House ----------------------------------------------------------------------------------


# House's table: derived from its dataclass (`house.read_model.HouseTable`), as answers are.


class Checklist(Doc):
    event_id = serializers.IntegerField()
    phase = serializers.ChoiceField(choices=Phase.values)
    finalizable = serializers.BooleanField(
        help_text="The event is started and nothing blocks finalization."
    )
    blockers = serializers.ListField(
        child=serializers.CharField(), help_text="Each blocker in plain words, naming players."
    )


class AuditEvent(Doc):
    id = serializers.IntegerField()
    name = serializers.CharField()
    format = serializers.ChoiceField(choices=[name.value for name in FormatName])
    contribution = serializers.IntegerField()
    venue = serializers.CharField()
    date = serializers.DateField()
    phase = serializers.ChoiceField(choices=Phase.values)
    commitment = serializers.CharField(allow_null=True)


class AuditEntry(Doc):
    seq = serializers.IntegerField()
    at = serializers.CharField(help_text="ISO 8601 UTC, exactly as hashed.")
    actor = serializers.CharField()
    actor_kind = serializers.ChoiceField(
        choices=["system", "house", "player"],
        required=False,
        help_text="Who acted; absent on entries written before it was recorded (docs/audit.md).",
    )
    action = serializers.CharField()
    player = serializers.CharField(allow_null=True)
    details = serializers.DictField(help_text="Cards with shoe positions, games, amounts.")
    reason = serializers.CharField(allow_null=True)
    prev_hash = serializers.CharField()
    hash = serializers.CharField()


class AuditPlayer(Doc):
    player = serializers.CharField()
    status = serializers.CharField(help_text="`eligible` or `withdrawn`.")
    cards = serializers.ListField(child=serializers.CharField())
    wild_rank = serializers.CharField(allow_null=True)
    high_place = serializers.IntegerField(allow_null=True)
    low_place = serializers.IntegerField(allow_null=True)
    award = serializers.IntegerField()


class AuditResult(Doc):
    pool = serializers.IntegerField()
    adjustments = PoolAdjustment(many=True)
    unallocated = serializers.IntegerField()
    players = AuditPlayer(many=True)


class AuditHead(Doc):
    seq = serializers.IntegerField()
    hash = serializers.CharField()
    phase = serializers.ChoiceField(
        choices=list(anchor.PHASES),
        help_text="Whether the event was running or final when this head was signed.",
    )
    at = serializers.CharField(help_text="When this chain state was first signed (ISO 8601 UTC).")
    event_block = serializers.CharField(
        help_text="sha256 hex of the canonical JSON of the export's event block."
    )
    signature = serializers.CharField(help_text="Hex Ed25519 signature (docs/audit.md).")
    key_id = serializers.CharField(help_text="The key at /audit/public-key.")


class AuditDocument(Doc):
    event = AuditEvent()
    entries = AuditEntry(many=True)
    head = AuditHead(help_text="The deployment's signature of the last entry.")
    seed = serializers.CharField(allow_null=True, help_text="Revealed at finalization (hex).")
    result = AuditResult(allow_null=True)


# --- the services' answers ------------------------------------------------------------------


def answer_serializer(kind: type[Answer] | type[Any]) -> type[Doc]:
    """The documented shape of a service's answer or a read model, derived from its dataclass.

    One serializer per dataclass (the schema names its component after the dataclass). A field
    whose default is None is optional (left out when None); one typed `X | None` without a
    default is always there, possibly null. A field holding a dataclass is documented from it.
    """
    if kind not in _ANSWERS:
        hints = get_type_hints(kind, include_extras=True)
        fields = {
            field.name: _answer_field(hints[field.name], optional=field.default is None)
            for field in dataclasses.fields(kind)  # type: ignore[arg-type]
        }
        _ANSWERS[kind] = type(kind.__name__, (Doc,), {**fields, "__doc__": kind.__doc__})
    return _ANSWERS[kind]


_ANSWERS: dict[type[Any], type[Doc]] = {}


def _answer_field(hint: Any, *, optional: bool) -> serializers.Field[Any, Any, Any, Any]:
    kwargs: dict[str, Any] = {}
    if get_origin(hint) is Annotated:
        hint, *extras = get_args(hint)
        for extra in extras:
            if isinstance(extra, Described):
                kwargs["help_text"] = extra.text
    if get_origin(hint) in (UnionType, Union):
        (hint,) = (arg for arg in get_args(hint) if arg is not NoneType)
        if optional:
            kwargs["required"] = False
        else:
            kwargs["allow_null"] = True
    if get_origin(hint) is list:
        (item,) = get_args(hint)
        if dataclasses.is_dataclass(item) or item in _DOCUMENTED:
            return _nested(item)(many=True, **kwargs)
        return serializers.ListField(child=_answer_field(item, optional=False), **kwargs)
    if get_origin(hint) is dict:
        _, value = get_args(hint)
        return serializers.DictField(child=_answer_field(value, optional=False), **kwargs)
    if dataclasses.is_dataclass(hint) or hint in _DOCUMENTED:
        return _nested(hint)(**kwargs)
    if isinstance(hint, type) and issubclass(hint, Choices):
        return serializers.ChoiceField(choices=hint.values, **kwargs)
    return _SIMPLE[hint](**kwargs)


def _nested(kind: Any) -> type[Doc]:
    return _DOCUMENTED[kind] if kind in _DOCUMENTED else answer_serializer(kind)


_SIMPLE: dict[Any, Any] = {
    bool: serializers.BooleanField,
    int: serializers.IntegerField,
    str: serializers.CharField,
    datetime.datetime: serializers.DateTimeField,
}
# The snapshots' TypedDicts a read model holds, documented above.
_DOCUMENTED: dict[Any, type[Doc]] = {
    snapshots.EventSummary: EventSummary,
    snapshots.PoolSummary: Pool,
}
HouseSnapshot = answer_serializer(HouseTable)


# --- operation decorators -------------------------------------------------------------------


def write(
    *,
    summary: str,
    answer: type[Answer],
    request: Any = None,
    status: int = 200,
    tags: list[str],
    description: str | None = None,
) -> Callable[[Any], Any]:
    """A write: the Idempotency-Key header, the body, the answer and every refusal."""
    return extend_schema(
        summary=summary,
        description=description,
        tags=tags,
        request=request,
        parameters=[IDEMPOTENCY_KEY],
        responses={
            status: answer_serializer(answer),
            400: MALFORMED,
            403: NOT_ALLOWED,
            404: NOT_FOUND,
            409: WRONG_STATE,
            422: KEY_CONFLICT,
        },
    )


def read(
    *,
    summary: str,
    answer: Any,
    tags: list[str],
    public: bool = False,
    description: str | None = None,
    parameters: list[OpenApiParameter] | None = None,
) -> Callable[[Any], Any]:
    """A read; a public one needs no sign-in."""
    responses: dict[Any, Any] = answer if isinstance(answer, dict) else {200: answer}
    if parameters:
        responses = {**responses, 400: MALFORMED}
    if not public:
        responses = {**responses, 403: NOT_ALLOWED}
    return extend_schema(
        summary=summary,
        description=description,
        tags=tags,
        parameters=parameters,
        responses={**responses, 404: NOT_FOUND},
    )


# --- request bodies, as strict as their serializers --------------------------------------------


def strict_request_bodies(result: dict[str, Any], **kwargs: Any) -> dict[str, Any]:
    """A postprocessing hook: each request body says all its serializer enforces.

    No field beyond those listed (`additionalProperties: false`); text without control characters
    and, where blank is refused, with something visible; the reasons House always gives required;
    an adjustment never $0; a slot kept once; a time zone one of the IANA names; a participant
    named by exactly one of `user_id` and `email`.
    """
    from api import serializers as body

    schemas = result.get("components", {}).get("schemas", {})
    for serializer in _bodies(body.Body):
        for name in (serializer.__name__, f"Patched{serializer.__name__}"):
            if name in schemas:
                _tighten(schemas[name], serializer(), body)
    if "Participant" in schemas:
        schemas["Participant"]["oneOf"] = [
            {"required": ["user_id"], "not": {"required": ["email"]}},
            {"required": ["email"], "not": {"required": ["user_id"]}},
        ]
    # A body with a field it cannot do without is itself required (no body at all is refused).
    needed = {
        f"#/components/schemas/{name}"
        for name, component in schemas.items()
        if component.get("required") or component.get("oneOf")
    }
    for operations in result.get("paths", {}).values():
        for operation in operations.values():
            content = (operation.get("requestBody") or {}).get("content", {})
            if any(media.get("schema", {}).get("$ref") in needed for media in content.values()):
                operation["requestBody"]["required"] = True
    return result


def _bodies(root: type) -> list[type]:
    found: list[type] = []
    children: list[type] = root.__subclasses__()
    for child in children:
        found += [child, *_bodies(child)]
    return found


def _tighten(component: dict[str, Any], serializer: Any, body: Any) -> None:
    component["additionalProperties"] = False
    properties = component.get("properties", {})
    for name, field in serializer.fields.items():
        schema = properties.get(name)
        if schema is None:
            continue
        if isinstance(field, body.Text):
            multiline = limits.multi_line in field.validators
            required = isinstance(field, body.RequiredReason)
            blank = field.allow_blank and not required
            schema["pattern"] = limits.text_pattern(multiline=multiline, blank=blank)
            if not blank:
                schema["minLength"] = 1
            if required:
                schema.pop("default", None)
                component["required"] = sorted({*component.get("required", []), name})
            if name == "time_zone":
                schema["enum"] = sorted(zoneinfo.available_timezones())
        if name == "amount":
            schema["not"] = {"const": 0}
        if name == "slots":
            schema["uniqueItems"] = True  # each offered card is kept at most once
