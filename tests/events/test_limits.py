"""`events.limits`: the text bounds every way in shares (the services, the page forms and the
API's serializers and schema). One-line text refuses every line break `str.splitlines` splits
on, one class of characters at a time."""

from __future__ import annotations

import re
import sys

import pytest
from django.core.exceptions import ValidationError

from events import limits, services
from events.errors import Invalid
from tests.factories import make_table
from tests.refusals import refused

# What Python splits lines on, read from Python itself rather than written out again.
SPLITS_LINES = {
    chr(code) for code in range(sys.maxunicode + 1) if len(f"a{chr(code)}b".splitlines()) == 2
}

LINE_BREAK_CLASSES = {
    "C0 line breaks (LF, CR, VT, FF)": "\n\r\x0b\x0c",
    "information separators (FS, GS, RS)": "\x1c\x1d\x1e",
    "next line (NEL, C1)": "\x85",
    "line separator (Zl)": "\u2028",
    "paragraph separator (Zp)": "\u2029",
}
OTHER_CONTROLS = "\x00\x07\x1b\x7f\x80\x9f"


def test_the_line_breaks_are_exactly_those_python_splits_lines_on() -> None:
    assert set(limits.LINE_BREAKS) == SPLITS_LINES
    assert set("".join(LINE_BREAK_CLASSES.values())) == SPLITS_LINES


def _refused_everywhere(text: str) -> None:
    with pytest.raises(Invalid, match="may not contain"):
        limits.check_text(text, label="The name", max_length=120)
    with pytest.raises(ValidationError):
        limits.single_line(text)
    assert re.fullmatch(limits.text_pattern(), text) is None
    assert re.fullmatch(limits.text_pattern(blank=False), text) is None


@pytest.mark.parametrize("characters", LINE_BREAK_CLASSES.values(), ids=LINE_BREAK_CLASSES.keys())
def test_single_line_text_refuses_every_unicode_line_break(characters: str) -> None:
    for char in characters:
        for text in (f"Left{char}right", char, f"Name{char}"):
            _refused_everywhere(text)


def test_single_line_text_refuses_every_other_control_character() -> None:
    for char in OTHER_CONTROLS:
        _refused_everywhere(f"Left{char}right")


def test_single_line_text_takes_ordinary_text() -> None:
    for text in (
        "Thursday League",
        "Corn \U0001f33d Hole",
        "Caf\u00e9 \u00a0du coin",
        "\u05e9\u05dc\u05d5\u05dd",
    ):
        assert limits.check_text(text, label="The name", max_length=120) == text.strip()
        limits.single_line(text)
        assert re.fullmatch(limits.text_pattern(), text)


@pytest.mark.parametrize("separator", ["\u2028", "\u2029", "\x85", "\x0b", "\x1e"])
def test_multi_line_text_takes_only_ordinary_line_breaks(separator: str) -> None:
    """A reason or the remainder policy may span lines with LF or CR LF, never another
    separator, which pages, exports and sheets would show differently."""
    ordinary = "First line\r\nSecond line\n\tIndented"
    assert limits.check_text(ordinary, label="A reason", max_length=500, multiline=True)
    assert re.fullmatch(limits.text_pattern(multiline=True), ordinary)
    text = f"First line{separator}Second line"
    with pytest.raises(Invalid, match="line and paragraph separators"):
        limits.check_text(text, label="A reason", max_length=500, multiline=True)
    with pytest.raises(ValidationError):
        limits.multi_line(text)
    assert re.fullmatch(limits.text_pattern(multiline=True), text) is None


@pytest.mark.django_db
@pytest.mark.parametrize("separator", ["\u2028", "\u2029", "\x85"])
def test_an_event_name_with_a_line_separator_is_refused_and_changes_nothing(
    separator: str,
) -> None:
    table = make_table("league", players=1)
    refused(
        Invalid,
        table.event,
        lambda: services.event_update(
            event_id=table.event.pk, by=table.house, changes={"name": f"Thursday{separator}League"}
        ),
    )
