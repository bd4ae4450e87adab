"""The dashboard's Scoreholio check: upload a Match Log, see mismatches, open a review in one
click."""

from __future__ import annotations

import pytest
from django.core.files.uploadedfile import SimpleUploadedFile

from events.models import Review
from tests.factories import make_table
from tests.house.support import house_client, post, url
from tests.refusals import said, unchanged

HEADER = "#,Team 1,Team 2,Score,Score 2,Date/Time,Play Duration\n"


def upload(client, table, text: str, name: str = "match-log.csv"):
    return client.post(
        url("scoreholio_upload", table.event.pk),
        {"log": SimpleUploadedFile(name, text.encode("utf-8-sig"), content_type="text/csv")},
    )


@pytest.fixture
def played(client):
    table = make_table("standard-v1", players=2, start=True)
    house_client(client, table)
    ann, bob = table.players
    ann_label, bob_label = table.registration(ann).label, table.registration(bob).label
    table.report(ann, 1, "win")
    table.choose_win(ann)
    table.report(bob, 1, "win")  # the log says Bob lost game 1
    table.choose_win(bob)
    table.log = (  # type: ignore[attr-defined]
        HEADER
        + f"14,{ann_label},{bob_label},21,12,3/14/2025 7:05 PM,11:00\n"
        + "15,Stranger / Someone,Nobody,21,3,3/14/2025 7:20 PM,9:00\n"
    )
    return table


@pytest.mark.django_db
def test_it_lists_mismatches_and_unmatched_names(client, played):
    with unchanged(played.event, "reading the log"):
        response = upload(client, played, played.log)
    assert response["Location"].endswith("#scoreholio")
    assert "Scoreholio log read: 2 played games." in said(response)
    page = client.get(url("dashboard", played.event.pk)).content.decode()
    section = page.split('id="scoreholio"')[1].split('id="audit"')[0]
    bob = played.registration(played.players[1])
    assert "Mismatches (1)" in section
    assert f'<a href="#player-{bob.pk}">{bob.label}</a>' in section
    assert "A loss" in section and ">14<" in section
    assert "Scoreholio row 14 shows a loss for game 1" in section
    assert "Stranger" in section and "Nobody" in section
    assert "match-log.csv" in section


@pytest.mark.django_db
def test_it_opens_a_review_from_a_mismatch_in_one_click(client, played):
    upload(client, played, played.log)
    bob = played.registration(played.players[1])
    response = post(
        client,
        "review_open",
        played.event.pk,
        bob.pk,
        reason="Scoreholio row 14 shows a loss for game 1",
        anchor="scoreholio",
    )
    assert response["Location"].endswith("#scoreholio")
    review = Review.objects.get(registration=bob)
    assert review.reason == "Scoreholio row 14 shows a loss for game 1"
    bob.refresh_from_db()
    assert bob.paused
    page = client.get(url("dashboard", played.event.pk)).content.decode()
    section = page.split('id="scoreholio"')[1].split('id="audit"')[0]
    assert "Review open" in section
    assert "Open review" not in section


@pytest.mark.django_db
def test_it_refuses_a_file_that_is_not_a_match_log(client, played):
    response = upload(client, played, "Name,Wins\nAnn,3\n", name="standings.csv")
    assert any(text.startswith("This is not a Scoreholio Match Log") for text in said(response))
    page = client.get(url("dashboard", played.event.pk)).content.decode()
    assert "Mismatches" not in page


@pytest.mark.django_db
def test_it_asks_for_a_file(client, played):
    response = client.post(url("scoreholio_upload", played.event.pk), {})
    assert "Choose the Match Log CSV file exported from Scoreholio." in said(response)


@pytest.mark.django_db
def test_it_clears_the_log(client, played):
    upload(client, played, played.log)
    response = client.post(url("scoreholio_clear", played.event.pk))
    assert "Scoreholio log cleared." in said(response)
    page = client.get(url("dashboard", played.event.pk)).content.decode()
    assert "Mismatches" not in page


@pytest.mark.django_db
def test_it_says_when_every_result_agrees(client, played):
    ann, bob = (played.registration(p) for p in played.players)
    agreeing = HEADER + f"1,{ann.label},Someone Else,21,12,,\n2,{bob.label},Other,21,5,,\n"
    upload(client, played, agreeing)
    page = client.get(url("dashboard", played.event.pk)).content.decode()
    assert "No mismatch: every result found in the log agrees with it." in page
