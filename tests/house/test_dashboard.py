"""The House dashboard: header, check-in, start preview, players table, checklist.

House never sees a face-down card.
"""

from __future__ import annotations

import datetime
import re
import zoneinfo

import pytest
from django.utils import timezone

from cards.models import DealtCard, Offer
from cards.names import card_face, card_name
from events import services
from events.progress import Blocker
from house.read_model import check_items, reviews
from house.selectors import NotedCard
from tests.factories import make_table, make_user
from tests.house.support import house_client, url


def content(response) -> str:
    return response.content.decode()


@pytest.mark.django_db
def test_it_shows_phase_registration_counts_and_pool(client):
    table = make_table("league", players=3, contribution=10)
    late = make_user("Late Larry")
    table.register(late)
    response = house_client(client, table).get(url("dashboard", table.event.pk))
    assert response.status_code == 200
    page = content(response)
    assert "Open registration" not in page  # registration is open: the switch offers to close
    assert "Close registration" in page
    assert re.search(r"<strong>3</strong> Checked in", page)
    assert re.search(r"<strong>1</strong> Registered", page)
    assert "$40" in page and "Provisional" in page
    assert "Published when the event starts." in page
    assert f'data-live-socket="/ws/events/{table.event.pk}/house/"' in page
    assert f'hx-get="{url("dashboard_partial", table.event.pk)}"' in page


@pytest.mark.django_db
def test_it_previews_the_stock_before_the_start(client):
    table = make_table("league", players=5, extra_decks=1)
    page = content(house_client(client, table).get(url("dashboard", table.event.pk)))
    # League reserves 15 per place: ceil(5 x 15 / 52) + 1 = 3 decks; floor(3 x 52 / 15) = 10 places.
    assert '<dd data-preview="players">5</dd>' in page
    assert '<dd data-preview="decks">3</dd>' in page
    assert '<dd data-preview="places">10</dd>' in page
    assert "Start the event" in page


@pytest.mark.django_db
def test_it_previews_the_switch_stock_with_its_own_reserve(client):
    table = make_table("switch", players=8, extra_decks=0)
    page = content(house_client(client, table).get(url("dashboard", table.event.pk)))
    # Switch reserves 13: ceil(8 x 13 / 52) + 0 = 2 decks; floor(2 x 52 / 13) = 8 places.
    assert '<dd data-preview="decks">2</dd>' in page
    assert '<dd data-preview="places">8</dd>' in page


@pytest.mark.django_db
def test_it_disables_the_start_with_fewer_than_two_players(client):
    table = make_table("league", players=1)
    page = content(house_client(client, table).get(url("dashboard", table.event.pk)))
    assert "Starting needs at least two checked-in players." in page
    assert re.search(r'<button class="primary" type="submit" disabled[^>]*>Start the event', page)


def needs_connection(page: str) -> list[str]:
    """The opening tags of the buttons live.js holds back until its socket is live."""
    return re.findall(r"<button[^>]*\bdata-needs-connection\b[^>]*>", page)


@pytest.mark.django_db
def test_it_renders_every_action_disabled_until_the_socket_is_live(client):
    table = make_table("league", players=2)
    table.register(make_user("Late Larry"))
    house_client(client, table)
    for name in ("dashboard", "dashboard_partial"):
        page = content(client.get(url(name, table.event.pk)))
        live_part = page.split('<dialog id="dlg-result"')[0]  # the dialogs disable themselves
        tags = needs_connection(live_part)
        assert len(tags) >= 4  # Close registration, Check in (twice), Add and check in, Start
        for tag in tags:
            assert " disabled data-live-disabled" in tag, tag
        assert re.search(r"data-live-disabled[^>]*>Start the event", page)


@pytest.mark.django_db
def test_it_leaves_a_start_that_is_not_ready_disabled_once_live(client):
    table = make_table("league", players=1)
    page = content(house_client(client, table).get(url("dashboard", table.event.pk)))
    (start,) = re.findall(r"<button[^>]*>Start the event", page)
    assert " disabled" in start
    assert "data-live-disabled" not in start  # live.js only undoes its own marker


