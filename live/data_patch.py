"""What moved in a stream's data between two versions: the board's targeted updates carry it
instead of the whole board.

A patch is read against the data it was made from (the version the update builds on, `base`):

- an object's patch names the keys whose value changed, each with the value's own patch (the new
  value itself, unless both are objects or both are lists of rows), and lists under "-" the keys
  that went;
- a list of rows (objects, each with its own "player": the board's High and Low lists) has the
  patch {"rows": {player: the row's patch, or the whole row when it is new to the list},
  "order": [each row's player, in order]}, "order" only when the rows or their order changed;
  a row missing from the order left the list;
- any other value that changed comes whole (a hand's cards, the pool's adjustments).

The data's shape does not change between versions (a field is an object, a list or a plain
value at every version), so reading a patch never has to guess which of these it is.
"""

from __future__ import annotations

from typing import Any

GONE = "-"
ROW_KEY = "player"


def _rows(value: Any) -> bool:
    """A list of rows: objects each named by their own (unique) player."""
    if not isinstance(value, list) or not value:
        return False
    if not all(isinstance(row, dict) and ROW_KEY in row for row in value):
        return False
    return len({row[ROW_KEY] for row in value}) == len(value)


def _keyed(was: Any, now: Any) -> bool:
    return (_rows(was) or was == []) and (_rows(now) or now == []) and (was or now) != []


def patch(was: Any, now: Any) -> Any:
    """The patch that turns `was` into `now` (both as the sockets send them: JSON values)."""
    if isinstance(was, dict) and isinstance(now, dict):
        found: dict[str, Any] = {}
        for key, value in now.items():
            if key not in was:
                found[key] = value
            elif was[key] != value:
                found[key] = patch(was[key], value)
        gone = [key for key in was if key not in now]
        if gone:
            found[GONE] = gone
        return found
    if isinstance(was, list) and isinstance(now, list) and _keyed(was, now):
        before = {row[ROW_KEY]: row for row in was}
        rows = {}
        for row in now:
            old = before.get(row[ROW_KEY])
            if old is None:
                rows[row[ROW_KEY]] = row
            elif old != row:
                rows[row[ROW_KEY]] = patch(old, row)
        changes: dict[str, Any] = {"rows": rows}
        order = [row[ROW_KEY] for row in now]
        if order != [row[ROW_KEY] for row in was]:
            changes["order"] = order
        return changes
    return now


def patched(was: Any, changes: Any) -> Any:
    """`was` with `changes` (a `patch` made from it) applied: the data of the newer version."""
    if isinstance(was, dict) and isinstance(changes, dict):
        found = {key: value for key, value in was.items() if key not in changes.get(GONE, ())}
        for key, value in changes.items():
            if key != GONE:
                found[key] = patched(was[key], value) if key in was else value
        return found
    if isinstance(was, list) and isinstance(changes, dict):
        before = {row[ROW_KEY]: row for row in was}
        rows = changes.get("rows", {})
        order = changes.get("order", list(before))
        return [
            patched(before[name], rows[name])
            if name in before and name in rows
            else rows[name]
            if name in rows
            else before[name]
            for name in order
        ]
    return changes
