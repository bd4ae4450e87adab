"""events/scoreholio.py: reading a Scoreholio Match Log and comparing it with submitted results."""

from __future__ import annotations

import datetime

import pytest

from events.scoreholio import (
    MatchLogError,
    PlayerResults,
    SubmittedResult,
    compare,
    normalize_name,
    parse_match_log,
    parse_score,
    team_members,
)

HEADER = "#,Team 1,Team 2,Score,Score 2,Date/Time,Play Duration\n"


def log(*rows: str, header: str = HEADER) -> str:
    return header + "\n".join(rows) + "\n"


def player(rid: int, label: str, *results: tuple, display: str = "") -> PlayerResults:
    return PlayerResults(
        registration_id=rid,
        label=label,
        display_name=display or label,
        results=tuple(SubmittedResult(*r) for r in results),
    )


def test_it_reads_a_log_with_a_bom_odd_spacing_and_header_case():
    text = "\ufeff  #  , team 1,TEAM  2, score ,Score 2 ,date/time,Play duration\n" + (
        "3, Ann ,  Bob  ,21,15,3/14/2025 7:05 PM,12:31\n"
    )
    (row,) = parse_match_log(text)
    assert (row.number, row.team1, row.team2, row.score1, row.score2) == (3, "Ann", "Bob", 21, 15)
    assert row.played_at == datetime.datetime(2025, 3, 14, 19, 5)
    assert row.duration == "12:31"
    assert row.outcome_for(1) == "win" and row.outcome_for(2) == "loss"


def test_it_orders_rows_by_number_then_by_time():
    by_number = parse_match_log(log("2,Ann,Bob,21,10,,", "1,Ann,Cy,10,21,,", "10,Ann,Dee,21,0,,"))
    assert [row.number for row in by_number] == [1, 2, 10]
    by_time = parse_match_log(
        log(",Ann,Bob,21,10,2025-03-14 19:40,", ",Ann,Cy,10,21,2025-03-14 19:05,")
    )
    assert [row.team2 for row in by_time] == ["Cy", "Bob"]


def test_it_leaves_out_games_not_played_yet():
    rows = parse_match_log(log("1,Ann,Bob,21,15,,", "2,Ann,Cy,,,,", "3,Dee,,21,0,,", ""))
    assert [row.number for row in rows] == [1]


@pytest.mark.parametrize(
    ("text", "missing"),
    [
        ("Round,Player,Opponent,Result\n1,Ann,Bob,W\n", "#, Team 1, Team 2, Score, Score 2"),
        ("#,Team 1,Team 2,Score,Date/Time,Play Duration\n", "Score 2"),
    ],
)
def test_it_rejects_a_file_without_the_log_columns(text, missing):
    with pytest.raises(MatchLogError) as caught:
        parse_match_log(text)
    assert caught.value.message.startswith("This is not a Scoreholio Match Log")
    assert f"(missing: {missing}" in caught.value.message


def test_it_rejects_an_empty_file():
    with pytest.raises(MatchLogError, match="The file is empty"):
        parse_match_log("\ufeff \n")


def test_it_reads_semicolon_separated_exports():
    (row,) = parse_match_log(
        "#;Team 1;Team 2;Score;Score 2;Date/Time;Play Duration\n4;A;B;3;21;;\n"
    )
    assert (row.number, row.outcome_for(1)) == (4, "loss")


def test_it_splits_doubles_teams_and_normalizes_names():
    assert team_members("Ann Lee / Bob") == ("Ann Lee", "Bob")
    assert team_members("Ann & Bob") == ("Ann", "Bob")
    assert team_members("Solo") == ("Solo",)
    assert normalize_name("  ANN   lee ") == "ann lee"
    assert parse_score("21-15") == (21, 15)
    assert parse_score("21 : 15") == (21, 15)
    assert parse_score("won") is None