@pytest.mark.django_db
def test_a_draft_has_no_socket_and_its_actions_render_enabled(client):
    house = make_user("House", staff=True)
    event_id = services.event_create(
        by=house, name="Draft Night", date=datetime.date(2026, 12, 3), format="league"
    ).event_id
    client.force_login(house)
    page = content(client.get(url("dashboard", event_id)))
    assert "data-live-socket" not in page
    (opener,) = re.findall(r"<button[^>]*>Open registration", page)
    assert " disabled" not in opener
    assert "data-live-disabled" not in page


@pytest.mark.django_db
def test_it_never_shows_a_face_down_card(client):
    table = make_table("switch", players=3, start=True)
    page = content(house_client(client, table).get(url("dashboard", table.event.pk)))
    assert "Choose starting cards" in page
    assert 'class="card suit-' not in page
    hidden = DealtCard.objects.filter(shoe__event=table.event, face_down=True)
    assert hidden.count() == 15
    for card in hidden:
        assert card_name(card.card) not in page
    partial = content(client.get(url("dashboard_partial", table.event.pk)))
    assert 'class="card suit-' not in partial


@pytest.mark.django_db
def test_it_shows_the_two_face_up_cards_of_a_pending_win(client):
    table = make_table("league", players=2, start=True)
    ann = table.players[0]
    table.choose_start(ann)
    offered = table.win(ann, 1)
    page = content(house_client(client, table).get(url("dashboard", table.event.pk)))
    assert "Win choice (game 1)" in page
    assert f"tpl-win-{table.rid(ann)}" in page
    for card in offered:
        assert card_name(card) in page


@pytest.mark.django_db
def test_it_highlights_a_selection_waiting_over_three_minutes_with_its_reminder(client):
    table = make_table("league", players=2, start=True, contribution=0)
    table.event.time_zone = "America/Chicago"
    table.event.save(update_fields=["time_zone"])
    ann, bob = table.players
    reminded = timezone.now() - datetime.timedelta(minutes=1)
    Offer.objects.filter(registration=table.registration(ann)).update(
        offered_at=timezone.now() - datetime.timedelta(minutes=4, seconds=10),
        reminded_at=reminded,
    )
    Offer.objects.filter(registration=table.registration(bob)).update(
        offered_at=timezone.now() - datetime.timedelta(minutes=1)
    )
    page = content(house_client(client, table).get(url("dashboard", table.event.pk)))
    ann_row = page.split(f'id="player-{table.rid(ann)}"')[1].split("</tr>")[0]
    bob_row = page.split(f'id="player-{table.rid(bob)}"')[1].split("</tr>")[0]
    assert 'class="pending overdue"' in ann_row
    assert "4 min 1" in ann_row
    local = reminded.astimezone(zoneinfo.ZoneInfo("America/Chicago"))
    assert f"Reminded {local:%H:%M}" in ann_row
    assert 'class="pending"' in bob_row
    assert "Reminded" not in bob_row


@pytest.mark.django_db
def test_it_names_each_blocker_with_a_link_to_the_players_row(client):
    table = make_table("league", players=2, start=True)
    ann, bob = table.players
    table.play_out(ann)
    page = content(house_client(client, table).get(url("dashboard", table.event.pk)))
    bob_label = table.registration(bob).label
    assert '<a href="#registration">Registration is still open.</a>' in page
    assert '<a href="#pool">The pool is not confirmed.</a>' in page
    blocker = f"{bob_label} has not confirmed the starting selection."
    assert f'<a href="#player-{table.rid(bob)}">{blocker}</a>' in page
    ann_label = table.registration(ann).label
    assert f"{ann_label} has" not in page.split('id="finalize"')[1]


@pytest.mark.django_db
def test_it_serves_the_live_part_alone(client):
    table = make_table("league", players=2)
    response = house_client(client, table).get(url("dashboard_partial", table.event.pk))
    assert response.status_code == 200
    page = content(response)
    assert "<html" not in page
    assert 'id="players"' in page


