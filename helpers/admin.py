"""What every app's admin shares: read-only rows, and no way to a card not yet revealed.

Every ModelAdmin derives from `SecretsHiddenAdmin`: no URL parameter of the admin (a filter,
a search, an ordering) may reach a field that holds a card not yet revealed, since the answer
("1 dealt card", a row's place in a sorted list) would reveal it one guess at a time. A system
check refuses to start with an admin registered that does not derive from it, or that names such
a field in its filters, searches, orderings or columns.
"""

from __future__ import annotations

from collections.abc import Iterable
from typing import Any

from django.contrib import admin
from django.core import checks
from django.core.exceptions import FieldDoesNotExist
from django.db import models
from django.db.models.constants import LOOKUP_SEP
from django.http import HttpRequest

# Fields that hold a card face down or not yet dealt (the shoe's order, the seed that makes it).
# The admin shows them masked at most, and never lets a request filter, search or sort by them.
SECRET_FIELDS = frozenset(
    {("cards", "dealtcard", "card"), ("cards", "shoe", "order"), ("cards", "shuffle", "seed")}
)


def _field_named(model: type[models.Model], name: str) -> Any:
    try:
        return model._meta.get_field(name)
    except FieldDoesNotExist:
        # A reverse relation is queried by its related_query_name, which get_field may not know.
        for field in model._meta.get_fields():
            remote = getattr(field, "field", None)
            if field.auto_created and remote is not None and remote.related_query_name() == name:
                return field
        return None


def reaches_secret(model: type[models.Model], lookup: str) -> bool:
    """Whether a lookup path (`registration__dealt_cards__card__startswith`) reads a secret."""
    for part in lookup.lstrip("-").split(LOOKUP_SEP):
        field = _field_named(model, part)
        if field is None:
            return False
        if (model._meta.app_label, model._meta.model_name, field.name) in SECRET_FIELDS:
            return True
        related = getattr(field, "related_model", None)
        if not field.is_relation or related is None:
            return False
        model = related
    return False


class SecretsHiddenAdmin(admin.ModelAdmin):
    """No filter, search or ordering that reaches a card not yet revealed, whoever asks."""

    def lookup_allowed(self, lookup: str, value: str, request: HttpRequest) -> bool:
        if reaches_secret(self.model, lookup):
            return False  # the changelist answers 400, the same whatever the card
        return super().lookup_allowed(lookup, value, request)

    def get_search_fields(self, request: HttpRequest) -> list[str]:
        return [
            name
            for name in super().get_search_fields(request)
            if not reaches_secret(self.model, name.lstrip("^=@"))
        ]

    def get_ordering(self, request: HttpRequest) -> list[Any]:
        return [
            name
            for name in super().get_ordering(request)
            if not isinstance(name, str) or not reaches_secret(self.model, name)
        ]


class ReadOnlyAdmin(SecretsHiddenAdmin):
    """Rows that only the services may change: visible, never edited here."""

    def has_add_permission(self, request, obj=None):  # type: ignore[no-untyped-def]
        return False

    def has_change_permission(self, request, obj=None):  # type: ignore[no-untyped-def]
        return False

    def has_delete_permission(self, request, obj=None):  # type: ignore[no-untyped-def]
        return False


def _named_paths(model_admin: admin.ModelAdmin) -> Iterable[str]:
    """Every field path an admin filters, searches, sorts or shows by."""
    for item in model_admin.list_filter:
        if isinstance(item, str):
            yield item
        elif isinstance(item, list | tuple):
            yield str(item[0])
        else:
            yield str(getattr(item, "parameter_name", ""))
    for name in model_admin.search_fields:
        yield name.lstrip("^=@")
    yield from (name for name in model_admin.ordering or () if isinstance(name, str))
    yield from (name for name in model_admin.sortable_by or () if isinstance(name, str))
    if model_admin.date_hierarchy:
        yield model_admin.date_hierarchy
    for column in model_admin.list_display:
        attribute: Any = column
        if isinstance(column, str):
            yield column
            attribute = getattr(model_admin, column, None)
        order_field = getattr(attribute, "admin_order_field", None)
        if isinstance(order_field, str):
            yield order_field
    for name in (*(model_admin.fields or ()), *model_admin.readonly_fields):
        if isinstance(name, str):
            yield name


@checks.register(checks.Tags.security)
def admins_hide_secrets(app_configs: Any, **kwargs: Any) -> list[checks.CheckMessage]:
    return secrets_check(admin.site)


def secrets_check(site: admin.AdminSite) -> list[checks.CheckMessage]:
    """Every registered admin derives from SecretsHiddenAdmin and names no secret field."""
    problems: list[checks.CheckMessage] = []
    for model, model_admin in site._registry.items():
        label = model._meta.label
        if not isinstance(model_admin, SecretsHiddenAdmin):
            problems.append(
                checks.Error(
                    f"The admin of {label} does not derive from SecretsHiddenAdmin.",
                    hint="Derive it from helpers.admin.SecretsHiddenAdmin (or ReadOnlyAdmin).",
                    obj=model_admin,
                    id="syndicate.E101",
                )
            )
        for path in _named_paths(model_admin):
            if path and reaches_secret(model, path):
                problems.append(
                    checks.Error(
                        f"The admin of {label} names {path!r}, a card that may be face down.",
                        hint="Show it through a method that masks it while face down.",
                        obj=model_admin,
                        id="syndicate.E102",
                    )
                )
    return problems
