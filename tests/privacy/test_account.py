"""A player's data in their own hands: the JSON download, and deleting the account from the
settings page, after which every earlier export and every later one still verifies."""

from __future__ import annotations

import json

import pytest
from django.contrib.sessions.models import Session
from django.test import Client
from django.urls import reverse

from accounts.models import User
from audit.export import audit_document
from audit.verify import verify
from events.errors import DeletionBlocked
from events.models import Registration
from events.person import commitment
from ledger import services as ledger
from ledger.cash_box import cash_box
from ledger.lines import lines_of
from privacy.services import delete_account
from tests.events.support import finalized_table, last
from tests.factories import make_table
from tests.refusals import refused, unchanged

pytestmark = pytest.mark.django_db


def signed_in(user: User) -> Client:
    client = Client()
    client.force_login(user)
    return client


def test_a_player_downloads_everything_kept_about_them():
    table = finalized_table(players=2)
    ann = table.players[0]
    registration = table.registration(ann)
    answer = signed_in(ann).get(reverse("privacy:data_download"))
    assert answer.status_code == 200
    assert answer["Content-Disposition"] == 'attachment; filename="my-syndicate-data.json"'
    data = json.loads(answer.content)
    assert data["account"]["email"] == ann.email
    assert data["account"]["display_name"] == ann.display_name
    (mine,) = data["registrations"]
    assert (mine["label"], mine["event"]["id"]) == (registration.label, table.event.pk)
    assert len(mine["results"]) == table.event.rules.games
    assert mine["kept_cards"] and mine["award"] == registration.award
    person = mine["person"]
    assert person["commitment"] == commitment(person["salt"], ann.pk)
    entries = {entry["action"] for entry in mine["audit_entries"]}
    assert {"player_registered", "player_checked_in", "card_kept"} <= entries
    recorded = [
        e["details"]["person"] for e in mine["audit_entries"] if e["action"] == "player_registered"
    ]
    assert recorded == [person["commitment"]]
    assert Client().get(reverse("privacy:data_download")).status_code == 302  # sign in first


def test_deleting_the_account_keeps_every_export_verifying():
    table = finalized_table(players=2)
    ann, bob = table.players
    winner = next(p for p in table.players if table.registration(p).award)
    ledger.payout_record(
        event_id=table.event.pk,
        registration_id=table.rid(winner),
        by=table.house,
        amount=1,
        method="cash",
        handed_by="Dana",
        acknowledged=True,
    )
    before = json.loads(json.dumps(audit_document(table.event)))
    registration_id = table.rid(ann)
    old_label = table.registration(ann).label
    client = signed_in(ann)
    answer = client.post(reverse("privacy:account_delete"), {"confirm": "delete"})
    assert answer.status_code == 302
    assert not User.objects.filter(pk=ann.pk).exists()
    assert not [
        s for s in Session.objects.all() if s.get_decoded().get("_auth_user_id") == str(ann.pk)
    ]
    registration = Registration.objects.get(pk=registration_id)
    assert registration.label == f"Former player {registration_id}"
    assert (registration.player, registration.person_salt) == (None, "")
    entry = last(table.event, "player_relabelled")
    assert (entry.actor, entry.actor_kind, entry.player, entry.details) == (
        "system",
        "system",
        old_label,
        {"label": registration.label},
    )
    after = audit_document(table.event)
    assert ann.email not in json.dumps(after)
    for document in (before, after):
        verdict = verify(document)
        assert verdict.ok, verdict.problem
    assert registration.label in [p["player"] for p in after["result"]["players"]]
    labels = {line.player for line in lines_of(table.refresh())}
    assert old_label not in labels
    assert cash_box(table.event).paid_out == 1
    assert client.get(reverse("web:settings")).status_code == 302  # signed out everywhere
    assert User.objects.filter(pk=bob.pk).exists()


def test_deletion_is_refused_while_a_card_waits_in_an_event_in_play():
    table = make_table("league", players=2, start=True)
    ann = table.players[0]
    assert table.event.rules.offered  # a starting selection waits for each player
    with unchanged(table.event):
        refused(DeletionBlocked, table.event, lambda: delete_account(user=ann))
        answer = signed_in(ann).post(
            reverse("privacy:account_delete"), {"confirm": "delete"}, follow=True
        )
        assert "You have a card to choose in Thursday League" in answer.content.decode()
    assert User.objects.filter(pk=ann.pk).exists()
    assert table.registration(ann).label == ann.display_name


def test_the_page_asks_to_type_delete_first():
    table = make_table(players=1)
    (ann,) = table.players
    with unchanged(table.event):
        answer = signed_in(ann).post(
            reverse("privacy:account_delete"), {"confirm": "yes"}, follow=True
        )
    assert "Type delete to confirm" in answer.content.decode()
    assert User.objects.filter(pk=ann.pk).exists()
    page = signed_in(ann).get(reverse("web:settings")).content.decode()
    assert 'id="delete-account"' in page and reverse("privacy:data_download") in page
