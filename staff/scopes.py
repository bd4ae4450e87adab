"""The kinds of scope that have staff (an event, a series), as the layer owning each declares
them from its app's `ready()`: what an invitation to its staff says it is for. The staff layer
names none of them."""

from __future__ import annotations

from collections.abc import Callable
from dataclasses import dataclass
from typing import Any

from django.db.models import Model


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
