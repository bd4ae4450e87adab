"""live/data_patch.py: a patch made from one version of a stream's data turns it into the next."""

from __future__ import annotations

import json
import random
from typing import Any

from live.data_patch import GONE, patch, patched


def row(player: str, place: int, cards: list[str]) -> dict[str, Any]:
    return {"place": place, "player": player, "cards": [{"code": c} for c in cards], "held": 1}


def test_it_carries_only_the_fields_and_rows_that_moved() -> None:
    was = {
        "version": 4,
        "progress": {"players": 3, "kept": 5},
        "high": [row("Ann", 1, ["AS"]), row("Bo", 2, ["KS"]), row("Cy", 3, ["QS"])],
        "final": False,
    }
    now = {
        "version": 5,
        "progress": {"players": 3, "kept": 6},
        "high": [row("Bo", 1, ["KS", "KH"]), row("Ann", 2, ["AS"]), row("Cy", 3, ["QS"])],
        "final": False,
    }

    changes = patch(was, now)

    assert changes == {
        "version": 5,
        "progress": {"kept": 6},
        "high": {
            "rows": {
                "Bo": {"place": 1, "cards": [{"code": "KS"}, {"code": "KH"}]},
                "Ann": {"place": 2},
            },
            "order": ["Bo", "Ann", "Cy"],
        },
    }
    assert patched(was, changes) == now


def test_a_row_new_to_a_list_comes_whole_and_one_that_left_goes() -> None:
    was = {"low": [row("Ann", 1, ["2S"]), row("Bo", 2, ["3S"])], "award": 5}
    now = {"low": [row("Cy", 1, ["2H"]), row("Ann", 2, ["2S"])]}

    changes = patch(was, now)

    assert changes["low"]["rows"]["Cy"] == row("Cy", 1, ["2H"])
    assert changes["low"]["order"] == ["Cy", "Ann"]
    assert changes[GONE] == ["award"]
    assert patched(was, changes) == now


def test_nothing_moved_is_an_empty_patch() -> None:
    was = {"high": [row("Ann", 1, ["AS"])], "pool": {"adjustments": [], "base": 10}}
    assert patch(was, json.loads(json.dumps(was))) == {}
    assert patched(was, {}) == was


def test_any_sequence_of_boards_is_rebuilt_from_its_patches() -> None:
    """Random boards of a fixed shape: every patch, applied in turn, gives each next board."""
    rng = random.Random(2026)
    names = [f"P{n}" for n in range(14)]

    def board(version: int) -> dict[str, Any]:
        def side() -> list[dict[str, Any]]:
            chosen = rng.sample(names, rng.randint(0, 10))
            return [
                row(name, place, rng.sample(["AS", "KD", "2C", "7H"], 2))
                for place, name in enumerate(chosen, 1)
            ]

        return {
            "version": version,
            "event": {"version": version, "phase": rng.choice(["started", "finalized"])},
            "high": side(),
            "low": side(),
            "pool": {
                "adjustments": [[1, "x"]] * rng.randint(0, 2),
                "confirmed": rng.random() < 0.5,
            },
        }

    held = board(0)
    for version in range(1, 300):
        now = board(version)
        changes = json.loads(json.dumps(patch(held, now)))  # as a socket carries it
        held = patched(held, changes)
        assert held == now
