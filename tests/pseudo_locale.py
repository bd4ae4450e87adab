"""A pseudo-locale for the tests: every string the Spanish catalogs translate (ours, and those of
Django and the installed apps), written back as its English wrapped and accented ("Your hand" ->
"⟦Ýöûŕ ĥåñð⟧"), placeholders, HTML tags and entities kept as they are. A page read in it shows
any English left outside the wrapping: a string nobody marked (docs/decisions.md, "Languages").

It is built at test time from the .po files and compiled by msgfmt into a folder of its own; it
is never committed.
"""

from __future__ import annotations

import re
import subprocess
from pathlib import Path
from typing import Any

import django
from django.apps import apps
from django.conf import settings

from tests.catalogs import po_entries

# "en-xa", the code Android and Chromium give their accented pseudo-locale: Django accepts it
# (language_code_re) once a catalog exists for it, reads its formats as English's (en_XA, then
# en), and gives it no fallback catalog of its own.
CODE = "en-xa"
OPEN, CLOSE = "⟦", "⟧"
# The one language every pseudo string is taken from: what it translates is what a person may
# read translated.
SOURCE = "es"
DOMAINS = ("django", "djangojs")

_ACCENTED = str.maketrans(
    "abcdefghijklmnopqrstuvwxyzABCDEFGHIJKLMNOPQRSTUVWXYZ",
    "åƀçðéƒĝĥîĵķļɱñöþǫŕšţûṽŵẋýžÅƁÇÐÉƑĜĤÎĴĶĻṀÑÖÞǪŔŠŢÛṼŴẊÝŽ",
)
# What a translation must keep as it is: python-format and brace placeholders, HTML tags and
# entities.
KEPT = re.compile(
    r"%\([^)]*\)[-#0 +]*\d*(?:\.\d+)?[sdifr]|%[-#0 +]*\d*[sdif%]|\{[a-z_0-9]*\}"
    r"|<[^>]*>|&[a-zA-Z]+;|&#x?[0-9a-fA-F]+;"
)
# A date or time format passed through gettext ("D j M", "N j, Y"): format letters, two at least
# (a lone letter is a word: "W" for a win), between spaces and punctuation. Accenting it would
# print the accented letters instead of the date, so it keeps its English (which shows nothing
# English: the date's words are translated).
DATE_FORMAT = re.compile(r"[a-zA-Z](?:[ .,:/\\-]+[a-zA-Z])+")


def pseudo(text: str) -> str:
    """`text` accented and wrapped, its placeholders, tags and entities kept."""
    if not text or DATE_FORMAT.fullmatch(text):
        return text
    parts, last = [], 0
    for kept in KEPT.finditer(text):
        parts += [text[last : kept.start()].translate(_ACCENTED), kept.group()]
        last = kept.end()
    parts.append(text[last:].translate(_ACCENTED))
    body = "".join(parts)
    # A text's leading and trailing newlines stay outside the wrapping (msgfmt checks them).
    inner = body.strip("\n")
    start = body.index(inner) if inner else 0
    return body[:start] + OPEN + inner + CLOSE + body[start + len(inner) :]


def entries(po: Path) -> list[dict[str, Any]]:
    """A .po file's entries after its header: flags, msgctxt, msgid, msgid_plural, msgstr..."""
    return [entry for entry in po_entries(po.read_text()) if entry["msgid"]]


def source_catalogs(domain: str) -> list[Path]:
    """The SOURCE catalogs of `domain` a page may read: ours first (they win), then the installed
    apps' and Django's own."""
    project = [
        Path(path) / SOURCE / "LC_MESSAGES" / f"{domain}.po" for path in settings.LOCALE_PATHS
    ]
    installed = [
        Path(config.path) / "locale" / SOURCE / "LC_MESSAGES" / f"{domain}.po"
        for config in apps.get_app_configs()
    ]
    core = Path(django.__file__).parent / "conf" / "locale" / SOURCE / "LC_MESSAGES"
    return [po for po in [*project, *installed, core / f"{domain}.po"] if po.exists()]


def _quoted(text: str) -> str:
    escaped = text.replace("\\", "\\\\").replace('"', '\\"').replace("\n", "\\n")
    return f'"{escaped}"'


def pseudo_catalog(domain: str) -> str | None:
    """The pseudo-locale's .po text for `domain`, or None when no catalog of it exists. Ours
    wholly; another app's or Django's where SOURCE translates the string (the rest reads English
    in every language, and is not ours to mark)."""
    catalogs = source_catalogs(domain)
    ours = {Path(path).resolve() for path in settings.LOCALE_PATHS}
    if not any(po.resolve().parents[2] in ours for po in catalogs):
        return None
    seen: set[tuple[str | None, str]] = set()
    blocks = [
        'msgid ""\nmsgstr ""\n"Content-Type: text/plain; charset=UTF-8\\n"\n'
        '"Plural-Forms: nplurals=2; plural=(n != 1);\\n"\n'
    ]
    for po in catalogs:
        own = po.resolve().parents[2] in ours
        for entry in entries(po):
            key = (entry.get("msgctxt"), entry["msgid"])
            translated = [v for k, v in entry.items() if k.startswith("msgstr") and v]
            if key in seen or (not own and ("fuzzy" in entry["flags"] or not translated)):
                continue
            seen.add(key)
            lines = [] if entry.get("msgctxt") is None else [f"msgctxt {_quoted(key[0] or '')}"]
            lines.append(f"msgid {_quoted(entry['msgid'])}")
            if "msgid_plural" in entry:
                lines += [
                    f"msgid_plural {_quoted(entry['msgid_plural'])}",
                    f"msgstr[0] {_quoted(pseudo(entry['msgid']))}",
                    f"msgstr[1] {_quoted(pseudo(entry['msgid_plural']))}",
                ]
            else:
                lines.append(f"msgstr {_quoted(pseudo(entry['msgid']))}")
            blocks.append("\n".join(lines) + "\n")
    return "\n".join(blocks)


def build(folder: Path) -> Path:
    """Compile the pseudo-locale's catalogs under `folder` (a locale path); returns `folder`."""
    messages = folder / CODE.replace("-xa", "_XA") / "LC_MESSAGES"
    messages.mkdir(parents=True, exist_ok=True)
    for domain in DOMAINS:
        text = pseudo_catalog(domain)
        if text is None:
            continue
        po = messages / f"{domain}.po"
        po.write_text(text)
        subprocess.run(
            ["msgfmt", "--check-format", "-o", str(po.with_suffix(".mo")), str(po)], check=True
        )
    return folder
