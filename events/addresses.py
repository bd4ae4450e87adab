"""The addresses of the pages the engine's answers and reads carry: a display link's page, the
self check-in page and the venue's board. The pages are a layer on top of the engine, which
installs them from its app's `ready()` (web/apps.py, `use_addresses`): the engine names none of
its URLs."""

from __future__ import annotations

from collections.abc import Callable
from dataclasses import dataclass


@dataclass(frozen=True, slots=True)
class Addresses:
    # A display link's page, from its token (`/display/<token>/`).
    display: Callable[[str], str]
    # The page a player checks in at, from the event's id (`/events/<id>/check-in`).
    self_check_in: Callable[[int], str]
    # The venue's board a projector shows, from the event's id and its signed token.
    board_venue: Callable[[int, str], str]


_installed: list[Addresses] = []


def use_addresses(addresses: Addresses) -> None:
    _installed[:] = [addresses]


def addresses() -> Addresses:
    """The installed addresses; without the pages installed, there is no address to give."""
    if not _installed:
        raise LookupError("No pages are installed to give the engine's addresses.")
    return _installed[0]
