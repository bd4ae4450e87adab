"""Secrets never reach a log: every secret in a URL path, session ids, sign-in tokens.

Some links carry a secret in their path: a password reset's key
(`/accounts/password/reset/key/<uid>-<key>/`), a display link's token (`/display/<token>/`, the
venue's `/board/<id>/venue/<token>/`, the board socket's `ws/events/<id>/board/<display>/`), a
staff invitation's token (`/house/invitations/<token>`, `/house/series/invitations/<token>/`).
Daphne writes every request path to its access log, and Django's `django.request` logger writes
the path of each 4xx and 5xx. `redact` replaces the secret parts: the route arguments named in
`SECRET_URL_ARGUMENTS`, found by walking every HTTP and websocket route (a new route with a
`<str:token>` is covered as it is added), and the fixed patterns below. `install` (at start-up)
applies it to every log record as it is made, whichever logger and handler write it (Django adds
a console handler of its own); `RedactSecrets`, on our handler, to the tracebacks it formats; and to
daphne's access log, which daphne writes straight to stdout, not through `logging` (daphne loads
the app, and so runs `install`, before it builds its access log).
"""

from __future__ import annotations

import logging
import re
import threading
from collections.abc import Iterable, Iterator
from typing import Any

# Route arguments that are secrets, wherever they appear in a path (syndicate.security logs them
# by name too).
SECRET_URL_ARGUMENTS = frozenset({"key", "uidb36", "uidb64", "token", "display"})
REDACTED = "<redacted>"
_SEGMENT = r"(?!<)[^/\s?#\"']+"  # a segment, not one already named or redacted

_PATTERNS = [
    # allauth: /accounts/password/reset/key/<uidb36>-<key>/ (also the set-password step)
    (re.compile(r"(/password/reset/key/)(?!<)[^/\s?\"']+"), r"\1<redacted>"),
    # Django's own reset views, should they ever be routed: /reset/<uidb64>/<token>/
    (re.compile(r"(/reset/)(?!key/)(?!<)[^/\s?\"']+/[^/\s?\"']+"), r"\1<redacted>/<redacted>"),
    # allauth's email confirmation keys
    (re.compile(r"(/confirm-email/)(?!<)[^/\s?\"']+"), r"\1<redacted>"),
    # session and CSRF cookies, wherever a header or cookie string is logged
    (
        re.compile(
            r"((?:sessionid|csrftoken|session_key|sessionkey)[\"']?\s*[=:]\s*[\"']?)[^;,\s\"']+"
        ),
        r"\1<redacted>",
    ),
    # query-string secrets
    (re.compile(r"([?&](?:key|token|code)=)[^&\s\"']+"), r"\1<redacted>"),
]


def redact(text: str) -> str:
    for pattern, replacement in _PATTERNS:
        text = pattern.sub(replacement, text)
    if "/" in text:
        for route in secret_routes():
            text = route.sub(_redact_secret_groups, text)
    return text


def _redact_secret_groups(match: re.Match[str]) -> str:
    start, text, parts = match.start(), match.group(0), []
    cursor = 0
    for name, value in match.groupdict().items():
        if name.startswith("secret") and value is not None:
            begin, end = match.span(name)
            parts += [text[cursor : begin - start], REDACTED]
            cursor = end - start
    return "".join([*parts, text[cursor:]])


_routes: list[re.Pattern[str]] | None = None
_building = threading.local()
_websocket_patterns: list[Any] = []


def watch_websocket_routes(patterns: Iterable[Any]) -> None:
    """The websocket routes, told by syndicate/routing.py when it is loaded (it imports the live
    consumers, which this module, below every layer, must not)."""
    global _routes
    _websocket_patterns[:] = list(patterns)
    _routes = None


def secret_routes() -> list[re.Pattern[str]]:
    """Every HTTP and websocket route with a secret argument, as a pattern that finds its paths
    in a log line (built once, when the URLs can first be loaded)."""
    global _routes
    if _routes is not None:
        return _routes
    if getattr(_building, "active", False):
        return []  # a record logged while the URLs are imported
    _building.active = True
    try:
        from django.urls import get_resolver

        found = [
            *route_sources(get_resolver().url_patterns),
            *route_sources(_websocket_patterns),
        ]
    except Exception:
        return []
    finally:
        _building.active = False
    _routes = [re.compile(source) for source in dict.fromkeys(found)]
    return _routes


