"""The house without circles: no module of the project imports itself through others; `cards`
knows nothing of `events`; the engine knows nothing of the layers on top of it (live pages, Poker
push, the pages and the API); and the engine's read modules do not import the modules that change
state.

Imports are read from the source with `ast`, wherever the statement is: a function-local import
only hides a cycle. (The project has no `if TYPE_CHECKING:` imports; none is excluded.)"""

from __future__ import annotations

import ast
import re
from collections.abc import Iterator
from importlib import import_module
from pathlib import Path

from django.apps import apps as django_apps
from django.db import migrations as migrations_ops
from django.db import models as django_models
from django.db.migrations.loader import MigrationLoader

from staff.models import Membership

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


def project_imports(path: Path) -> Iterator[str]:
    """The modules of the project a file imports: `from syndicate import embedded` names
    `syndicate.embedded`, `import syndicate` the package itself."""
    for node in ast.walk(ast.parse(path.read_text(), filename=str(path))):
        if isinstance(node, ast.Import):
            yield from (alias.name for alias in node.names)
        elif isinstance(node, ast.ImportFrom) and node.module and node.level == 0:
            if node.module == "syndicate":
                yield from (f"syndicate.{alias.name}" for alias in node.names)
            else:
                yield node.module


# What an app may take from the project package (`syndicate/`, settings, URLs and entry points):
# only these, each importable without Django settings.
SETTINGS_FREE_ENTRY_POINTS = {
    # The embedded PostgreSQL and Valkey: `make run`, `make test` and `manage.py` start them, and
    # it runs on its own (`python -m syndicate.embedded stop`); the standby copies (`standby/`)
    # drive those same servers (their programs, their data folder, their faults).
    "syndicate.embedded",
}


def test_no_app_imports_the_project_package_but_its_settings_free_entry_points() -> None:
    """The helpers every layer uses are on the ground floor (`helpers/`), query parsing beside
    the engine's errors (`events/query.py`): nothing climbs to the project package for them."""
    apps = {n: p for n, p in project_modules().items() if n.split(".")[0] != "syndicate"}
    assert {"api.throttles", "helpers.forms", "standby.restore", "cards.admin"} <= apps.keys()

    climbs = {
        (name, target)
        for name, path in apps.items()
        for target in project_imports(path)
        if target.split(".")[0] == "syndicate"
        and not any(
            target == allowed or target.startswith(f"{allowed}.")
            for allowed in SETTINGS_FREE_ENTRY_POINTS
        )
    }

    assert climbs == set()


def test_the_ground_floor_imports_nothing_from_the_project() -> None:
    modules = project_modules()
    ground = {name: path for name, path in modules.items() if name.split(".")[0] == "helpers"}
    assert {"helpers.admin", "helpers.files", "helpers.refusals"} <= ground.keys()
    packages = {name.split(".")[0] for name in modules} - {"helpers"}

    assert imports_of(ground, tuple(packages)) == set()


def _socket_sends(path: Path) -> Iterator[str]:
    """Each `group_send`, and each `send` on a channel layer, a file names (called or handed on)."""
    for node in ast.walk(ast.parse(path.read_text(), filename=str(path))):
        if isinstance(node, ast.Attribute) and (
            node.attr == "group_send"
            or (node.attr == "send" and "layer" in ast.unparse(node.value))
        ):
            yield f"{path.relative_to(ROOT)}:{node.lineno}"


def test_no_module_but_the_live_protocol_sends_to_a_group_of_sockets() -> None:
    """Every message to a group of sockets leaves through `live.protocol` (`send_to_group`,
    `send_in_order`, `send_on`); the engine and the accounts are handed its sender by
    `live.apps`. The benchmarks included."""
    modules = project_modules()
    bench = {path.stem: path for path in (ROOT / "bench").rglob("*.py")}
    sends = [
        where
        for name, path in sorted({**modules, **bench}.items())
        if name != "live.protocol"
        for where in _socket_sends(path)
    ]

    assert sends == []
    assert list(_socket_sends(modules["live.protocol"]))


