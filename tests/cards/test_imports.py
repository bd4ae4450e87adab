"""The house without circles: no module of the project imports itself through others; `cards`
knows nothing of `events`; the engine knows nothing of the layers on top of it (live pages, Poker
push, the pages and the API); and the engine's read modules do not import the modules that change
state.

Imports are read from the source with `ast`, wherever the statement is: a function-local import
only hides a cycle. (The project has no `if TYPE_CHECKING:` imports; none is excluded.)"""

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
    return ".".join(path.relative_to(ROOT).with_suffix("").parts).removesuffix(".__init__")


def project_modules() -> dict[str, Path]:
    """Every module of the project's packages (the folders with an `__init__.py`), tests aside."""
    packages = [init.parent for init in ROOT.glob("*/__init__.py") if init.parent.name != "tests"]
    return {module_name(path): path for package in packages for path in package.rglob("*.py")}


def imports_of(modules: dict[str, Path], layers: tuple[str, ...]) -> set[tuple[str, str]]:
    """(module, what it imports) for each import of any of `layers` by `modules`."""
    return {
        (name, target)
        for name, path in modules.items()
        for target in imported(path)
        if target.split(".")[0] in layers
    }


def test_cards_imports_nothing_from_events() -> None:
    files = sorted((ROOT / "cards").rglob("*.py"))
    assert len(files) > 5  # models, stock, shuffle, names, admin, migrations

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
    reads = ["events.store", "events.progress", "events.changes", *models]

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
    for name in models:
        assert "events.lifecycle" not in reachable(name), f"{name} reaches the state changes"
    assert "events.runner" not in reachable("events.changes")
    assert not any(target.startswith("events.") for target in reachable("cards.models"))


def test_the_engine_imports_nothing_from_the_layers_on_top_of_it() -> None:
    """`live` and `push` listen to the engine (events.changes) and the pages and the API call its
    services; the engine never reaches into any of them."""
    engine = {name: path for name, path in project_modules().items() if name.startswith("events.")}
    assert "events.play" in engine
    layers = ("live", "push", "web", "house", "api", "seasons", "ledger", "privacy")
    assert imports_of(engine, layers) == set()


def test_the_pages_import_nothing_from_the_api() -> None:
    """The request bodies live beside the services they feed (`events.request_bodies`), so the
    player pages and House's pages share them with the API without importing it."""
    pages = {
        name: path
        for name, path in project_modules().items()
        if name.startswith(("web.", "house."))
    }
    assert "web.views" in pages and "house.views" in pages
    assert imports_of(pages, ("api",)) == set()


def test_no_module_of_the_project_imports_itself_through_others() -> None:
    """The whole project's import graph, function-local imports included, has no cycle."""
    modules = project_modules()
    assert {"events.changes", "push.tasks", "live.delivery", "api.views"} <= modules.keys()
    graph = {
        name: sorted({target for target in imported(path) if target in modules} - {name})
        for name, path in modules.items()
    }
    done: set[str] = set()

    def visit(name: str, path: tuple[str, ...]) -> None:
        assert name not in path, " -> ".join((*path[path.index(name) :], name))
        if name not in done:
            for target in graph[name]:
                visit(target, (*path, name))
            done.add(name)

    for name in sorted(graph):
        visit(name, ())
