"""House resets a player's access: POST /api/registrations/{id}/access-reset/."""

from __future__ import annotations

import pytest

from audit.models import AuditEntry
from tests.api.support import Api, error
from tests.factories import make_table

pytestmark = pytest.mark.django_db


def test_it_ends_the_players_sessions_and_queues_a_reset_email(
    django_capture_on_commit_callbacks,
) -> None:
    table = make_table(players=2, start=True)
    player = table.players[0]
    kept_before = table.kept(player)
    signed_in = Api(player)
    assert signed_in.get(f"/api/events/{table.event.pk}/me/").status_code == 200
    with django_capture_on_commit_callbacks() as queued:
        response = Api(table.house).post(
            f"/api/registrations/{table.rid(player)}/access-reset/", {"reason": "Lost phone"}
        )
    assert response.status_code == 200
    assert response.json() == {"registration_id": table.rid(player)}
    assert error(signed_in.get(f"/api/events/{table.event.pk}/me/")) == (403, "not_allowed")
    assert table.kept(player) == kept_before
    entry = AuditEntry.objects.filter(event=table.event).order_by("-seq").first()
    assert entry is not None and (entry.action, entry.reason) == ("access_reset", "Lost phone")
    # The email goes out after the commit (with the live update), never inside the transaction.
    assert len(queued) >= 2


def test_it_needs_a_reason() -> None:
    table = make_table(players=2, start=True)
    response = Api(table.house).post(
        f"/api/registrations/{table.rid(table.players[0])}/access-reset/"
    )
    assert error(response) == (400, "reason_required")


def test_it_refuses_a_player() -> None:
    table = make_table(players=2, start=True)
    player = table.players[0]
    response = Api(player).post(
        f"/api/registrations/{table.rid(player)}/access-reset/", {"reason": "me"}
    )
    assert error(response) == (403, "not_allowed")