# The layers on top of the engine, and the engine's apps (`events`, `cards`, `scoring`, `payouts`,
# `audit`), which name none of them, even by a string.
LAYERS_ABOVE = ("seasons", "ledger", "privacy", "live", "push", "web", "house", "api")
ENGINE = ("events", "cards", "scoring", "payouts", "audit")
# Django's lookups of an app or a model by its label.
LOOKUPS = {"get_model", "get_app_config", "get_containing_app_config", "is_installed"}
# A table or a model label of a layer above that keeps data, as a migration writes them
# ("seasons.series", "seasons_seriesevent", "ledger_line"). The pages, the API and the live
# updates keep none ("house_events" is the name of a relation of the engine's own).
KEEPING_DATA = ("seasons", "ledger", "privacy", "push")
ABOVE_IN_MIGRATIONS = re.compile(rf"\b(?:{'|'.join(KEEPING_DATA)})[._][a-z]", re.IGNORECASE)


def string_lookups(source: str) -> Iterator[tuple[str | None, str | None, str]]:
    """(class, field, label) for each string that names a layer above: an argument of an app or
    model lookup (`apps.get_model("seasons", "Series")`), or a model's label anywhere
    ("seasons.Series", as a related field takes it), with the class and field it defines."""
    tree = ast.parse(source)
    places: dict[ast.AST, tuple[str | None, str | None]] = {}
    for klass in (node for node in ast.walk(tree) if isinstance(node, ast.ClassDef)):
        for statement in klass.body:
            if isinstance(statement, ast.Assign | ast.AnnAssign):
                targets = (
                    statement.targets if isinstance(statement, ast.Assign) else [statement.target]
                )
                field = next((t.id for t in targets if isinstance(t, ast.Name)), None)
                for inner in ast.walk(statement):
                    places[inner] = (klass.name, field)
    for node in ast.walk(tree):
        if isinstance(node, ast.Call):
            called = node.func.attr if isinstance(node.func, ast.Attribute) else None
            called = called or (node.func.id if isinstance(node.func, ast.Name) else None)
            if called in LOOKUPS:
                for argument in node.args:
                    label = argument.value if isinstance(argument, ast.Constant) else None
                    if isinstance(label, str) and label.split(".")[0] in LAYERS_ABOVE:
                        yield (*places.get(node, (None, None)), label)
        elif isinstance(node, ast.Constant) and isinstance(node.value, str):
            app, dot, model = node.value.partition(".")
            if app in LAYERS_ABOVE and dot and model.isidentifier() and model[:1].isupper():
                yield (*places.get(node, (None, None)), node.value)


def test_the_finder_of_string_lookups_finds_a_model_named_by_its_label() -> None:
    old = 'def roles():\n    return apps.get_model("seasons", "SeriesStaff")\n'
    field = 'class Event:\n    series = models.ForeignKey("seasons.Series", null=True)\n'
    engine_own = 'apps.get_model("events", "Event")\nx = "seasons are long"\n'

    assert list(string_lookups(old)) == [(None, None, "seasons")]
    assert list(string_lookups(field)) == [("Event", "series", "seasons.Series")]
    assert list(string_lookups(engine_own)) == []


def test_the_engine_names_no_layer_above_it_in_a_string_lookup() -> None:
    """The layer above hooks itself into the engine in its AppConfig.ready (`events.changes.
    subscribe`, `events.check_in.use_ledger`, `events.runner.use_scope_above`); the engine looks
    none of it up by label, not even in a model's field (an event's series is the seasons
    layer's: `seasons.models.SeriesEvent`). Migrations: below."""
    engine = {
        name: path
        for name, path in project_modules().items()
        if name.split(".")[0] in ENGINE and ".migrations." not in name
    }
    assert {"events.runner", "scoring.evaluator", "payouts.allocation", "audit.verify"} <= {*engine}

    found = {
        (name, klass, field, label)
        for name, path in engine.items()
        for klass, field, label in string_lookups(path.read_text())
    }

    assert found == set()


