"""The shape of every API endpoint: JSON in and out, the signed-in actor, the Idempotency-Key on
each write, and the declarations most endpoints are (`write`, one service; `read`, one read
model; `download`, a document or its CSV), each documented from the same words it runs with.

Refusals are domain errors, mapped once by `api.errors.exception_handler`.
"""

from __future__ import annotations

import io
from collections.abc import Callable, Mapping
from dataclasses import dataclass
from typing import Any, get_type_hints

from django.conf import settings
from django.http import HttpResponse
from django.utils.translation import gettext as _
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
from events import limits
from events.answers import Answer, as_json
from events.errors import IdempotencyKeyRequired, NotAllowed
from events.query import query_choice, refuse_unknown
from events.reads.common import to_json
from events.request_bodies import Empty
from events.runner import Service

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
                raise IdempotencyKeyRequired(_("Send an Idempotency-Key header with every write."))
            self.idempotency_key = key


class PublicReadView(ApiView):
    # Anyone may read; writes need a signed-in user.

    permission_classes = (IsAuthenticatedOrReadOnly,)


def actor(request: Request) -> User:
    user = reads.account(request.user)
    if user is None:
        raise NotAllowed(_("Sign in first."))
    return user


def answered(answer: Answer, *, status: int = 200) -> Response:
    """A service's answer as the JSON its dataclass describes."""
    return Response(as_json(answer), status=status)


def valid(request: Request, serializer: type[Serializer[Any]]) -> dict[str, Any]:
    """The request body, checked for types and ranges."""
    checked = serializer(data=request.data)
    checked.is_valid(raise_exception=True)
    return dict(checked.validated_data)


# --- the two declarations -------------------------------------------------------------------

type Method = Callable[..., Response]


def answer_of(service: Callable[..., Answer]) -> type[Answer]:
    """The dataclass a service answers with: a runner's `Service.answer`, or the return type of a
    function that runs several of them."""
    if isinstance(service, Service):
        return service.answer
    answer: type[Answer] = get_type_hints(service)["return"]
    return answer


def write(
    service: Callable[..., Answer],
    *,
    summary: str,
    tags: list[str],
    body: type[Serializer[Any]] | None = None,
    status: int = 200,
    description: str | None = None,
    arguments: Callable[[dict[str, Any]], Mapping[str, Any]] | None = None,
) -> Method:
    """A write method (`post = HOUSE.write(...)`): the body checked against `body` (none: an
    empty body), then `service` called with the URL's ids, the body's fields (or what `arguments`
    makes of them), the actor and the Idempotency-Key, its answer sent with `status`."""
    checked = Empty if body is None else body

    def method(view: ApiView, request: Request, **ids: Any) -> Response:
        data = valid(request, checked)
        given = data if arguments is None else arguments(data)
        answer = service(**ids, **given, by=actor(request), idempotency_key=view.idempotency_key)
        return answered(answer, status=status)

    return schema.write(
        summary=summary,
        description=description,
        request=body,
        answer=answer_of(service),
        status=status,
        tags=tags,
    )(method)


def read(
    answering: Callable[..., Any],
    *,
    summary: str,
    answer: Any,
    tags: list[str],
    public: bool = False,
    description: str | None = None,
) -> Method:
    """A read method (`get = HOUSE.read(...)`): `answering(viewer, **the URL's ids)` gives the
    read model, sent as JSON. The viewer is the signed-in account; on a public read, None for a
    visitor."""

    def method(view: ApiView, request: Request, **ids: Any) -> Response:
        viewer = reads.account(request.user) if public else actor(request)
        return Response(to_json(answering(viewer, **ids)))

    return schema.read(
        summary=summary, description=description, answer=answer, tags=tags, public=public
    )(method)


def download[T](
    finding: Callable[..., T],
    *,
    document: Callable[[T], Any],
    csv: Callable[[T], str],
    filename: Callable[[T], str],
    summary: str,
    description: str | None = None,
    formats: str,
    answer: Any,
    rows: str,
    tags: list[str],
    public: bool = False,
) -> Method:
    """A download method (`get = HOUSE.download(...)`): what `finding(viewer, **the URL's ids)`
    names, as one JSON `document` or, with `?format=csv`, as a `csv` attachment named `filename`.
    `formats` and `rows` document the two."""

    def method(view: ApiView, request: Request, **ids: Any) -> Response | HttpResponse:
        found = finding(reads.account(request.user) if public else actor(request), **ids)
        # A misspelt parameter and an empty `?format=` are refused, not read as the default.
        refuse_unknown(request, "format")
        if query_choice(request, "format", ("json", "csv"), "json", strict=True) == "csv":
            return HttpResponse(
                csv(found),
                content_type="text/csv; charset=utf-8",
                headers={"Content-Disposition": f'attachment; filename="{filename(found)}"'},
            )
        return Response(document(found))

    parameter = OpenApiParameter(
        name="format",
        type=str,
        location=OpenApiParameter.QUERY,
        enum=["json", "csv"],
        default="json",
        description=formats,
    )
    return schema.read(
        summary=summary,
        description=description,
        answer={
            (200, "application/json"): answer,
            (200, "text/csv"): OpenApiResponse(OpenApiTypes.STR, description=rows),
        },
        parameters=[parameter],
        tags=tags,
        public=public,
    )(method)


@dataclass(frozen=True, slots=True)
class Section:
    """A section of the API's documentation (its tag), declaring the endpoints it lists."""

    tags: list[str]

    def write(self, service: Callable[..., Answer], **declared: Any) -> Method:
        return write(service, tags=self.tags, **declared)

    def read(self, answering: Callable[..., Any], **declared: Any) -> Method:
        return read(answering, tags=self.tags, **declared)

    def download(self, finding: Callable[..., Any], **declared: Any) -> Method:
        return download(finding, tags=self.tags, **declared)

    # An endpoint with one method, declared as that method alone.

    def post(self, service: Callable[..., Answer], **declared: Any) -> type[ApiView]:
        """An endpoint whose one method is a `write` posted to it."""
        return endpoint(post=self.write(service, **declared))

    def get(
        self, answering: Callable[..., Any], *, public: bool = False, **declared: Any
    ) -> type[ApiView]:
        """An endpoint whose one method is a `read`; anyone may read a public one."""
        return endpoint(get=self.read(answering, public=public, **declared), public=public)


def endpoint(*, public: bool = False, **methods: Method) -> type[ApiView]:
    """A view serving `methods` (`get`, `post`, ...): to signed-in users, or anyone who reads a
    public one."""
    base = PublicReadView if public else ApiView
    return type(f"{base.__name__}Endpoint", (base,), methods)
