"""The push modules import one another in one direction: tasks use reminders, never the reverse."""

from __future__ import annotations

import ast
from pathlib import Path

import push

PACKAGE = Path(push.__file__).parent


def imported(module: Path) -> set[str]:
    """The push modules a module imports anywhere in it, function bodies included."""
    names: set[str] = set()
    for node in ast.walk(ast.parse(module.read_text())):
        if isinstance(node, ast.Import):
            names.update(alias.name for alias in node.names)
        elif isinstance(node, ast.ImportFrom) and node.module:
            names.add(node.module)
            names.update(f"{node.module}.{alias.name}" for alias in node.names)
    return {name for name in names if name.startswith("push.") and name.count(".") == 1}


def test_the_push_modules_import_no_cycle() -> None:
    graph = {f"push.{path.stem}": imported(path) for path in PACKAGE.glob("*.py")}
    graph = {module: uses & graph.keys() - {module} for module, uses in graph.items()}
    assert "push.reminders" in graph["push.tasks"]
    done: set[str] = set()

    def visit(module: str, path: tuple[str, ...]) -> None:
        assert module not in path, " -> ".join((*path, module))
        if module not in done:
            for used in graph[module]:
                visit(used, (*path, module))
            done.add(module)

    for module in graph:
        visit(module, ())
