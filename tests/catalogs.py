"""A gettext catalog's entries, read for the checks of the shipped languages
(tests/test_translations.py) and the pseudo-locale built from them (tests/pseudo_locale.py)."""

from __future__ import annotations

import re
from typing import Any


def _unquote(lines: list[str]) -> str:
    return "".join(
        re.sub(r'^[a-z_\[\]0-9]*\s*"', "", line)[:-1]
        .encode()
        .decode("unicode_escape")
        .encode("latin-1")
        .decode()
        for line in lines
    )


def po_entries(text: str) -> list[dict[str, Any]]:
    """A .po's entries, its header first (msgid ""): flags, msgctxt, msgid, msgid_plural and
    msgstr forms (no polib needed). An obsolete entry (#~), only comments, is left out."""
    entries: list[dict[str, Any]] = []
    for block in text.split("\n\n"):
        fields: dict[str, list[str]] = {}
        flags: list[str] = []
        current = None
        for line in block.strip().splitlines():
            if line.startswith("#,"):
                flags += [flag.strip() for flag in line[2:].split(",")]
            elif line.startswith("#"):
                continue
            elif line.startswith('"'):
                assert current is not None
                fields[current].append(line)
            else:
                current = line.split(" ", 1)[0]
                fields[current] = [line]
        strings = {name: _unquote(lines) for name, lines in fields.items()}
        if "msgid" in strings:
            entries.append({"flags": flags, **strings})
    return entries
