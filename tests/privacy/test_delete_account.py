"""Deleting an account (privacy/services.py: delete_account) is one transaction that completes or
changes nothing; afterwards every event and season export verifies with the player under their
neutral label, and a label once in an event's chain is never handed to a later registration."""

from __future__ import annotations

import json
from typing import Any

import pytest
from allauth.account.models import EmailAddress
from django.contrib.sessions.models import Session
from django.db import connection
from django.db.models import ProtectedError
from django.test import Client, TestCase
from django.urls import reverse

from accounts.models import User
from audit.export import audit_document
from audit.verify import Entry, follow_relabels, verify
from events import services
from events.errors import WrongPhase
from events.models import Event, Registration
from events.registration import player_relabel
from ledger import services as ledger
from ledger.lines import accounts, lines_of
from privacy.services import delete_account
from seasons import standings
from seasons.models import FormerPlayer, PlayerKey, SeasonResult, SeasonStanding
from seasons.reads import if_tonight_ended, season_table
from tests.factories import Table, make_table, make_user
from tests.privacy.support import season_verifies, series_night, signed_in
from tests.refusals import refused
from tests.seasons.support import make_league

pytestmark = pytest.mark.django_db


def test_deleting_a_player_with_season_results_keeps_the_season_verifying_under_a_neutral_label():
    league = make_league(players=4)
    ann = league.players[0]
    league.open_season()
    first = league.night(0, league.players, seed=1)
    second = league.night(1, league.players, seed=2)
    before = {row.player_id: row for row in season_table(league.season).rows}
    ann_id = PlayerKey.objects.get(user=ann).public_id
    ann_total = before[ann_id].total
    client = signed_in(ann)
    client.get(reverse("privacy:data_download"))  # a session to end

    answer = client.post(reverse("privacy:account_delete"), {"confirm": "delete"})

    assert answer.status_code == 302
    assert not User.objects.filter(pk=ann.pk).exists()
    assert not EmailAddress.objects.filter(email=ann.email).exists()
    assert not [
        s for s in Session.objects.all() if s.get_decoded().get("_auth_user_id") == str(ann.pk)
    ]
    former = FormerPlayer.objects.get()
    assert former.public_id != ann_id
    results = SeasonResult.objects.filter(former=former).order_by("event_id")
    assert [row.event_id for row in results] == [first, second]
    for row in results:
        registration = Registration.objects.get(event_id=row.event_id, label=row.label)
        assert row.label == f"Former player {registration.pk}"
        assert registration.player is None
    document = season_verifies(league)
    text = json.dumps(document)
    assert ann.display_name not in [row["display_name"] for row in document["standings"]]
    assert ann_id not in text and ann.email not in text
    (standing,) = [row for row in document["standings"] if row["player_id"] == former.public_id]
    assert standing["display_name"] == former.display_name
    assert standing["display_name"].startswith("Former player ")
    assert standing["total"] == ann_total
    # The season's page names them neutrally, with no link to a history no one has any more.
    page = Client().get(reverse("seasons:season", args=[league.season.pk])).content.decode()
    assert former.display_name in page and ann.display_name not in page
    assert reverse("seasons:history", args=[former.public_id]) not in page
    others = {row.player_id: row.total for row in season_table(league.season).rows}
    assert {k: v.total for k, v in before.items() if k != ann_id} == {
        k: v for k, v in others.items() if k != former.public_id
    }


def test_a_player_deleted_during_a_season_night_counts_under_their_neutral_label_once_it_is_final():
    league = make_league(players=4)
    ann, bob, cy, _ = league.players
    league.open_season()
    league.night(0, league.players, seed=1)
    table = series_night(league, week=1)
    for player in (ann, bob, cy):
        table.players.append(player)
        table.register(player)
        table.check_in(player)
    table.start()
    table.refresh()
    table.play_out(ann)
    registration_id = table.rid(ann)

    delete_account(user=ann)

    neutral = Registration.objects.get(pk=registration_id).label
    assert neutral == f"Former player {registration_id}"
    for player in (bob, cy):
        table.play_out(player)
    # The season "if tonight ended" already counts the night under the neutral name.
    (tonight,) = if_tonight_ended(league.season)
    (row,) = [row for row in tonight.rows if row.former]
    assert (row.player_id, row.events) == (FormerPlayer.objects.get().public_id, 2)
    services.pool_confirm(event_id=table.event.pk, by=table.house)
    with TestCase.captureOnCommitCallbacks(execute=True):
        services.event_finalize(event_id=table.event.pk, by=table.house)

    former = FormerPlayer.objects.get()
    assert SeasonResult.objects.get(event=table.event, former=former).label == neutral
    assert SeasonResult.objects.filter(event=table.event).count() == 3
    standing = SeasonStanding.objects.get(former=former)
    assert standing.events == 2 and standing.player is None
    season_verifies(league)


