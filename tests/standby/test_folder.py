"""A standby copy's marker (standby/folder.py): whatever file a folder handed to `make restore`
holds under its name is read as a marker, or refused in plain words, never with a traceback."""

from __future__ import annotations

import json
from pathlib import Path

import pytest

from standby.folder import MARKER_LIMIT, CopyFolder, CopyProblem, Marker
from standby.restore import check_copy, server_major_version

FIELDS = {
    "system_identifier": "7412345678901234567",
    "major_version": 18,
    "source": "make run on this laptop",
    "slot": "syndicate_folder",
    "started_at": "2026-12-04T20:00:00+00:00",
    "base_complete": True,
}


def folder_with(tmp_path: Path, marker: object) -> CopyFolder:
    copy = CopyFolder(tmp_path / "copy")
    copy.root.mkdir(parents=True)
    text = marker if isinstance(marker, str) else json.dumps(marker)
    copy.marker_path.write_text(text)
    return copy


def whole_copy(tmp_path: Path, **changed: object) -> CopyFolder:
    """A folder shaped as a whole copy (manifest, one segment) for the checks before a restore."""
    copy = folder_with(tmp_path, {**FIELDS, **changed})
    copy.base.mkdir()
    (copy.base / "backup_manifest").write_text("{}")
    copy.wal.mkdir()
    (copy.wal / "000000010000000000000003.partial").write_bytes(b"")
    return copy


def test_a_marker_is_read_with_each_field_of_its_type(tmp_path: Path) -> None:
    assert folder_with(tmp_path, FIELDS).marker() == Marker(**FIELDS)  # type: ignore[arg-type]


def test_a_deeply_nested_marker_is_refused_in_plain_words(tmp_path: Path) -> None:
    copy = folder_with(tmp_path, "[" * 30_000 + "]" * 30_000)
    with pytest.raises(CopyProblem) as refused:
        copy.marker()
    assert "is not a standby copy's marker (it is nested too deeply)" in str(refused.value)


def test_a_marker_too_large_to_be_one_is_refused_unread(tmp_path: Path) -> None:
    copy = folder_with(tmp_path, " " * (MARKER_LIMIT + 1))
    with pytest.raises(CopyProblem, match="is too large to be a standby copy's marker"):
        copy.marker()


@pytest.mark.parametrize(
    ("marker", "says"),
    [
        ("not json", "Expecting value"),
        ([1, 2], "it is not an object of fields"),
        ({**FIELDS, "extra": 1}, "unknown field 'extra'"),
        ({k: v for k, v in FIELDS.items() if k != "slot"}, "no 'slot'"),
        ({**FIELDS, "system_identifier": 7412345678901234567}, "'system_identifier' is not text"),
        ({**FIELDS, "base_complete": "yes"}, "'base_complete' is not true or false"),
        ({**FIELDS, "major_version": "eighteen"}, "'major_version' is not a PostgreSQL major"),
        ({**FIELDS, "major_version": "18.1"}, "'major_version' is not a PostgreSQL major"),
        ({**FIELDS, "major_version": 18.0}, "'major_version' is not a PostgreSQL major"),
        ({**FIELDS, "major_version": True}, "'major_version' is not a PostgreSQL major"),
        ({**FIELDS, "major_version": -18}, "'major_version' is not a PostgreSQL major"),
        ({**FIELDS, "major_version": None}, "'major_version' is not a PostgreSQL major"),
    ],
)
def test_a_malformed_marker_is_refused_saying_which_field(
    tmp_path: Path, marker: object, says: str
) -> None:
    with pytest.raises(CopyProblem, match="is not a standby copy's marker") as refused:
        folder_with(tmp_path, marker).marker()
    assert says in str(refused.value)


def test_a_major_version_written_as_text_is_compared_as_a_number(tmp_path: Path) -> None:
    ours = server_major_version()
    marker = whole_copy(tmp_path, major_version=str(ours)).marker()
    assert marker is not None and marker.major_version == ours
    check_copy(whole_copy(tmp_path / "same", major_version=str(ours)))  # nothing to refuse

    older = str(ours - 2)
    with pytest.raises(CopyProblem) as refused:
        check_copy(whole_copy(tmp_path / "older", major_version=older))
    assert f"is of PostgreSQL {older}; this checkout runs PostgreSQL {ours}" in str(refused.value)
