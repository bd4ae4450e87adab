"""The one owner of players' data: each app declares, in its `personal_data.py`, what it keeps
about an account, how the data download shows it and how a deletion erases or relabels it
(docs/decisions.md, "Players' data"). The download and the deletion walk this registry; a model
that points at the user model without a handler that covers it fails the tests.
"""

from __future__ import annotations

from collections.abc import Callable
from dataclasses import dataclass, field
from enum import IntEnum
from typing import Any

from django.db.models import Model

from accounts.models import User


class Stage(IntEnum):
    """When a handler erases, within the deletion's one transaction."""

    # The account's places in events take neutral labels (the chains are written first).
    RELABEL = 1
    # Everything that follows a registration's label (season rows) or simply goes.
    FOLLOW = 2


@dataclass
class Erasure:
    """One account's deletion in progress, shared by the handlers in stage order."""

    user: User
    # The neutral label each of the account's registrations took, by registration id, and the
    # registration's event: season rows follow them.
    labels: dict[int, str] = field(default_factory=dict)
    events: dict[int, int] = field(default_factory=dict)
    # The account's sessions ended.
    sessions: int = 0


@dataclass(frozen=True, slots=True)
class Handler:
    """What one app keeps about an account.

    `export` gives the download's section `name`; `erase` removes or relabels it, inside the
    deletion's transaction, before the account row itself goes. `models` are the app's models
    that point at the user model (the test of the registry checks every such model is here).
    """

    name: str
    models: tuple[type[Model], ...]
    export: Callable[[User], Any]
    erase: Callable[[Erasure], None]
    stage: Stage = Stage.FOLLOW


_handlers: dict[str, Handler] = {}


def register(handler: Handler) -> Handler:
    """Declare an app's handler (from its `personal_data.py`); a name is declared once."""
    if handler.name in _handlers and _handlers[handler.name] != handler:
        raise ValueError(f"Two handlers of players' data are named {handler.name!r}.")
    _handlers[handler.name] = handler
    return handler


def handlers() -> list[Handler]:
    """Every declared handler, in the order a deletion runs them."""
    return sorted(_handlers.values(), key=lambda handler: handler.stage)


def sections() -> list[Handler]:
    """Every declared handler, in the order the download shows them (as declared)."""
    return list(_handlers.values())


def covered() -> set[type[Model]]:
    """The models some handler declares."""
    return {model for handler in _handlers.values() for model in handler.models}


def nothing(erasure: Erasure) -> None:
    """An erasure with nothing to do before the account row goes (its rows go with it)."""