def pay(table: Table, registration_id: int) -> None:
    ledger.entry_payment(
        event_id=table.event.pk, registration_id=registration_id, by=table.house, method="cash"
    )


def test_a_deleted_players_label_is_never_handed_to_a_later_registration():
    table = make_table("league", players=1, contribution=10)
    (bob,) = table.players
    ann = make_user("Ann")
    first = table.register(ann)
    pay(table, first)
    email = ann.email
    delete_account(user=ann)
    former = Registration.objects.get(pk=first)
    assert former.label == f"Former player {first}"

    again = User.objects.create_user(email=email, password="another horse", display_name="Ann")
    second = table.register(again)
    table.players.append(again)
    pay(table, second)
    fresh = Registration.objects.get(pk=second)
    assert fresh.label not in ("Ann", former.label)
    assert fresh.label == "Ann #2"

    # Each account holds only its own money, and the former entry is refunded on its own.
    held = {label: account.held for label, account in accounts(lines_of(table.refresh())).items()}
    assert held[former.label] == 10 and held[fresh.label] == 10
    assert former.status == "cancelled"  # the deletion cancelled the entry nobody comes for
    ledger.entry_refund(
        event_id=table.event.pk,
        registration_id=first,
        by=table.house,
        amount=10,
        method="cash",
        reason="Account gone",
    )
    held = {label: account.held for label, account in accounts(lines_of(table.refresh())).items()}
    assert held[former.label] == 0 and held[fresh.label] == 10

    # The new account's download holds its own entries only.
    data = json.loads(signed_in(again).get(reverse("privacy:data_download")).content)
    (mine,) = data["registrations"]
    seqs = {entry["seq"] for entry in mine["audit_entries"]}
    old = set(
        table.event.audit_entries.filter(player__in=("Ann", former.label)).values_list(
            "seq", flat=True
        )
    )
    assert seqs and not seqs & old
    assert {entry["player"] for entry in mine["audit_entries"]} == {"Ann #2"}

    # The night is played: the audit verifies, one wild each.
    services.player_check_in(registration_id=second, by=table.house)
    table.start()
    table.refresh()
    for player in (bob, again):
        table.play_out(player)
    services.pool_confirm(event_id=table.event.pk, by=table.house)
    services.event_finalize(event_id=table.event.pk, by=table.house)
    document = json.loads(json.dumps(audit_document(table.refresh())))
    verdict = verify(document)
    assert verdict.ok, verdict.problem
    players = {p["player"] for p in document["result"]["players"]}
    assert players == {bob.display_name, "Ann #2"}


def test_a_deleted_accounts_entry_not_yet_checked_in_is_cancelled_never_checked_in_later():
    table = make_table("league", players=2)
    ann, cy = make_user("Ann"), make_user("Cy")
    waiting = table.register(ann)
    here = table.register(cy)
    table.check_in(cy)

    delete_account(user=ann)
    delete_account(user=cy)

    cancelled = Registration.objects.get(pk=waiting)
    assert (cancelled.status, cancelled.label) == ("cancelled", f"Former player {waiting}")
    # Cancelled under the name the player registered with, then relabelled, as they could have.
    actions = list(table.event.audit_entries.order_by("seq").values_list("action", "player"))
    assert actions[-3:-1] == [("registration_cancelled", "Ann"), ("player_relabelled", "Ann")]
    refused(
        WrongPhase,
        table.event,
        lambda: services.player_check_in(registration_id=waiting, by=table.house),
    )
    # One checked in is House's to undo, as any check-in before the start.
    assert Registration.objects.get(pk=here).status == "checked_in"
    table.start()
    document = json.loads(json.dumps(audit_document(table.refresh())))
    verdict = verify(document)
    assert verdict.ok, verdict.problem


