"""Live updates after a change commits (SPEC section 9)."""

from __future__ import annotations


def announce(*, event_id: int, registration_ids: list[int]) -> None:
    """Tell the event's live views that a change committed."""
