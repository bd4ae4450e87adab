"""Secrets never reach a log: password-reset keys in paths, session ids, sign-in tokens.

A password-reset link carries its key in the path (`/accounts/password/reset/key/<uid>-<key>/`),
and daphne writes every request path to its access log, Django's `django.request` logger writes
the path of each 4xx and 5xx. `redact` replaces the secret parts. `install` (at start-up) applies
it to every log record as it is made, whichever logger and handler write it (Django adds a
console handler of its own); `RedactSecrets`, on our handler, to the tracebacks it formats; and to
daphne's access log, which daphne writes straight to stdout, not through `logging` (daphne loads
the app, and so runs `install`, before it builds its access log).
"""

from __future__ import annotations

import logging
import re
from typing import Any

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
    return text


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