def route_sources(patterns: Iterable[Any], prefix: str = "") -> Iterator[str]:
    """The finding pattern of each route under `patterns` that has a secret argument."""
    from django.urls import URLResolver
    from django.urls.resolvers import RoutePattern

    for entry in patterns:
        pattern = entry.pattern
        if isinstance(pattern, RoutePattern):
            source = _route_source(str(pattern))
        else:
            source = _regex_source(str(pattern.regex.pattern))
        if isinstance(entry, URLResolver):
            yield from route_sources(entry.url_patterns, prefix + source)
        elif "(?P<secret" in prefix + source:
            yield "/" + _numbered(_up_to_last_secret(prefix + source))


def _route_source(route: str) -> str:
    """`display/<str:token>/` as a pattern: its secret arguments as groups named `secret`."""
    parts = []
    for literal, converter, name in re.findall(r"([^<]*)(?:<(?:(\w+):)?(\w+)>)?", route):
        parts.append(re.escape(literal))
        if name in SECRET_URL_ARGUMENTS:
            parts.append(f"(?P<secret>{_SEGMENT})")
        elif name:
            parts.append(r"\d+" if converter == "int" else _SEGMENT)
    return "".join(parts)


def _regex_source(regex: str) -> str:
    """A regular expression route, anchors dropped, its secret groups made one segment each."""
    regex = regex.removeprefix("^").removesuffix("$").removesuffix(r"\Z")
    out, index = [], 0
    for group in re.finditer(r"\(\?P<(\w+)>", regex):
        if group.start() < index:
            continue
        out.append(regex[index : group.start()])
        end = _closing(regex, group.end())
        if group[1] in SECRET_URL_ARGUMENTS:
            out.append(f"(?P<secret>{_SEGMENT})")
        else:
            out.append("(?:" + regex[group.end() : end] + ")")
        index = end + 1
    out.append(regex[index:])
    return "".join(out)


def _up_to_last_secret(source: str) -> str:
    """The pattern cut after its last secret: a mistyped tail (`/display/<token>` without its
    slash, or with more after it) still has its secret found."""
    last = source.rindex("(?P<secret>")
    return source[: _closing(source, last + len("(?P<secret>")) + 1]


def _closing(regex: str, start: int) -> int:
    depth, index = 1, start
    while index < len(regex):
        character = regex[index]
        if character == "\\":
            index += 2
            continue
        depth += {"(": 1, ")": -1}.get(character, 0)
        if depth == 0:
            return index
        index += 1
    raise ValueError(f"Unbalanced route pattern: {regex}")


def _numbered(source: str) -> str:
    """Each `secret` group its own name: a route may have several."""
    count = iter(range(1000))
    return re.sub(r"\(\?P<secret>", lambda _: f"(?P<secret{next(count)}>", source)


class RedactSecrets(logging.Filter):
    """A handler filter: the record's message (and traceback text) with secrets replaced."""

    def filter(self, record: logging.LogRecord) -> bool:
        message = record.getMessage()
        cleaned = redact(message)
        if cleaned != message:
            record.msg, record.args = cleaned, None
        if record.exc_info and not record.exc_text:
            record.exc_text = logging.Formatter().formatException(record.exc_info)
        if record.exc_text:
            record.exc_text = redact(record.exc_text)
        return True


def install() -> None:
    """Redact every log record from now on, and daphne's access log."""
    make_record = logging.getLogRecordFactory()
    if not getattr(make_record, "redacts", False):

        def redacting_record(*args: Any, **kwargs: Any) -> logging.LogRecord:
            record = make_record(*args, **kwargs)
            message = record.getMessage()
            cleaned = redact(message)
            if cleaned != message:
                record.msg, record.args = cleaned, None
            return record

        redacting_record.redacts = True  # type: ignore[attr-defined]
        logging.setLogRecordFactory(redacting_record)
    redact_daphne_access_log()


def redact_daphne_access_log() -> None:
    """Daphne's access log entries, with secrets in the request line replaced."""
    from daphne.access import AccessLogGenerator

    if getattr(AccessLogGenerator.write_entry, "redacts", False):
        return
    original = AccessLogGenerator.write_entry

    def write_entry(
        self: Any, host: Any, date: Any, request: Any, *args: Any, **kwargs: Any
    ) -> Any:
        return original(self, host, date, redact(str(request)), *args, **kwargs)

    write_entry.redacts = True  # type: ignore[attr-defined]
    AccessLogGenerator.write_entry = write_entry
