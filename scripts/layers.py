#!/usr/bin/env python3
"""The project's rooms (its top-level packages) and the arrows between them: every import of one
room by another (function-local ones included), and every string that names another room's model
or migration (`apps.get_model("x", ...)`, `"x.Model"` in a relation, a migration's dependency).
It prints the rooms, the arrows, the arrows that climb back up (from a lower floor to a higher one,
in the order `FLOORS` states) and the circles between rooms.

    python scripts/layers.py            # the summary
    python scripts/layers.py --arrows   # and every arrow, with where it starts
"""

from __future__ import annotations

import ast
import re
import sys
from collections import defaultdict
from pathlib import Path

ROOT = (
    Path(sys.argv[sys.argv.index("--root") + 1])
    if "--root" in sys.argv
    else Path(__file__).resolve().parents[1]
)

# Lowest first: a room may use the rooms on its own floor's left and below, never above.
FLOORS: list[tuple[str, ...]] = [
    ("helpers",),
    ("accounts",),
    ("staff",),
    ("organizations", "events", "cards", "scoring", "payouts", "audit"),  # the engine
    ("ledger", "seasons", "push", "privacy", "payments"),
    ("house", "web", "api", "live"),  # the pages, the API and the live pages' sockets
    ("syndicate", "standby"),  # settings, entry points, the launcher and its standby copies
]
FLOOR = {room: level for level, rooms in enumerate(FLOORS) for room in rooms}
_MODEL_STRING = re.compile(r"""["']([a-z_]+)\.[A-Z][A-Za-z]+["']""")
_GET_MODEL = re.compile(r"""get_model\(\s*["']([a-z_]+)["']""")
_DEPENDENCY = re.compile(r"""\(\s*["']([a-z_]+)["']\s*,\s*["']\d{4}_""")


def rooms() -> list[str]:
    return sorted(p.parent.name for p in ROOT.glob("*/__init__.py") if p.parent.name != "tests")


def arrows() -> dict[tuple[str, str], list[str]]:
    """(from room, to room) -> the files that make the arrow."""
    known = set(rooms())
    found: dict[tuple[str, str], list[str]] = defaultdict(list)
    for room in known:
        for path in sorted((ROOT / room).rglob("*.py")):
            text = path.read_text()
            targets: set[str] = set()
            for node in ast.walk(ast.parse(text)):
                if isinstance(node, ast.Import):
                    targets |= {alias.name.split(".")[0] for alias in node.names}
                elif isinstance(node, ast.ImportFrom) and node.module and node.level == 0:
                    targets.add(node.module.split(".")[0])
            for pattern in (_MODEL_STRING, _GET_MODEL, _DEPENDENCY):
                targets |= set(pattern.findall(text))
            for target in targets & known - {room}:
                found[(room, target)].append(str(path.relative_to(ROOT)))
    return found


def circles(edges: set[tuple[str, str]]) -> list[list[str]]:
    """The strongly connected groups of more than one room (Tarjan)."""
    graph: dict[str, set[str]] = defaultdict(set)
    for a, b in edges:
        graph[a].add(b)
    index: dict[str, int] = {}
    low: dict[str, int] = {}
    stack: list[str] = []
    groups: list[list[str]] = []

    def visit(node: str) -> None:
        index[node] = low[node] = len(index)
        stack.append(node)
        for nxt in graph[node]:
            if nxt not in index:
                visit(nxt)
                low[node] = min(low[node], low[nxt])
            elif nxt in stack:
                low[node] = min(low[node], index[nxt])
        if low[node] == index[node]:
            group = []
            while True:
                top = stack.pop()
                group.append(top)
                if top == node:
                    break
            if len(group) > 1:
                groups.append(sorted(group))

    for node in sorted(graph):
        if node not in index:
            visit(node)
    return groups


def main() -> None:
    found = arrows()
    edges = set(found)
    climbs = [(a, b) for a, b in edges if FLOOR.get(b, 99) > FLOOR.get(a, 99)]
    print(
        f"rooms: {len(rooms())}  arrows: {len(edges)}  climbs back up: {len(climbs)}  "
        f"circles: {len(circles(edges))}"
    )
    for a, b in sorted(climbs):
        print(f"  climb {a} -> {b}: {', '.join(found[(a, b)][:4])}")
    for group in circles(edges):
        print(f"  circle: {' <-> '.join(group)}")
    if "--arrows" in sys.argv:
        for (a, b), files in sorted(found.items()):
            print(f"  {a} -> {b} ({len(files)} files)")


if __name__ == "__main__":
    main()
