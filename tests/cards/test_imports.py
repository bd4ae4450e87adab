"""The house without circles: `cards` knows nothing of `events`, and the engine's read modules do
not import the modules that change state."""

from __future__ import annotations

import ast
from collections.abc import Iterator
from pathlib import Path

ROOT = Path(__file__).resolve().parents[2]


def imported(path: Path) -> Iterator[str]:
    """Every module a file imports, wherever the import statement is (functions included)."""
    for node in ast.walk(ast.parse(path.read_text(), filename=str(path))):
        if isinstance(node, ast.Import):
            yield from (alias.name for alias in node.names)
        elif isinstance(node, ast.ImportFrom) and node.module and node.level == 0:
            yield node.module
            yield from (f"{node.module}.{alias.name}" for alias in node.names)


def module_name(path: Path) -> str:
    return ".".join(path.relative_to(ROOT).with_suffix("").parts)


def test_cards_imports_nothing_from_events() -> None:
    files = sorted((ROOT / "cards").rglob("*.py"))
    assert len(files) > 5  # models, dealing, shuffle, names, admin, migrations

    found = {
        (module_name(path), name)
        for path in files
        for name in imported(path)
        if name == "events" or name.startswith("events.")
    }

    assert found == set()


def test_the_engines_modules_import_one_another_without_a_cycle() -> None:
    """Follows every import between the modules of `events` and `cards`, function-local ones
    included (a local import only hides a cycle)."""
    paths = [
        *(ROOT / "events").glob("*.py"),
        *(ROOT / "events" / "reads").glob("*.py"),
        *(ROOT / "cards").glob("*.py"),
    ]
    modules = {module_name(path): path for path in paths}
    graph = {
        name: {target for target in imported(path) if target in modules and target != name}
        for name, path in modules.items()
    }
    models = [
        "events.reads.common",
        "events.reads.board",
        "events.reads.player",
        "events.reads.final",
    ]
    reads = ["events.store", "events.progress", "events.snapshots", "events.changes", *models]

    def reachable(start: str) -> set[str]:
        seen: set[str] = set()
        todo = [start]
        while todo:
            for target in graph[todo.pop()]:
                if target not in seen:
                    seen.add(target)
                    todo.append(target)
        return seen

    for name in reads:
        assert name not in reachable(name), f"{name} imports itself through others"
    for name in ["events.snapshots", *models]:
        assert "events.lifecycle" not in reachable(name), f"{name} reaches the state changes"
    assert "events.runner" not in reachable("events.changes")
    assert not any(target.startswith("events.") for target in reachable("cards.models"))


def test_the_engine_imports_nothing_from_live_pages() -> None:
    """`live` listens to the engine (events.changes); the engine never reaches into `live`."""
    found = {
        (module_name(path), target)
        for path in sorted((ROOT / "events").rglob("*.py"))
        for target in imported(path)
        if target == "live" or target.startswith("live.")
    }
    assert found == set()
