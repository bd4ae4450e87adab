"""The player page of a format whose Win offers three cards: the page shows the three cards and
keeps the one tapped, in the format's words."""

from __future__ import annotations

import re
import uuid

import pytest
from django.test import Client
from django.urls import reverse

from cards.models import Offer
from tests.factories import THREE_CARD_WIN, format_registered, make_table


@pytest.mark.django_db
def test_the_page_shows_the_three_cards_of_a_win_and_keeps_the_third(client: Client) -> None:
    with format_registered(THREE_CARD_WIN) as rules:
        table = make_table(rules.name, players=2, start=True)
        ann = table.players[0]
        table.choose_start(ann)
        offered = table.win(ann, 1)
        client.force_login(ann)
        page = reverse("web:event", args=[table.event.pk])
        html = client.get(page).content.decode()
        assert "You won game 1: keep one card" in html
        assert 'aria-label="Your three face-up cards"' in html
        form = html[html.index('class="keep-form"') :]
        form = form[: form.index("</form>")]
        assert re.findall(r'name="slot" value="(\d+)"', form) == ["0", "1", "2"]
        offer = Offer.objects.get(registration=table.registration(ann), kind="win")
        response = client.post(
            reverse("web:keep", args=[table.event.pk]),
            {"slot": "2", "offer_id": str(offer.pk), "idempotency_key": uuid.uuid4().hex},
        )
        assert response.status_code == 302
        assert table.kept(ann)[-1] == offered[2]
        assert "Report game 2" in client.get(page).content.decode()
