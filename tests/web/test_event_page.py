"""The player's event page: its actions render disabled until live.js has a live socket."""

from __future__ import annotations

import re

import pytest
from django.test import Client
from django.urls import reverse

from accounts.models import User
from tests.factories import Table, make_table


def player_page(client: Client, table: Table, player: User) -> list[str]:
    """The page and its htmx partial, as the player's browser gets them."""
    client.force_login(player)
    return [
        client.get(reverse(f"web:{name}", args=[table.event.pk])).content.decode()
        for name in ("event", "event_partial")
    ]


def button(page: str, label: str) -> str:
    (tag,) = re.findall(rf"<button[^>]*>{re.escape(label)}", page)
    return tag


@pytest.mark.django_db
def test_it_renders_the_report_buttons_disabled_until_live(client):
    table = make_table("league", players=2, start=True)
    player = table.players[0]
    table.choose_start(player)
    for page in player_page(client, table, player):
        for label in ("I won", "I lost", "Submit"):
            tag = button(page, label)
            assert "data-needs-connection" in tag
            assert " disabled data-live-disabled" in tag, tag


@pytest.mark.django_db
def test_it_renders_keep_this_card_disabled_until_live(client):
    table = make_table("league", players=2, start=True)
    player = table.players[0]
    table.choose_start(player)
    table.report(player, 1, "win")
    for page in player_page(client, table, player):
        assert " disabled data-live-disabled" in button(page, "Keep this card")


@pytest.mark.django_db
def test_it_leaves_the_starting_choice_to_the_page(client):
    table = make_table("league", players=2, start=True)
    player = table.players[0]
    for page in player_page(client, table, player):
        tag = button(page, "Choose 1 card")
        assert " disabled" in tag
        assert "data-live-disabled" not in tag  # enabled by a complete choice, not by live.js
