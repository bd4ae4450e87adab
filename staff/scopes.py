"""The kinds of scope that have staff (an event, a series), as the layer owning each declares
them from its app's `ready()`: what an invitation to its staff says it is for. The staff layer
names none of them."""

from __future__ import annotations

from collections.abc import Callable
from dataclasses import dataclass
from typing import Any

from django.db.models import Model


@dataclass(frozen=True, slots=True)
class Scope:
    """The scope a staff change names: an event or a series, by its model and id (a retry names
    it the same way: `str(scope)` is what the idempotency fingerprint holds)."""

    model: type[Model]
    id: int

    @classmethod
    def of(cls, scope: Model) -> Scope:
        return cls(type(scope), int(scope.pk))

    def __str__(self) -> str:
        return f"{self.model._meta.label_lower}:{self.id}"


@dataclass(frozen=True, slots=True)
class ScopeKind:
    """One kind of scope: its model, and the words an invitation uses for one of them ("Ann's
    Friday (Friday 04 December 2026)", "the events of Thursday League at The Dock")."""

    model: type[Model]
    invitation_words: Callable[[Any], str]


_kinds: dict[type[Model], ScopeKind] = {}


def declare(kind: ScopeKind) -> None:
    _kinds[kind.model] = kind


def kind_of(scope: Model | None) -> ScopeKind:
    """The kind a scope is of (a scope deleted since: none, a KeyError)."""
    return _kinds[type(scope)]  # type: ignore[index]
