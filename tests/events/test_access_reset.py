"""`access_reset`: House ends a player's sessions and emails a reset; cards stay
(docs/rules.md section 8.5)."""

from __future__ import annotations

from functools import partial

import pytest
from django.contrib.sessions.models import Session
from django.test import Client

from events import services
from events.errors import NotAllowed, NotFound, ReasonRequired
from tests.events.support import last, play
from tests.factories import make_table
from tests.refusals import refused, snapshot


def _sessions_of(user) -> int:
    return sum(
        1
        for session in Session.objects.all()
        if session.get_decoded().get("_auth_user_id") == str(user.pk)
    )


@pytest.mark.django_db
def test_it_requires_a_reason_for_an_access_reset(mailoutbox, django_capture_on_commit_callbacks):
    """House records reasons for ... access resets."""
    table = make_table("league", players=2, start=True)
    player = table.players[0]
    Client().force_login(player)
    with django_capture_on_commit_callbacks(execute=True):
        error = refused(
            ReasonRequired,
            table.event,
            lambda: services.access_reset(
                registration_id=table.rid(player), by=table.house, reason=" "
            ),
        )
    assert error.status == 400
    assert _sessions_of(player) == 1
    assert mailoutbox == []


@pytest.mark.django_db
def test_it_ends_the_players_sessions(django_capture_on_commit_callbacks):
    """House can reset a player's access (send a password reset, end their sessions)."""
    table = make_table("league", players=2, start=True)
    player, other = table.players
    Client().force_login(player)
    Client().force_login(player)  # a phone and a laptop
    Client().force_login(other)
    with django_capture_on_commit_callbacks(execute=False):  # the email has its own test
        services.access_reset(
            registration_id=table.rid(player), by=table.house, reason="Lost phone."
        )
    assert _sessions_of(player) == 0
    assert _sessions_of(other) == 1


@pytest.mark.django_db
def test_it_sends_a_password_reset_email(mailoutbox, django_capture_on_commit_callbacks):
    """Use Forgot password on the sign-in page to recover access (House sends the reset)."""
    table = make_table("league", players=2, start=True)
    player = table.players[0]
    with django_capture_on_commit_callbacks(execute=True) as callbacks:
        services.access_reset(
            registration_id=table.rid(player), by=table.house, reason="Lost phone."
        )
        assert mailoutbox == []  # nothing is sent before the transaction commits
    assert callbacks
    assert len(mailoutbox) == 1
    message = mailoutbox[0]
    assert message.to == [player.email]
    assert "password" in message.subject.lower()
    assert "/accounts/password/reset/key/" in message.body


@pytest.mark.django_db
def test_it_leaves_cards_and_results_untouched(django_capture_on_commit_callbacks):
    """Resetting a password never touches cards or results ... to recover access without
    changing your cards."""
    table = make_table("league", players=2, start=True)
    player = table.players[0]
    play(table, player, "lw")
    before = snapshot(table.event.pk)
    with django_capture_on_commit_callbacks(execute=False):  # the email has its own test
        services.access_reset(
            registration_id=table.rid(player), by=table.house, reason="Lost phone."
        )
    after = snapshot(table.event.pk)
    for part in ("results", "offers", "cards", "shoes", "reviews"):
        assert after[part] == before[part], part
    assert [{k: v for k, v in r.items() if k != "version"} for r in after["registrations"]] == [
        {k: v for k, v in r.items() if k != "version"} for r in before["registrations"]
    ]
    entry = last(table.event, "access_reset")
    assert (entry.actor, entry.player, entry.reason) == (
        "House: House",
        table.registration(player).label,
        "Lost phone.",
    )
    assert entry.details == {}
    assert player.email not in str(entry.as_dict())


@pytest.mark.django_db
def test_it_lets_only_house_reset_access(mailoutbox, django_capture_on_commit_callbacks):
    """House can reset a player's access."""
    table = make_table("league", players=2, start=True)
    player, other = table.players
    with django_capture_on_commit_callbacks(execute=True):
        for by in (player, other):
            refused(
                (NotAllowed, NotFound),
                table.event,
                partial(
                    services.access_reset,
                    registration_id=table.rid(player),
                    by=by,
                    reason="Because.",
                ),
            )
    assert mailoutbox == []
