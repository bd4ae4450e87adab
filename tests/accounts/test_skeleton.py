"""TR39 skeletons from the confusables data, checked against every link in it."""

from __future__ import annotations

import json
import unicodedata
from importlib import resources

import pytest

from accounts.names import _DISPLAY_MARKS, skeleton


def links() -> list[tuple[str, str]]:
    """Every "looks like" pair in Unicode's confusables.txt, as the package ships it."""
    source = resources.files("confusable_homoglyphs").joinpath("confusables.json")
    data = json.loads(source.read_text(encoding="utf-8"))
    return [
        (key.translate(_DISPLAY_MARKS), partner["c"].translate(_DISPLAY_MARKS))
        for key, partners in data.items()
        for partner in partners
    ]


def test_every_pair_in_the_data_has_one_skeleton() -> None:
    pairs = links()
    assert len(pairs) > 12_000
    # TR39 maps NFD text, so a line whose source is a precomposed letter never applies as
    # written; every pair already in NFD must meet.
    checked = 0
    for first, second in pairs:
        if unicodedata.is_normalized("NFD", first) and unicodedata.is_normalized("NFD", second):
            assert skeleton(first) == skeleton(second), (ascii(first), ascii(second))
            checked += 1
    assert checked > 10_000  # of about 12,600: most lines are in NFD already


@pytest.mark.parametrize(
    ("first", "second"),
    [
        ("Bob", "\u0412ob"),  # Cyrillic Ve
        ("paypal", "\u0440\u0430\u0443\u0440\u0430l"),
        ("0live", "Olive"),
        ("1ce", "Ice"),
        ("Ice", "lce"),
        ("modern", "rnodern"),
        ("\u65e5", "\u2f47"),  # a CJK ideograph and the Kangxi radical drawn the same
        ("Zo\u00eb", "Zoe\u0308"),  # NFD first
    ],
)
def test_look_alikes_share_a_skeleton(first: str, second: str) -> None:
    assert skeleton(first) == skeleton(second)


@pytest.mark.parametrize(
    ("first", "second"), [("Bob", "bob"), ("Ann", "Anne"), ("Ann", "Ana"), ("Lou", "Lu")]
)
def test_different_names_keep_different_skeletons(first: str, second: str) -> None:
    assert skeleton(first) != skeleton(second)
