"""Rows written by hand-built SQL: INSERTs and per-row UPDATEs of model instances, to embed in a
statement that also does other work (one round trip instead of several)."""

from __future__ import annotations

from collections.abc import Iterable, Mapping, Sequence
from typing import Any

from django.db import connection, models


def insert_statement(
    instances: Sequence[models.Model], *, sql: Mapping[str, str] | None = None
) -> tuple[str, list[Any]]:
    """`INSERT INTO table (columns) VALUES (...), ...` for new instances of one model, and its
    parameters: each column as `Model.save` would write it (defaults, `auto_now_add`).

    `sql` gives some columns (by attribute name, "result_id") an SQL expression instead, such as
    the id an earlier part of the same statement inserted.
    """
    given = sql or {}
    meta = instances[0]._meta
    fields = [f for f in meta.concrete_fields if not f.primary_key]
    columns = ", ".join(connection.ops.quote_name(str(f.column)) for f in fields)
    rows, params = [], []
    for instance in instances:
        values = []
        for field in fields:
            if field.attname in given:
                values.append(given[field.attname])
            else:
                values.append("%s")
                value = field.pre_save(instance, True)
                params.append(field.get_db_prep_save(value, connection))
        rows.append(f"({', '.join(values)})")
    table = connection.ops.quote_name(meta.db_table)
    return f"INSERT INTO {table} ({columns}) VALUES {', '.join(rows)}", params


def assignments(
    changed: Iterable[tuple[models.Model, Sequence[str]]],
) -> tuple[str, list[Any]]:
    """`column = CASE id WHEN ... END, ...` setting each instance's named fields in one UPDATE
    of their table, and the parameters; rows not named keep their values."""
    by_field: dict[str, list[models.Model]] = {}
    for instance, names in changed:
        for name in names:
            by_field.setdefault(name, []).append(instance)
    clauses, params = [], []
    for name, instances in by_field.items():
        field = instances[0]._meta.get_field(name)
        assert isinstance(field, models.Field)
        column = connection.ops.quote_name(str(field.column))
        whens = " WHEN %s THEN %s" * len(instances)
        clauses.append(f"{column} = CASE id{whens} ELSE {column} END")
        for instance in instances:
            value = getattr(instance, field.attname)
            params += [instance.pk, field.get_db_prep_save(value, connection)]
    return ", ".join(clauses), params


def mark_saved(instance: models.Model, pk: int) -> None:
    """Mark an instance that hand-built SQL inserted as saved, as `Model.save` would."""
    instance.pk = pk
    instance._state.adding = False
    instance._state.db = connection.alias
