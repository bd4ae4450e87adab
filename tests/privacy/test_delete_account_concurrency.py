"""An account deleted while its season night is being finalized, with real threads and real
transactions: whichever commits first, the night counts in its season with the player under
their neutral label, and the season still verifies (privacy/services.py, seasons/standings.py).
`transaction=True`: the services' durable transactions commit, each thread on its own
connection."""

from __future__ import annotations

import threading
from collections.abc import Callable
from typing import Any

import pytest
from django.db import connection

from accounts.models import User
from events import services
from privacy.services import delete_account
from seasons.models import FormerPlayer, SeasonResult, SeasonStanding
from tests.privacy.support import season_verifies, series_night
from tests.seasons.support import make_league

pytestmark = pytest.mark.django_db(transaction=True)


@pytest.fixture(autouse=True)
def _settings(settings: Any) -> None:
    # Live updates are tested elsewhere; their background thread would outlive the test.
    settings.LIVE_UPDATES = "off"


def at_once(calls: list[Callable[[], object]]) -> list[object]:
    """Run each call in its own thread, all released together; answers or exceptions, in order."""
    barrier = threading.Barrier(len(calls))
    outcomes: list[object] = [None] * len(calls)

    def run(index: int, call: Callable[[], object]) -> None:
        try:
            connection.ensure_connection()
            barrier.wait(timeout=60)
            outcomes[index] = call()
        except BaseException as error:  # handed to the test thread, which asserts on it
            outcomes[index] = error
        finally:
            connection.close()

    threads = [
        threading.Thread(target=run, args=(i, call), daemon=True) for i, call in enumerate(calls)
    ]
    for thread in threads:
        thread.start()
    for thread in threads:
        thread.join(timeout=120)
    assert not any(thread.is_alive() for thread in threads), "a thread is still running"
    return outcomes


def test_a_deletion_racing_its_season_nights_finalization_keeps_the_season_verifying():
    league = make_league(players=3)
    ann, bob, cy = league.players
    league.open_season()
    league.night(0, league.players, seed=5)
    table = series_night(league, week=1)
    for player in (ann, bob, cy):
        table.players.append(player)
        table.register(player)
        table.check_in(player)
    table.start()
    table.refresh()
    for player in (ann, bob, cy):
        table.play_out(player)
    services.pool_confirm(event_id=table.event.pk, by=table.house)

    outcomes = at_once(
        [
            lambda: services.event_finalize(event_id=table.event.pk, by=table.house),
            lambda: delete_account(user=ann),
        ]
    )

    assert not [o for o in outcomes if isinstance(o, BaseException)], outcomes
    assert not User.objects.filter(pk=ann.pk).exists()
    former = FormerPlayer.objects.get()
    assert SeasonResult.objects.filter(event=table.event).count() == 3
    assert SeasonResult.objects.filter(former=former).count() == 2
    assert not SeasonResult.objects.filter(player__isnull=True, former__isnull=True).exists()
    assert SeasonStanding.objects.get(former=former).events == 2
    season_verifies(league)