def test_it_finds_a_result_the_log_contradicts():
    rows = parse_match_log(log("1,Ann,Bob,21,15,,", "2,Cy,Ann,21,11,,", "3,Ann,Dee,21,19,,"))
    ann = player(1, "Ann", (1, "win"), (2, "win"), (3, "win"))
    result = compare(rows, [ann])
    (mismatch,) = result.mismatches
    assert (mismatch.player, mismatch.game, mismatch.submitted) == ("Ann", 2, "win")
    assert (mismatch.scoreholio, mismatch.row) == ("loss", 2)
    assert mismatch.reason == "Scoreholio row 2 shows a loss for game 2"
    assert (result.compared, result.agreed) == (3, 2)


def test_it_matches_either_member_of_a_doubles_team():
    rows = parse_match_log(log("1,Ann Lee / Bob,Cy & Dee,21,15,,", "2,Eve,ann lee & Bob,21,3,,"))
    players = [
        player(1, "Ann Lee", (1, "win"), (2, "win")),
        player(2, "Bob", (1, "win"), (2, "loss")),
        player(3, "Dee", (1, "loss")),
    ]
    result = compare(rows, players)
    assert [(m.player, m.game, m.scoreholio, m.row) for m in result.mismatches] == [
        ("Ann Lee", 2, "loss", 2)
    ]
    assert [u.name for u in result.unmatched] == ["Cy", "Eve"]
    assert result.unmatched[0].note == "matches no player in this event"


def test_it_matches_names_ignoring_case_and_spaces_and_the_display_name():
    rows = parse_match_log(log("1,  ANNIE   b ,Bob,10,21,,"))
    annie = PlayerResults(1, "Annie B #2", "Annie B", (SubmittedResult(1, "loss"),))
    result = compare(rows, [annie])
    assert result.mismatches == () and result.agreed == 1


def test_it_lists_a_name_shared_by_two_players_as_unmatched():
    rows = parse_match_log(log("1,Ann,Bob,21,15,,"))
    players = [
        PlayerResults(1, "Ann #2", "Ann", (SubmittedResult(1, "win"),)),
        PlayerResults(2, "Ann #3", "Ann", ()),
        player(3, "Bob", (1, "loss")),
    ]
    result = compare(rows, players)
    (unclear,) = result.unmatched
    assert unclear.name == "Ann" and unclear.candidates == ("Ann #2", "Ann #3")
    assert "matches more than one player" in unclear.note
    assert [(m.player, m.scoreholio) for m in result.mismatches] == [("Ann #2", None)]


def test_it_uses_the_opponent_the_player_entered_to_pick_the_row():
    rows = parse_match_log(log("1,Ann,Bob,21,15,,", "2,Ann,Cy,9,21,,"))
    # Ann reported game 1 against Cy: the log's row 2, a loss, is that game.
    ann = player(1, "Ann", (1, "loss", "cy"), (2, "win", ""))
    result = compare(rows, [ann])
    assert result.mismatches == ()
    assert result.agreed == 2


def test_it_uses_the_score_the_player_entered_to_pick_the_row():
    rows = parse_match_log(log("1,Ann,Bob,21,15,,", "2,Cy,Ann,21,3,,"))
    ann = player(1, "Ann", (1, "loss", "", "3-21"), (2, "win"))
    assert compare(rows, [ann]).mismatches == ()


def test_it_reports_a_submitted_game_the_log_does_not_have():
    rows = parse_match_log(log("1,Ann,Bob,21,15,,"))
    ann = player(1, "Ann", (1, "win"), (2, "loss"))
    (missing,) = compare(rows, [ann]).mismatches
    assert (missing.game, missing.scoreholio, missing.row) == (2, None, None)
    assert missing.says == "no game logged"
    assert "no logged game for game 2" in missing.reason


def test_it_reports_a_tie_as_a_mismatch():
    rows = parse_match_log(log("7,Ann,Bob,21,21,,"))
    (tie,) = compare(rows, [player(1, "Ann", (1, "win"))]).mismatches
    assert (tie.scoreholio, tie.row) == ("tie", 7)
    assert tie.reason == "Scoreholio row 7 shows a tie for game 1"


def test_it_refers_to_a_row_without_a_number_by_its_line():
    rows = parse_match_log(log(",Ann,Bob,10,21,2025-03-14 19:05,"))
    (mismatch,) = compare(rows, [player(1, "Ann", (1, "win"))]).mismatches
    assert mismatch.row == 2
