"""New rows written by hand-built SQL: an INSERT for a model instance, to embed in a statement."""

from __future__ import annotations

from collections.abc import Mapping
from typing import Any

from django.db import connection, models


def insert_statement(
    instance: models.Model, *, sql: Mapping[str, str] | None = None
) -> tuple[str, list[Any]]:
    """`INSERT INTO table (columns) VALUES (...)` for a new instance, and its parameters.

    Each column takes the instance's value, or, when that is empty, what `Model.save` would give
    it (a default, `auto_now_add`); `sql` gives some columns (by attribute name, "result_id") an
    SQL expression instead, such as the id an earlier part of the same statement inserted.
    """
    given = sql or {}
    fields = [f for f in instance._meta.concrete_fields if not f.primary_key]
    columns, values, params = [], [], []
    for field in fields:
        columns.append(connection.ops.quote_name(str(field.column)))
        if field.attname in given:
            values.append(given[field.attname])
            continue
        value = getattr(instance, field.attname)
        if value is None:
            value = field.pre_save(instance, True)
        values.append("%s")
        params.append(field.get_db_prep_save(value, connection))
    table = connection.ops.quote_name(instance._meta.db_table)
    return f"INSERT INTO {table} ({', '.join(columns)}) VALUES ({', '.join(values)})", params


def mark_saved(instance: models.Model, pk: int) -> None:
    """Mark an instance that hand-built SQL inserted as saved, as `Model.save` would."""
    instance.pk = pk
    instance._state.adding = False
    instance._state.db = connection.alias
