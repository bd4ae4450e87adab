"""The OpenAPI description of the API (drf-spectacular): answer shapes, errors, the key header.

The serializers here only document what the API returns; no view runs them. The services' answers
and the read models (`events.reads`) are documented from their dataclasses (`read_model`).
`tests/api/test_schema.py` checks real answers against these shapes.
"""

from __future__ import annotations

import dataclasses
import datetime
import enum
import zoneinfo
from collections.abc import Callable
from types import NoneType, UnionType
from typing import Annotated, Any, Union, get_args, get_origin, get_type_hints

from drf_spectacular.utils import OpenApiParameter, OpenApiResponse, extend_schema
from rest_framework import serializers

from api.errors import METHOD_NOT_ALLOWED, SERVER_ERROR, THROTTLED, TOO_LARGE
from audit import anchor
from events import limits
from events.answers import Answer, Described, OneOf
from events.errors import ALL_ERRORS
from events.formats import FormatName
from events.models import Phase
from events.reads import board, common, player
from helpers.busy import UNAVAILABLE
from house.read_model import HouseTable

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


# --- shapes derived from dataclasses -----------------------------------------------------------

# The names the published schema has always given these read models.
NAMES: dict[type, str] = {
    common.PoolSummary: "Pool",
    common.Adjustment: "PoolAdjustment",
    board.BoardRow: "StandingRow",
    player.PlayerState: "PlayerSnapshot",
    HouseTable: "HouseSnapshot",
}


def read_model(kind: type) -> type[Doc]:
    """The documented shape of a dataclass: a service's answer or a read model.

    One serializer per name (the schema names its component after the dataclass, or `NAMES`).
    A field whose default is None is optional (left out when None); one typed `X | None` without
    a default is always there, possibly null. A nested dataclass is its own component; page-only
    fields (`events.reads.common.PAGE_ONLY`) are not in the JSON, so not here either.
    """
    name = NAMES.get(kind, kind.__name__)
    if name not in _DERIVED:
        hints = get_type_hints(kind, include_extras=True)
        fields = {
            field.name: _derived_field(hints[field.name], optional=field.default is None)
            for field in dataclasses.fields(kind)
            if not field.metadata.get("page_only")
        }
        _DERIVED[name] = type(name, (Doc,), {**fields, "__doc__": kind.__doc__})
    return _DERIVED[name]


_DERIVED: dict[str, type[Doc]] = {}


def _derived_field(hint: Any, *, optional: bool) -> serializers.Field[Any, Any, Any, Any]:
    kwargs: dict[str, Any] = {}
    choices: tuple[str, ...] = ()
    if get_origin(hint) is Annotated:
        hint, *extras = get_args(hint)
        for extra in extras:
            if isinstance(extra, Described):
                kwargs["help_text"] = extra.text
            elif isinstance(extra, OneOf):
                choices = extra.values
    if get_origin(hint) in (UnionType, Union):
        (hint,) = (arg for arg in get_args(hint) if arg is not NoneType)
        if optional:
            kwargs["required"] = False
        else:
            kwargs["allow_null"] = True
    if get_origin(hint) is dict:
        _, value = get_args(hint)
        return serializers.DictField(child=_derived_field(value, optional=False), **kwargs)
    if get_origin(hint) in (list, tuple):
        item = get_args(hint)[0]  # list[X] or tuple[X, ...]
        if dataclasses.is_dataclass(item):
            return read_model(item)(many=True, **kwargs)  # type: ignore[arg-type]
        return serializers.ListField(child=_derived_field(item, optional=False), **kwargs)
    if dataclasses.is_dataclass(hint):
        return read_model(hint)(**kwargs)  # type: ignore[arg-type]
    if isinstance(hint, type) and issubclass(hint, enum.Enum):
        return serializers.ChoiceField(choices=[member.value for member in hint], **kwargs)
    if choices:
        return serializers.ChoiceField(choices=list(choices), **kwargs)
    return _SIMPLE[hint](**kwargs)


_SIMPLE: dict[Any, Any] = {
    bool: serializers.BooleanField,
    int: serializers.IntegerField,
    str: serializers.CharField,
    datetime.date: serializers.DateField,
    datetime.datetime: serializers.DateTimeField,
}


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


# The read models' shapes, derived from their dataclasses (`read_model`), under the names the
# published schema has always given them.
CardFace = read_model(common.CardFace)
EventSummary = read_model(common.EventSummary)
EventListItem = type(
    "EventListItem",
    (EventSummary,),
    {
        "__doc__": EventSummary.__doc__,
        "house": serializers.BooleanField(help_text="Whether you are House for this event."),
        "registration_id": serializers.IntegerField(
            allow_null=True, help_text="Your registration in this event, if any."
        ),
    },
)
Pool = read_model(common.PoolSummary)
PoolAdjustment = read_model(common.Adjustment)
Board = read_model(board.Board)
PlayerSnapshot = read_model(player.PlayerState)


class FormatDoc(Doc):
    name = serializers.ChoiceField(choices=[name.value for name in FormatName])
    label = serializers.CharField()  # type: ignore[assignment]
    offered = serializers.IntegerField()
    starting = serializers.IntegerField()
    games = serializers.IntegerField()
    kept = serializers.IntegerField()
    reserve = serializers.IntegerField(help_text="Stock cards reserved per supported place.")


# --- House ----------------------------------------------------------------------------------


# House's table: derived from its dataclass (`house.read_model.HouseTable`), as answers are.
HouseSnapshot = read_model(HouseTable)


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
    actor_role = serializers.ChoiceField(
        choices=["owner", "director", "cashier", "scorer", "site"],
        required=False,
        help_text="The staff role House acted in; only on House entries written since roles "
        "were recorded (docs/audit.md).",
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


def answer_serializer(kind: type[Answer]) -> type[Doc]:
    """The documented shape of a service's answer, derived from its dataclass (`read_model`)."""
    return read_model(kind)


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
    from events import request_bodies as body

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