def test_the_engines_models_relate_to_nothing_above_it() -> None:
    """Every field of the engine's models (relations, generic ones included) points at the
    engine, or below it (accounts, the staff layer, Django's content types)."""
    fields = [
        (model.__name__, field.name, field.related_model)
        for config in django_apps.get_app_configs()
        if config.label in ENGINE
        for model in config.get_models()
        for field in (*model._meta.fields, *model._meta.many_to_many, *model._meta.private_fields)
        if field.related_model is not None
    ]
    assert ("Event", "staff", Membership) in fields

    above = {
        (model, field, related._meta.label)
        for model, field, related in fields
        if not isinstance(related, str) and related._meta.app_label in LAYERS_ABOVE
    }

    assert above == set()


def _strings(value: object) -> Iterator[str]:
    """Every string an operation is made of: its arguments, its fields' and their arguments."""
    if isinstance(value, str):
        yield value
    elif isinstance(value, dict):
        for key, item in value.items():
            yield from _strings(key)
            yield from _strings(item)
    elif isinstance(value, list | tuple | set | frozenset):
        for item in value:
            yield from _strings(item)
    elif not isinstance(value, type) and hasattr(value, "deconstruct"):
        yield from _strings(value.deconstruct()[1:])


def _source(module: str) -> str:
    return Path(import_module(module).__file__ or "").read_text()


def test_the_engines_migrations_name_no_layer_above_it() -> None:
    """The migration graph runs one way: no migration of the engine depends on a layer above,
    nor names one of its models or tables in an operation (a field, raw SQL) or a lookup
    (`apps.get_model("seasons", ...)` in a data migration). An event's series moved to the
    seasons layer's own table in a seasons migration (0008)."""
    loader = MigrationLoader(None, ignore_no_migrations=True)
    migrations = {
        key: migration for key, migration in loader.disk_migrations.items() if key[0] in ENGINE
    }
    assert ("events", "0007_event_series") in migrations

    depends = {
        (key, dependency)
        for key, migration in migrations.items()
        for dependency in migration.dependencies
        if dependency[0] in LAYERS_ABOVE
    }
    named = {
        (key, text[:60])
        for key, migration in migrations.items()
        for operation in migration.operations
        for text in _strings(operation.deconstruct()[1:])
        if ABOVE_IN_MIGRATIONS.search(text)
    }
    looked_up = {
        (key, label)
        for key, migration in migrations.items()
        for _, _, label in string_lookups(_source(migration.__module__))
    }

    assert depends == set()
    assert named == set()
    assert looked_up == set()


def test_the_finder_of_names_in_migrations_finds_a_field_and_a_table() -> None:
    field = migrations_ops.AddField(
        "event",
        "series",
        django_models.ForeignKey("seasons.series", on_delete=django_models.PROTECT),
    )
    sql = migrations_ops.RunSQL("UPDATE events_event SET x = 1 FROM ledger_line")
    own = migrations_ops.RunSQL("SELECT 1 FROM events_event WHERE phase = 'started'")

    assert [t for t in _strings(field.deconstruct()[1:]) if ABOVE_IN_MIGRATIONS.search(t)] == [
        "seasons.series"
    ]
    assert [t for t in _strings(sql.deconstruct()[1:]) if ABOVE_IN_MIGRATIONS.search(t)]
    assert not [t for t in _strings(own.deconstruct()[1:]) if ABOVE_IN_MIGRATIONS.search(t)]


def test_the_engine_names_no_url_of_a_layer_above_it() -> None:
    """The addresses of the pages the engine's answers carry are installed by the pages
    (`events.addresses.use_addresses`, from web/apps.py): no engine module reverses a URL name
    of a layer above ("web:display")."""
    engine = {
        name: path
        for name, path in project_modules().items()
        if name.split(".")[0] in ENGINE and ".migrations." not in name
    }
    url_name = re.compile(rf"^(?:{'|'.join(LAYERS_ABOVE)}):\w+$")

    found = {
        (name, node.value)
        for name, path in engine.items()
        for node in ast.walk(ast.parse(path.read_text()))
        if isinstance(node, ast.Constant)
        and isinstance(node.value, str)
        and url_name.match(node.value)
    }

    assert found == set()
