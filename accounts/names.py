"""Display names and event labels that cannot impersonate anyone.

A display name is public: it names a player on the board and in the audit. So it is normalized
(NFKC, single spaces) and refused when it holds invisible, control or bidirectional-override
characters, shows nothing visible, or reads as a name the audit reserves ("system", "House",
"House: ..."), compared by their Unicode TR39 skeletons so look-alike letters cannot get round it.
Within an event two labels whose skeletons are equal look the same on the board: the later one
gets a " #2" suffix, as an exact duplicate does (docs/rules.md section 1.2).
"""

from __future__ import annotations

import json
import unicodedata
from collections.abc import Iterable
from functools import cache
from importlib import resources

from django.core.exceptions import ValidationError
from django.utils.translation import gettext as _

MAX_LENGTH = 40
# Categories nobody can see or that change how the text around them is laid out: controls,
# format characters (zero-width spaces and joiners, bidirectional marks, embeddings, overrides and
# isolates), surrogates, private use, unassigned code points, line and paragraph separators.
HIDDEN_CATEGORIES = frozenset({"Cc", "Cf", "Cs", "Co", "Cn", "Zl", "Zp"})
# Default-ignorable or blank-looking characters outside those categories: Hangul fillers, the
# combining grapheme joiner, Khmer inherent vowels, Mongolian and standard variation selectors,
# and the Braille blank.
BLANK_LOOKING = frozenset(
    {0x115F, 0x1160, 0x3164, 0xFFA0, 0x034F, 0x17B4, 0x17B5, 0x2800}
    | set(range(0x180B, 0x1810))
    | set(range(0xFE00, 0xFE10))
    | set(range(0xE0100, 0xE01F0))
)
MOST_MARKS_IN_A_ROW = 3  # stacked accents beyond any script's need only smear over other text
# The audit writes "system", "House: <name>" and, for an account with no name, "user <id>".
RESERVED_WORDS = ("system", "house")
RESERVED_PREFIX = "house:"
FALLBACK_ACTOR = "user"
FALLBACK_LABEL = "Player"

# Marks that the confusables data keeps around some characters for display, not part of them:
# left-to-right and right-to-left marks (around right-to-left letters) and the dotted circle
# (under a lone combining mark).
_DISPLAY_MARKS = str.maketrans("", "", "\u200e\u200f\u25cc")


def normalize_display_name(raw: str) -> str:
    """The display name as stored (NFKC, single spaces), or a ValidationError saying why not."""
    # Controls that `split` would take for spaces (a tab, a line break, NEL) are refused, not
    # quietly turned into a space.
    for char in raw:
        if char != " " and unicodedata.category(char) == "Cc":
            raise ValidationError(
                _(
                    "A display name cannot hold invisible, control or text-direction characters "
                    "(U+%(code)s)."
                )
                % {"code": f"{ord(char):04X}"},
                code="name_hidden_character",
            )
    name = " ".join(unicodedata.normalize("NFKC", raw).split())
    if not name:
        raise ValidationError(_("Choose a display name."), code="name_blank")
    if len(name) > MAX_LENGTH:
        raise ValidationError(
            _("A display name has at most %(max_length)s characters.") % {"max_length": MAX_LENGTH},
            code="name_too_long",
        )
    marks = 0
    for char in name:
        category = unicodedata.category(char)
        if category in HIDDEN_CATEGORIES or ord(char) in BLANK_LOOKING:
            raise ValidationError(
                _(
                    "A display name cannot hold invisible, control or text-direction characters "
                    "(U+%(code)s)."
                )
                % {"code": f"{ord(char):04X}"},
                code="name_hidden_character",
            )
        marks = marks + 1 if category.startswith("M") else 0
        if marks > MOST_MARKS_IN_A_ROW:
            raise ValidationError(
                _("A display name cannot stack that many accents on one letter."),
                code="name_stacked_marks",
            )
    if not any(unicodedata.category(char)[0] in "LNPS" for char in name):
        raise ValidationError(_("A display name needs a visible character."), code="name_blank")
    if is_reserved(name):
        raise ValidationError(
            _('"%(name)s" reads as a name the audit uses for the system or House; choose another.')
            % {"name": name},
            code="name_reserved",
        )
    return name


def is_reserved(name: str) -> bool:
    """Whether the name reads as "system", "House", "House: ..." or "user <id>" (in any case or
    spacing, and with look-alike letters)."""
    key = _reading(name)
    if key in {_reading(word) for word in RESERVED_WORDS}:
        return True
    if key.startswith(_reading(RESERVED_PREFIX)):
        return True
    fallback = _reading(FALLBACK_ACTOR)
    digits = set(_reading("0123456789"))
    rest = key.removeprefix(fallback)
    return key.startswith(fallback) and bool(rest) and set(rest) <= digits


def _reading(text: str) -> str:
    """How a text reads regardless of case, spacing and look-alike letters."""
    return skeleton(skeleton("".join(text.split())).casefold())


def label_base(display_name: str) -> str:
    """The label an account's name starts from in an event; an account whose stored name no
    longer passes (set before these rules, or outside the forms) is shown as "Player"."""
    try:
        return normalize_display_name(display_name or "")
    except ValidationError:
        return FALLBACK_LABEL


def unique_label(display_name: str, taken: Iterable[str]) -> str:
    """A label for the event that neither equals nor looks like (same skeleton) any label in
    `taken`: the name itself, else the name with the first free suffix " #2", " #3", ..."""
    labels = set(taken)
    skeletons = {skeleton(label) for label in labels}
    base = label_base(display_name)
    candidate, number = base, 1
    while candidate in labels or skeleton(candidate) in skeletons:
        number += 1
        candidate = f"{base} #{number}"
    return candidate


def skeleton(text: str) -> str:
    """The Unicode TR39 skeleton: NFD, each character replaced by its confusable prototype, NFD.

    Two strings with the same skeleton look alike (Cyrillic "\u0412ob" and Latin "Bob").
    """
    prototypes = _prototypes()
    decomposed = unicodedata.normalize("NFD", text)
    return unicodedata.normalize("NFD", "".join(prototypes.get(c, c) for c in decomposed))


@cache
def _prototypes() -> dict[str, str]:
    """Each confusable character's prototype, from Unicode's confusables.txt (TR39) as the
    `confusable_homoglyphs` package ships it.

    The package keeps each line `source ; prototype` as a link both ways. The direction comes
    back from the data's shape: a source is one code point that maps to exactly one prototype,
    and a prototype is never a source, so of two linked strings the prototype is the one that is
    longer than one character or has other sources. A prototype with a single source is told
    from it by being part of another prototype, then by being in NFD (prototypes are), then by
    code point; either way every string that looks like the two gets the same skeleton.
    """
    source = resources.files("confusable_homoglyphs").joinpath("confusables.json")
    links: dict[str, set[str]] = {}
    for key, partners in json.loads(source.read_text(encoding="utf-8")).items():
        key = key.translate(_DISPLAY_MARKS)
        links.setdefault(key, set()).update(p["c"].translate(_DISPLAY_MARKS) for p in partners)
    known = {key for key, partners in links.items() if len(key) > 1 or len(partners) > 1}
    in_prototypes = {char for prototype in known for char in prototype}

    def rank(char: str) -> tuple[bool, bool, str]:  # the likelier prototype sorts first
        return (
            char not in in_prototypes,
            not unicodedata.is_normalized("NFD", char),
            char,
        )

    prototypes: dict[str, str] = {}
    for char, partners in links.items():
        if char in known:
            continue
        (partner,) = partners
        if partner in known or rank(partner) < rank(char):
            prototypes[char] = partner
    return prototypes