def test_a_deletion_that_fails_part_way_changes_nothing():
    league = make_league(players=2)
    ann = league.players[0]
    league.open_season()
    league.night(0, league.players, seed=1)
    chain = list(Event.objects.values_list("pk", "audit_seq"))
    # A row the deletion cannot pass on: the account's last statement fails after every relabel.
    with connection.cursor() as cursor:
        cursor.execute(
            "CREATE FUNCTION refuse_user_delete() RETURNS trigger AS $$ BEGIN "
            "RAISE EXCEPTION 'kept'; END $$ LANGUAGE plpgsql"
        )
        cursor.execute(
            "CREATE TRIGGER refuse_user_delete BEFORE DELETE ON accounts_user "
            "FOR EACH ROW EXECUTE FUNCTION refuse_user_delete()"
        )
    with pytest.raises(Exception, match="kept"):
        delete_account(user=ann)
    assert User.objects.filter(pk=ann.pk).exists()
    assert list(Event.objects.values_list("pk", "audit_seq")) == chain
    assert Registration.objects.filter(player=ann).count() == 1
    assert SeasonResult.objects.filter(player=ann).count() == 1
    assert not FormerPlayer.objects.exists()


def test_a_label_a_relabelling_left_names_a_later_registration_in_an_older_chain():
    # A chain written before a label once left was kept from later registrations: the entries
    # before the relabelling are the deleted account's, the later ones another registration's.
    def entry(seq: int, action: str, player: str | None, **details: Any) -> Entry:
        return Entry(seq=seq, action=action, player=player, details=details, hash=str(seq))

    chain = [
        entry(1, "player_registered", "Ann"),
        entry(2, "entry_paid", "Ann", amount=10),
        entry(3, "player_relabelled", "Ann", label="Former player 5"),
        entry(4, "player_registered", "Ann"),
        entry(5, "player_relabelled", "Ann", label="Former player 9"),
        entry(6, "event_finalized", None, awards={"Former player 9": 8}),
    ]
    followed, relabelled = follow_relabels(chain)
    assert [e.player for e in followed] == [
        "Former player 5",
        "Former player 5",
        "Former player 5",
        "Former player 9",
        "Former player 9",
        None,
    ]
    assert relabelled == 2


def test_a_deletion_that_stopped_after_its_relabels_completes_when_tried_again():
    # Before a deletion was one transaction, a player with season results was left with their
    # registrations relabelled and their account still there: trying again completes it.
    league = make_league(players=3)
    ann = league.players[0]
    league.open_season()
    night = league.night(0, league.players, seed=4)
    registration_id = Registration.objects.get(event_id=night, player=ann).pk
    player_relabel(registration_id=registration_id, by=ann)
    with pytest.raises(ProtectedError):
        ann.delete()

    delete_account(user=ann)

    assert not User.objects.filter(pk=ann.pk).exists()
    result = SeasonResult.objects.get(former__isnull=False)
    assert result.label == Registration.objects.get(pk=registration_id).label
    season_verifies(league)


def test_a_season_a_deletion_left_unverifiable_is_mended_at_its_next_export():
    # Before deletions were one transaction, one could stop after relabelling the registration
    # (its account kept), and a player deleted during a night was left out of the season: the
    # next export mends both, and the season verifies again.
    league = make_league(players=4)
    ann, bob, cy, dee = league.players
    league.open_season()
    first = league.night(0, league.players, seed=7)
    player_relabel(registration_id=Registration.objects.get(event_id=first, player=ann).pk, by=ann)
    table = series_night(league, week=1)
    for player in (bob, cy, dee):
        table.players.append(player)
        table.register(player)
        table.check_in(player)
    table.start()
    table.refresh()
    for player in (bob, cy, dee):
        table.play_out(player)
    player_relabel(registration_id=table.rid(dee), by=dee)
    dee_label = Registration.objects.get(event=table.event, label__startswith="Former").label
    services.pool_confirm(event_id=table.event.pk, by=table.house)
    with TestCase.captureOnCommitCallbacks(execute=True):
        services.event_finalize(event_id=table.event.pk, by=table.house)
    # What a recording before former players left: no row for the unlinked registration.
    SeasonResult.objects.filter(event=table.event, label=dee_label).delete()
    SeasonStanding.objects.filter(former__isnull=False).delete()
    FormerPlayer.objects.all().delete()
    stale = SeasonResult.objects.get(event_id=first, player=ann)
    assert stale.label == ann.display_name  # the chain says "Former player ..." now

    assert standings.mend(league.season) == 2

    assert SeasonResult.objects.get(pk=stale.pk).label.startswith("Former player ")
    assert SeasonResult.objects.get(event=table.event, label=dee_label).former is not None
    season_verifies(league)
    assert standings.mend(league.season) == 0
