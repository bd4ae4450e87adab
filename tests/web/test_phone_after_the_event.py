"""The player's page once the event is final: the winners, the player's own result and the final
page's link, in the first render and in the panel pushed at finalization; House's announcements
are no longer pinned."""

from __future__ import annotations

import pytest
from django.test import Client
from django.urls import reverse

from events import services
from events.models import Registration
from events.reads.final import final_results
from events.reads.player import player_state, player_states
from live.fragments import player_html
from tests.events.support import complete_table, finalized_table
from web.templatetags.player_page import ordinal


def winners_as_the_final_page_has_them(table) -> dict[str, list[tuple[str, str, int]]]:
    results = final_results(table.refresh())
    assert results is not None
    return {
        side: [(w.player, w.description, w.prize) for w in getattr(results.winners, side)]
        for side in ("high", "low")
    }


@pytest.mark.django_db
def test_the_read_model_carries_the_winners_once_final():
    table = complete_table("league", players=3)
    assert player_state(table.registration(table.players[0])).winners is None
    services.pool_confirm(event_id=table.event.pk, by=table.house)
    services.event_finalize(event_id=table.event.pk, by=table.house)
    me = player_state(table.registration(table.players[0]))
    assert me.winners is not None
    shown = {
        side: [(w.player, w.description, w.prize) for w in getattr(me.winners, side)]
        for side in ("high", "low")
    }
    assert shown == winners_as_the_final_page_has_them(table)
    assert all(len(w.cards) == 5 for side in ("high", "low") for w in getattr(me.winners, side))
    # The winners are the same for every player, read once for a batch.
    registrations = list(Registration.objects.filter(event=table.event).select_related("event"))
    together = player_states(registrations)
    assert {pk: s.winners for pk, s in together.items()} == {
        r.pk: me.winners for r in registrations
    }


@pytest.mark.django_db
def test_the_final_phone_shows_the_winners_its_own_result_and_the_final_page(client: Client):
    table = finalized_table("league", players=3)
    player = table.players[0]
    registration = table.registration(player)
    client.force_login(player)
    first = client.get(reverse("web:event", args=[table.event.pk])).content.decode()
    pushed = player_html(table.event, player_state(registration))
    for page in (first, pushed):
        assert "data-final-results" in page
        own = f"High {ordinal(registration.high_place)} · Low {ordinal(registration.low_place)}"
        assert own in page
        assert (f"Award: <strong>${registration.award}</strong>" in page) == bool(
            registration.award
        )
        for side in winners_as_the_final_page_has_them(table).values():
            for label, description, _ in side:
                assert label in page and description in page
        assert reverse("web:board_final", args=[table.event.pk]) in page


@pytest.mark.django_db
def test_announcements_are_shown_while_the_event_is_not_final(client: Client):
    table = complete_table("league", players=2)
    services.announcement_send(event_id=table.event.pk, by=table.house, text="Last call at 11")
    client.force_login(table.players[0])
    page = client.get(reverse("web:event", args=[table.event.pk])).content.decode()
    assert "Last call at 11" in page
    services.pool_confirm(event_id=table.event.pk, by=table.house)
    services.event_finalize(event_id=table.event.pk, by=table.house)
    page = client.get(reverse("web:event", args=[table.event.pk])).content.decode()
    assert "Last call at 11" not in page
    assert 'id="announcements"' in page  # the (hidden) section stays for the page's script
