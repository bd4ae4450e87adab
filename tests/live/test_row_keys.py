"""Row keys are kept between cuts: a row's key is always the digest of what it shows."""

from __future__ import annotations

from typing import Any

import pytest
from hypothesis import given
from hypothesis import strategies as st

from events.snapshots import board_view
from live import fragments
from live.fragments import digest, row_pieces
from tests.factories import make_table

# A row's data holds one type per field (as the read models give it): no 1 where True was.
shown = st.recursive(
    st.none() | st.integers(-3, 3) | st.text(max_size=3),
    lambda inner: st.lists(inner, max_size=3) | st.dictionaries(st.text(max_size=2), inner),
    max_leaves=8,
)


@given(st.lists(st.tuples(st.sampled_from(["a", "b"]), shown), max_size=12))
def test_a_kept_key_is_the_digest_of_the_rows_data(rows: list[tuple[str, Any]]) -> None:
    piece = row_pieces("test.rows")
    for id, data in rows:
        assert piece(id, data, lambda: "").key == digest(data)


def test_equal_values_of_another_type_get_their_own_key() -> None:
    piece = row_pieces("test.types")
    assert piece("row", 1, lambda: "").key == digest(1)
    assert piece("row", True, lambda: "").key == digest(True) != digest(1)
    assert piece("row", 1.0, lambda: "").key == digest(1.0) != digest(1)


def test_only_the_newest_scopes_are_kept() -> None:
    for n in range(fragments._RowKeys.SCOPES + 5):
        row_pieces(f"test.scope.{n}")("row", n, lambda: "")
    kept = fragments._row_keys.scopes
    assert len(kept) == fragments._RowKeys.SCOPES
    assert "test.scope.0" not in kept and f"test.scope.{fragments._RowKeys.SCOPES + 4}" in kept


@pytest.mark.django_db
def test_a_board_cut_after_a_change_has_the_keys_of_a_first_cut() -> None:
    table = make_table(players=3, start=True)
    event = table.refresh()
    fragments.board_cut(event, board_view(event))  # the keys are kept
    table.choose_start(table.players[0])
    table.report(table.players[0], 1, "loss")
    event = table.refresh()
    view = board_view(event)

    again = {p.id: p.key for p in fragments.board_cut(event, view).pieces}
    fragments._row_keys.scopes.pop(f"board.{event.pk}")
    first = {p.id: p.key for p in fragments.board_cut(event, view).pieces}

    assert again == first
