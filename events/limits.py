"""The bounds every way in shares: the API's serializers, the page forms and the services.

Numbers stop where the rules or the PostgreSQL columns stop; text is refused, never cut, when it is
too long or carries control characters (a NUL always; tabs and line breaks only in multi-line text
such as a reason or the remainder policy), a line break of any kind in one-line text (whatever
`str.splitlines` splits on, U+2028 and U+2029 included) or bidirectional overrides, which make a
name or an opponent read differently from what was stored.
"""

from __future__ import annotations

import re

from django.core.exceptions import ValidationError
from django.utils.translation import gettext as _

from events.errors import Invalid, WrongState

# PostgreSQL `integer`, the column of the pool, the contribution and the adjustments.
INTEGER_MAX = 2**31 - 1
# PostgreSQL `bigint`, the column of every id.
ID_MAX = 2**63 - 1

MAX_CONTRIBUTION = 1_000_000
MAX_ADJUSTMENT = 1_000_000
MAX_ADJUSTMENTS = 50
# The largest sponsored pool of a free-entry event.
MAX_SPONSORED_POOL = 10_000_000
MAX_EXTRA_DECKS = 50
# The most players an event's capacity names (events are designed for up to 1,000).
MAX_CAPACITY = 100_000
# How long an offered or unpaid place is held, in minutes (events/waitlist.py): a day at most.
MAX_HOLD_MINUTES = 24 * 60
MAX_GAME = 99
# A card's number within an offer: a bound on the request only; the service refuses a number
# past the offer it answers (formats say how many cards they offer).
MAX_SLOT = 51

NAME_LENGTH = 120
VENUE_LENGTH = 120
TIME_ZONE_LENGTH = 64
POLICY_LENGTH = 2000
REASON_LENGTH = 500
EXPLANATION_LENGTH = 500
OPPONENT_LENGTH = 80
SCORE_LENGTH = 20
ANNOUNCEMENT_LENGTH = 280
CHECK_IN_CODE_LENGTH = 12
# Any other text a service takes.
TEXT_LENGTH = 2000

# Every line break `str.splitlines` splits on: LF, CR, VT, FF, the file, group and record
# separators, NEL, and the line and paragraph separators (the only characters of Unicode's Zl and
# Zp). All but the last two are control characters (Cc) too.
LINE_BREAKS = "\n\r\x0b\x0c\x1c\x1d\x1e\x85\u2028\u2029"
# Bidirectional embeddings, overrides and isolates.
_BIDI = "\u202a-\u202e\u2066-\u2069"
# Lone surrogates: no database text holds one (a JSON body can, as a `\ud800` escape).
_SURROGATES = "\ud800-\udfff"
# One line: no control character (Cc: C0, DEL, C1) and no line or paragraph separator.
_SINGLE_LINE = re.compile(f"[\x00-\x1f\x7f-\x9f\u2028\u2029{_BIDI}]")
# Several lines: tabs and the ordinary line breaks (LF, CR) only.
_MULTI_LINE = re.compile(f"[\x00-\x08\x0b\x0c\x0e-\x1f\x7f-\x9f\u2028\u2029{_BIDI}]")
_SURROGATE = re.compile(f"[{_SURROGATES}]")


# The same, as JSON Schema `pattern`s (ECMA 262, Rust and Python read these escapes alike). Lone
# surrogates are left out: a Rust regex cannot name them, and the API refuses a body holding one
# before any field is read (`api.endpoints.JsonBody`).
_FORBIDDEN_ESCAPED = r"\x00-\x1f\x7f-\x9f\u2028\u2029\u202a-\u202e\u2066-\u2069"
_FORBIDDEN_MULTI_ESCAPED = (
    r"\x00-\x08\x0b\x0c\x0e-\x1f\x7f-\x9f\u2028\u2029\u202a-\u202e\u2066-\u2069"
)
# What `str.strip()` removes, spelt out: `\s` means other characters in other engines (ECMA's
# takes U+FEFF, Python's does not), so a pattern built on it would not say what the server does.
SPACES = "".join(chr(code) for code in range(0x10000) if chr(code).isspace())
_SPACES_ESCAPED = "".join(f"\\u{ord(char):04x}" for char in SPACES)


def text_pattern(*, multiline: bool = False, blank: bool = True) -> str:
    """The characters `text_problem` accepts, as a pattern; not `blank`: one that `str.strip()`
    keeps at least."""
    forbidden = _FORBIDDEN_MULTI_ESCAPED if multiline else _FORBIDDEN_ESCAPED
    if blank:
        return f"^[^{forbidden}]*$"
    return f"^[^{forbidden}]*[^{_SPACES_ESCAPED}{forbidden}][^{forbidden}]*$"


def text_problem(value: str, *, multiline: bool = False) -> str | None:
    """What is wrong with this text's characters, in plain words; None when nothing is."""
    if has_lone_surrogate(value):
        return _("may not contain a lone surrogate (half of a character)")
    if (_MULTI_LINE if multiline else _SINGLE_LINE).search(value):
        if multiline:
            return _(
                "may not contain control characters or line and paragraph separators "
                "(only tabs and ordinary line breaks)"
            )
        return _("may not contain control characters or line breaks")
    return None


def has_lone_surrogate(value: str) -> bool:
    return _SURROGATE.search(value) is not None


def check_text(value: object, *, label: str, max_length: int, multiline: bool = False) -> str:
    """The text without its surrounding whitespace, or `Invalid` saying what is wrong."""
    if not isinstance(value, str):
        raise Invalid(_("%(label)s must be text.") % {"label": label})
    problem = text_problem(value, multiline=multiline)
    if problem:
        raise Invalid(_("%(label)s %(problem)s.") % {"label": label, "problem": problem})
    text = value.strip()
    if len(text) > max_length:
        raise Invalid(
            _("%(label)s is at most %(max_length)s characters (it has %(length)s).")
            % {"label": label, "max_length": max_length, "length": len(text)}
        )
    return text


def single_line(value: str) -> None:
    """A form or serializer validator: one line of plain text."""
    problem = text_problem(value)
    if problem:
        raise ValidationError(
            _("This text %(problem)s.") % {"problem": problem}, code="control_characters"
        )


def multi_line(value: str) -> None:
    """A form or serializer validator: plain text over several lines."""
    problem = text_problem(value, multiline=True)
    if problem:
        raise ValidationError(
            _("This text %(problem)s.") % {"problem": problem}, code="control_characters"
        )


def check_pool(amount: int, *, what: str) -> None:
    """Refuse a change that would take the pool past what its column holds."""
    if amount > INTEGER_MAX:
        raise WrongState(
            _(
                "%(what)s would make the pool $%(amount)s, more than the $%(integer_max)s it can "
                "hold."
            )
            % {"what": what, "amount": f"{amount:,}", "integer_max": f"{INTEGER_MAX:,}"}
        )