@pytest.mark.django_db
def test_it_shows_the_commitment_once_started(client):
    table = make_table("standard-v1", players=2, start=True)
    page = content(house_client(client, table).get(url("dashboard", table.event.pk)))
    assert table.event.commitment in page
    assert "Submit game 1" in page


@pytest.mark.django_db
def test_it_lists_a_correction_under_review_with_the_cards_the_game_dealt(client):
    table = make_table("league", players=2, start=True)
    ann = table.players[0]
    table.choose_start(ann)
    offered = table.win(ann, 1)
    table.choose_win(ann, slot=1)
    services.result_correct(
        registration_id=table.rid(ann), by=table.house, game=1, outcome="loss", reason="Row 3"
    )
    page = content(house_client(client, table).get(url("dashboard", table.event.pk)))
    reviews = page.split('id="reviews"')[1].split('id="pool"')[0]
    assert "Game 1 corrected" in reviews
    assert "“Row 3”" in reviews
    assert "Opened by House: House" in reviews
    for card in offered:
        assert card_name(card) in reviews
    assert "Not kept" in reviews and "Kept" in reviews


def test_it_writes_waiting_times_and_signed_dollars_in_plain_words():
    from house.templatetags.house_tags import signed_dollars, waited

    assert [waited(s) for s in (0, 45, 65, 245, 3725)] == [
        "0 s",
        "45 s",
        "1 min 05 s",
        "4 min 05 s",
        "1 h 02 min",
    ]
    assert [signed_dollars(a) for a in (5, -10, 0)] == ["+$5", "\u2212$10", "$0"]


@pytest.mark.django_db
def test_it_keeps_messages_for_the_page_when_the_live_part_reloads(client):
    table = make_table("league", players=2)
    house_client(client, table)
    from tests.house.support import post

    post(client, "registration_close", table.event.pk)
    partial = content(client.get(url("dashboard_partial", table.event.pk)))
    assert "Registration is closed." not in partial
    page = content(client.get(url("dashboard", table.event.pk)))
    assert "Registration is closed." in page


@pytest.mark.django_db
def test_each_review_shows_the_cards_its_own_game_dealt():
    """Two corrections of one player: each review lists the cards of its own game, read from the
    cards themselves."""
    table = make_table("league", players=2, start=True)
    ann = table.players[0]
    table.choose_start(ann)
    lost = table.report(ann, 1, "loss").card
    offered = table.report(ann, 2, "win").offered
    assert lost is not None and offered is not None
    table.choose_win(ann, slot=0)
    for game, outcome in ((1, "win"), (2, "loss")):
        services.result_correct(
            registration_id=table.rid(ann), by=table.house, game=game, outcome=outcome, reason="Row"
        )

    shown = {review.game: list(review.cards) for review in reviews(table.event).open}

    assert shown[1] == [NotedCard(**card_face(lost), note="kept")]
    assert shown[2] == [
        NotedCard(**card_face(offered[0]), note="kept"),
        NotedCard(**card_face(offered[1]), note="not kept"),
    ]


def test_a_checklist_item_links_to_the_player_it_concerns() -> None:
    items = check_items(
        [
            Blocker("Ann #2 has 2 cards to keep.", "Ann #2", 2),
            Blocker("Ann has 1 card to keep.", "Ann", 1),
            Blocker("Ann B has a game to report.", "Ann B", 3),
            Blocker("Bo has 3 cards to keep."),
            Blocker("The pool is not confirmed."),
            Blocker("Ann #2 has a review open.", "Ann #2", 2),
        ]
    )
    assert [(i.anchor, i.player, i.id) for i in items] == [
        ("player-2", "Ann #2", "check-player-2-1"),
        ("player-1", "Ann", "check-player-1-1"),
        ("player-3", "Ann B", "check-player-3-1"),
        ("", "", "check-event-1"),
        ("pool", "", "check-pool-1"),
        ("player-2", "Ann #2", "check-player-2-2"),
    ]
